/**
 * `POST {base_url}/capture` and `POST {base_url}/reversal` (DESIGN §2): complete a card
 * payment created with `transactionType: "authorise"`. Idempotent with
 * Idempotency-Reference like every POST; the acquirer call itself carries an idempotency
 * key per operation, so a retried request never captures twice.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from './payments.ts';
import { idempotencyReferenceOf, objectBody, sendOutcome } from './payments.ts';
import { planned, runIdempotent } from './idempotency.ts';
import { serializePayment } from '../payments/serialize.ts';
import { paymentPorts } from '../payments/ports.ts';
import { recordCompletion, type AuthorisationOperation } from '../payments/authorisation.ts';
import { captureOperation, prepareCapture, type PreparedCompletion } from '../payments/capture.ts';
import { prepareReversal, reversalOperation } from '../payments/reversal.ts';
import type { Caller } from '../merchants/merchants.ts';
import type { Ports } from '../payments/ports.ts';

type Prepare = (cp: Ports, caller: Caller, body: Record<string, unknown>) => Promise<PreparedCompletion>;

export async function capturesApi(app: FastifyInstance, { config, store }: Deps) {
  const cp = paymentPorts(config, store);
  const route = (path: 'capture' | 'reversal', op: AuthorisationOperation, prepare: Prepare) =>
    app.post(`/${path}`, async (request, reply) => {
      const body = objectBody(request.body);
      const { caller } = request;
      const reference = idempotencyReferenceOf(request);
      const scope = { merchantId: caller.merchantId, mode: caller.mode, route: path };
      const completion = await planned(() => prepare(cp, caller, body));
      const outcome = await runIdempotent(store, scope, reference, body, async (db) => {
        // A replay never gets here; a first request records what the acquirer answered.
        const prepared = completion();
        const row = await recordCompletion(db, op, prepared.reference, prepared.result, prepared.extra);
        return { status: 200, body: serializePayment(row, config.publicUrl) };
      });
      return sendOutcome(reply, outcome);
    });
  route('capture', captureOperation, prepareCapture);
  route('reversal', reversalOperation, prepareReversal);
}
