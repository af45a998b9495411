/**
 * The merchant API's routes (docs/api.md#endpoints): one line per operation (payments/operations/), and
 * the reads of docs/api.md#read-a-transaction and the payment methods.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../ground/problem.ts';
import { methods } from '../ground/payment-method.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { PaymentReader } from '../payments/read.ts';
import { serializePayment } from '../payments/serialize.ts';
import { createPayment } from '../payments/operations/create-payment.ts';
import { capture } from '../payments/operations/capture.ts';
import { reversal } from '../payments/operations/reversal.ts';
import { refund } from '../payments/operations/refund.ts';
import { enrol } from '../payments/operations/enrol.ts';
import { completeTestPayment } from '../payments/operations/complete-test-payment.ts';
import { raiseTestDispute } from '../payments/operations/raise-test-dispute.ts';
import { acceptDispute } from '../payments/operations/accept-dispute.ts';
import { defendDispute } from '../payments/operations/defend-dispute.ts';
import { cancel } from '../payments/operations/cancel.ts';
import { run } from '../payments/runner/run.ts';
import { identifierShaped } from '../lib/tokens.ts';
import type { Authenticator } from './auth.ts';
import { handle } from './handle.ts';
import { MAX_REFERENCES, TransactionQuery } from '../contract/queries.ts';

export interface Deps {
  config: Config;
  store: Store;
  auth: Authenticator;
}

/** The test helpers exist for test keys only: a live key sees the same answer as for any route that does not exist. */
async function testModeOnly(request: FastifyRequest) {
  if (request.caller.mode !== 'test') throw new Problem('notFound', `There is nothing at POST ${request.url.split('?')[0]}.`);
}

/** Routes of the merchant API that need its key; registered inside the authenticated scope (server.ts). */
export async function paymentsApi(app: FastifyInstance, { store }: Deps) {
  const { ports } = app;
  const payments = new PaymentReader(store, ports.links);
  app.post('/payment', handle(createPayment, ports));
  app.post('/token', handle(enrol, ports));
  app.post('/capture', handle(capture, ports));
  app.post('/reversal', handle(reversal, ports));
  app.post('/refund', handle(refund, ports));
  app.post('/dispute/accept', handle(acceptDispute, ports));
  app.post('/dispute/defend', handle(defendDispute, ports));
  app.post('/test/complete', { preHandler: testModeOnly }, handle(completeTestPayment, ports));
  app.post('/test/dispute', { preHandler: testModeOnly }, handle(raiseTestDispute, ports));

  app.get<{ Querystring: TransactionQuery }>('/transaction', { schema: { querystring: TransactionQuery } }, async (request, reply) => {
    const { reference, references } = request.query;
    if ((reference === undefined) === (references === undefined)) {
      throw new Problem('validationFailed', { errors: [{ field: '/reference', code: 'required', message: 'give either reference or references (comma-separated)' }] });
    }
    if (reference !== undefined) {
      const json = identifierShaped(reference) ? await payments.json(request.caller, reference) : undefined;
      if (json === undefined) throw new Problem('notFound', `No transaction with reference ${reference}.`);
      return reply.type('application/json; charset=utf-8').send(json);
    }
    const wanted = [
      ...new Set(
        references!
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean),
      ),
    ];
    if (wanted.length === 0 || wanted.length > MAX_REFERENCES) {
      throw new Problem('validationFailed', { errors: [{ field: '/references', code: 'max_items', message: `must list 1 to ${MAX_REFERENCES} references` }] });
    }
    // Unknown references are left out, in the order asked, as for a single unknown one nothing is revealed.
    return payments.list(request.caller, wanted.filter(identifierShaped));
  });

  // What the merchant enabled, less what its acquirer of the key's mode does not take (docs/api.md#payment-methods); with no acquirer, as enabled (its payments then answer 503).
  app.get('/method', async (request) => {
    const { settings } = request.caller;
    const acquirer = await ports.acquirers.find(request.caller);
    return settings.methods
      .filter((method) => !acquirer || methods[method].instrument === 'none' || acquirer.serves.methods.includes(method))
      .map((method) => (methods[method].listing === 'card-brands' ? { method, options: settings.cardBrands.map((brand) => ({ brand })) } : { method }));
  });
}

/** `POST <cancelUrl>`: the capability token authorises; a Basic key, when sent, must be the payment's merchant. */
export async function cancelApi(app: FastifyInstance, { auth }: Deps) {
  const { ports } = app;
  app.post<{ Params: { token: string } }>('/cancel/:token', async (request) => {
    request.apiKey = (await auth.authenticate(request, false)) ?? null;
    const caller = request.apiKey?.caller;
    const row = await run(cancel, { pageToken: request.params.token }, { ports, caller, now: Date.now(), log: request.log });
    return serializePayment(row, ports.links);
  });
}
