/** Merchant API route for vault enrollment: `POST {base_url}/token` (spec §4.2, DESIGN §2). */
import type { FastifyInstance } from 'fastify';
import { planEnrollment } from '../vault/enroll.ts';
import { storePendingTransaction } from '../payments/pending-transaction.ts';
import { serializePayment } from '../payments/serialize.ts';
import { paymentPorts } from '../payments/ports.ts';
import type { TransactionRow } from '../store/schema.ts';
import { planned, runIdempotent } from './idempotency.ts';
import { idempotencyReferenceOf, objectBody, sendOutcome, type Deps } from './payments.ts';

export async function vaultApi(app: FastifyInstance, { config, store }: Deps) {
  const { vault } = paymentPorts(config, store);
  app.post('/token', async (request, reply) => {
    const body = objectBody(request.body);
    const { caller } = request;
    const enrollment = await planned(() => {
      // No enrollment that could never store its card (no vault key): 503 up front.
      vault.keys();
      const row = planEnrollment(body, { caller, now: Date.now(), expiryMs: config.paymentExpiryMs });
      return { row, body: serializePayment(row as TransactionRow, config.publicUrl) };
    });
    const outcome = await runIdempotent(
      store,
      { merchantId: caller.merchantId, mode: caller.mode, route: 'token' },
      idempotencyReferenceOf(request),
      body,
      async (db) => {
        const { row, body: answer } = enrollment();
        await storePendingTransaction(db, row);
        return { status: 200, body: answer };
      },
    );
    return sendOutcome(reply, outcome);
  });
}
