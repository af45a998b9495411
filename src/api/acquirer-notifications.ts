/**
 * Where acquirers send their notifications (docs/acquirers.md "Notifications"):
 * `POST PUBLIC_URL/acquirer/<connector>/notifications`, read by that connector's reader
 * (acquirer/notifications.ts), which verifies each item against the connections of its account
 * and mode. A verified item settles what it names (its capture, refund, reversal, unanswered
 * authorisation, technical cancel…; payments/operations/settle-by-acquirer.ts) or is kept on the
 * payment's timeline, once: an item sent again (by the acquirer's name of it) changes nothing. An
 * item of an event the connector does not know is accepted, changes nothing and is logged. An item signed for no connection changes nothing and is logged without its
 * content. The answer is the one the acquirer expects (its reader says which), once every verified
 * item is recorded; when recording fails the answer is an error, so the acquirer sends it again.
 */
import type { FastifyInstance } from 'fastify';
import { Problem } from '../ground/problem.ts';
import { findAcquirerConnectionsByAccount } from '../store/acquirer-connections.ts';
import { notificationReaderOf } from '../acquirer/select.ts';
import { run } from '../payments/runner/run.ts';
import { settleByAcquirer } from '../payments/operations/settle-by-acquirer.ts';
import { installBodyWithBytesParsers, type BodyWithBytes } from './json-body.ts';
import type { Deps } from './payments.ts';

export async function acquirerNotifications(app: FastifyInstance, { store }: Deps) {
  const { ports } = app;
  installBodyWithBytesParsers(app);
  app.post<{ Params: { connector: string }; Body: BodyWithBytes | undefined }>('/acquirer/:connector/notifications', async (request, reply) => {
    const { connector } = request.params;
    const read = notificationReaderOf(connector);
    // The same answer as for any address that is not a route (api/errors.ts).
    if (!read) throw new Problem('notFound', `There is nothing at ${request.method} ${request.url.split('?')[0]}.`);
    const { raw, json } = request.body ?? { raw: Buffer.alloc(0), json: undefined };
    const notification = await read({ raw, json, headers: request.headers }, (account, mode) =>
      findAcquirerConnectionsByAccount(store.read, store.secrets, connector, account, mode),
    );
    let sentAgain = 0;
    for (const word of notification.words) {
      // Accepted all the same: the acquirer would send it again and again, and nothing of Kassa's waits for it.
      if (word.event === 'unknown') request.log.warn({ eventCode: word.item.eventCode, connector }, 'an acquirer notification of an unknown event code changed nothing');
      const applied = await run(settleByAcquirer, word, { ports, caller: undefined, now: Date.now(), log: request.log });
      if (applied.item === 'first' && applied.attention) request.log.warn({ reference: word.reference, eventCode: word.item.eventCode }, applied.attention);
      if (applied.item === 'sent again') {
        sentAgain++;
        // The same event with the other outcome is not the acquirer retrying: an operator should look at it.
        if (applied.differs)
          request.log.warn(
            { reference: word.reference, eventCode: word.item.eventCode },
            'an acquirer notification came again with another outcome; the first one stands',
          );
      }
    }
    if (notification.forged > 0) request.log.warn({ forged: notification.forged }, 'acquirer notification items without a valid signature were ignored');
    if (sentAgain > 0) request.log.info({ sentAgain }, 'acquirer notification items recorded already changed nothing');
    return reply.type(notification.answer.contentType).send(notification.answer.body);
  });
}
