/**
 * Where acquirers send their notifications (docs/acquirers.md "Notifications"):
 * `POST PUBLIC_URL/acquirer/adyen/notifications`. Each item is checked against the HMAC key of
 * every connection of its merchant account and mode; a signed item settles its capture,
 * refund, reversal or unanswered authorisation (payments/operations/settle-by-acquirer.ts), once:
 * an item sent again (by its pspReference and eventCode) changes nothing. An item signed by no
 * key changes nothing and is logged without its content. The answer is
 * `[accepted]`, as Adyen expects, once every signed item is recorded; when recording fails the
 * answer is an error, so Adyen sends it again.
 */
import type { FastifyInstance } from 'fastify';
import { Problem } from '../ground/problem.ts';
import { findAcquirerConnectionsByAccount } from '../store/acquirer-connections.ts';
import { parseNotification, signedWith, type AdyenNotificationItem } from '../acquirer/adyen-notifications.ts';
import { failureCodeOfRefusal } from '../acquirer/adyen-outcomes.ts';
import { paymentPorts } from '../payments/ports.ts';
import { run } from '../payments/operations/run.ts';
import { settleByAcquirer, type AcquirerWord } from '../payments/operations/settle-by-acquirer.ts';
import type { Deps } from './payments.ts';

/** Adyen's event codes that finish what Kassa asked for (a `/cancel` is a reversal); the rest (reports…) settle nothing here. */
const events: Record<string, AcquirerWord['event']> = { AUTHORISATION: 'authorisation', CAPTURE: 'capture', REFUND: 'refund', CANCELLATION: 'reversal' };

export async function acquirerNotifications(app: FastifyInstance, { config, store }: Deps) {
  const ports = paymentPorts(config, store);
  app.post('/acquirer/adyen/notifications', async (request, reply) => {
    const notification = parseNotification(request.body);
    if (!notification) throw new Problem(400, 'Not a notification', 'The body is not an Adyen notification (notificationItems).');
    const mode = notification.live ? 'live' : 'test';
    let forged = 0;
    let sentAgain = 0;
    for (const item of notification.items) {
      const owner = await signerOf(item);
      if (!owner) {
        forged++;
        continue;
      }
      const word: AcquirerWord = {
        owner,
        reference: item.merchantReference,
        event: events[item.eventCode] ?? 'other',
        success: item.success === 'true',
        acquirerReference: item.pspReference,
        failureCode: failureCodeOfRefusal(item.reason),
        item: { connector: 'adyen', eventCode: item.eventCode, originalReference: item.originalReference },
      };
      const applied = await run(settleByAcquirer, word, { ports, caller: undefined, now: Date.now(), log: request.log });
      if (applied.item === 'sent again') {
        sentAgain++;
        // The same event with the other outcome is not Adyen retrying: an operator should look at it.
        if (applied.differs)
          request.log.warn(
            { reference: item.merchantReference, eventCode: item.eventCode },
            'an acquirer notification came again with another outcome; the first one stands',
          );
      }
    }
    if (forged > 0) request.log.warn({ forged }, 'acquirer notification items without a valid signature were ignored');
    if (sentAgain > 0) request.log.info({ sentAgain }, 'acquirer notification items recorded already changed nothing');
    return reply.type('text/plain').send('[accepted]');

    async function signerOf(item: AdyenNotificationItem) {
      const connections = await findAcquirerConnectionsByAccount(store.read, store.secrets, 'adyen', item.merchantAccountCode, mode);
      const signer = connections.find((connection) => typeof connection.secrets.hmacKey === 'string' && signedWith(item, connection.secrets.hmacKey));
      return signer && { merchantId: signer.merchantId, mode: signer.mode };
    }
  });
}
