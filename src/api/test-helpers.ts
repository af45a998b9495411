/**
 * Test helpers (issue 4 §6), like Stripe's: `POST {base_url}/test/complete`
 * `{reference, outcome: "success"|"failed", failureCode?}` completes a pending
 * test-mode payment without a browser, through the same `transition()` (and so the
 * same webhook) as a real outcome. With a live key the route does not exist (404).
 * A payment that is not pending any more is 409 Conflict: the request is well formed
 * but clashes with the payment's current state (a final state never changes).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem, type FieldError } from '../ground/problem.ts';
import { findOwnTransaction, findTransaction } from '../store/transactions.ts';
import { transition } from '../payments/transition.ts';
import { failureCodes, type FailureCode } from '../ground/states.ts';
import { serializePayment } from '../payments/serialize.ts';
import { runIdempotent } from './idempotency.ts';
import { objectBody, sendOutcome, type Deps } from './payments.ts';

const outcomes = ['success', 'failed'] as const;
/** When a failed outcome names no failureCode: the plain "payment not authorised" of spec §3. */
const DEFAULT_FAILURE_CODE: FailureCode = 'rejected';

interface Completion {
  reference: string;
  outcome: (typeof outcomes)[number];
  failureCode: FailureCode | null;
}

export function parseCompletion(body: Record<string, unknown>): Completion {
  const errors: FieldError[] = [];
  const { reference, outcome, failureCode } = body;
  if (reference === undefined || reference === '') errors.push({ field: '/reference', code: 'required', message: 'is required' });
  else if (typeof reference !== 'string' || reference.length > 64) errors.push({ field: '/reference', code: 'type', message: 'must be a transaction reference' });
  if (outcome === undefined || outcome === '') errors.push({ field: '/outcome', code: 'required', message: 'is required' });
  else if (!outcomes.includes(outcome as never)) errors.push({ field: '/outcome', code: 'enum', message: `must be one of ${outcomes.join(', ')}` });
  const hasFailureCode = failureCode !== undefined && failureCode !== '';
  if (hasFailureCode && !failureCodes.includes(failureCode as never)) {
    errors.push({ field: '/failureCode', code: 'enum', message: `must be one of ${failureCodes.join(', ')}` });
  } else if (hasFailureCode && outcome === 'success') {
    errors.push({ field: '/failureCode', code: 'not_allowed', message: 'is only allowed with outcome failed' });
  }
  if (errors.length > 0) throw Problem.validation(errors);
  return {
    reference: reference as string,
    outcome: outcome as Completion['outcome'],
    failureCode: outcome === 'failed' ? ((hasFailureCode ? failureCode : DEFAULT_FAILURE_CODE) as FailureCode) : null,
  };
}

const idempotencyReferenceOf = (request: FastifyRequest) => {
  const value = request.headers['idempotency-reference'];
  return Array.isArray(value) ? value[0] : value;
};

/** Registered inside the authenticated scope (server.ts). */
export async function testHelpersApi(app: FastifyInstance, { config, store }: Deps) {
  app.post('/test/complete', async (request, reply) => {
    const { caller } = request;
    // Live keys see the same answer as for any route that does not exist.
    if (caller.mode !== 'test') throw Problem.notFound(`There is nothing at POST ${request.url.split('?')[0]}.`);
    const body = objectBody(request.body);
    const outcome = await runIdempotent(
      store,
      { merchantId: caller.merchantId, mode: caller.mode, route: 'test/complete' },
      idempotencyReferenceOf(request),
      body,
      async (db) => {
        const completion = parseCompletion(body);
        const row = await findOwnTransaction(db, caller, completion.reference);
        if (!row) throw Problem.notFound(`No transaction with reference ${completion.reference}.`);
        const changed =
          row.status === 'pending' &&
          (await transition(db, {
            reference: row.reference,
            from: 'pending',
            to: completion.outcome,
            failureCode: completion.failureCode,
            cause: 'test_helper',
            at: Date.now(),
          }));
        if (!changed) throw Problem.conflict(`Transaction ${row.reference} is ${row.status}, not pending; only a pending payment can be completed.`);
        return { status: 200, body: serializePayment((await findTransaction(db, row.reference))!, config.publicUrl) };
      },
    );
    return sendOutcome(reply, outcome);
  });
}
