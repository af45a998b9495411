/**
 * The test helper's completion, like Stripe's (README "Test mode: the amount decides"): `POST {base_url}/test/complete`
 * `{reference, outcome: "success"|"failed", failureCode?}` completes a pending test-mode
 * payment without a browser, through the same `transition()` (and so the same webhook) as
 * a real outcome. A `success` authorisation is left as the card page leaves one: held at
 * the simulated acquirer, ready to be captured or reversed (authorisation.ts). A payment
 * that is not pending any more is 409 Conflict: the request is well formed but clashes with
 * the payment's current state (a final state never changes) — except `success` on a payment
 * Kassa ended (`failed`), which plays the bank's late word: the simulated acquirer authorises it
 * after all and tells Kassa as an acquirer's notification does (settle-by-acquirer.ts), so Kassa
 * gives the money back as it would live (late-payment.ts; docs/payment-methods.md "Test mode").
 * Only a payment the simulator takes: one of a merchant whose test mode is connected to an
 * acquirer is that acquirer's to decide (409). Test mode only: the route answers a
 * live key as if it did not exist; the console acts with the payment's own mode, so `decide`
 * refuses a live payment too, as not found (docs/console.md "Actions").
 */
import { Problem } from '../../ground/problem.ts';
import { failureCodes, type FailureCode } from '../../ground/states.ts';
import { findOwnTransaction, findTransaction, ownerOf } from '../../store/transactions.ts';
import type { TransactionRow } from '../../store/schema.ts';
import type { AcquirerWord } from '../../acquirer/notifications.ts';
import { latePaymentStatusOf, payableLate } from '../follow-ups/late-payment.ts';
import { settleByAcquirer } from './settle-by-acquirer.ts';
import { run } from '../runner/run.ts';
import { recordAcquirerOutcome } from '../follow-ups/authorisation.ts';
import { serializePayment } from '../serialize.ts';
import { settleRefund } from '../follow-ups/refunds.ts';
import { compileTable } from '../requests/rows.ts';
import { parseFields, referenceField } from '../requests/fields.ts';
import { merchantOperation } from '../runner/operation.ts';

const outcomes = ['success', 'failed'] as const;
/** When a failed outcome names no failureCode: the plain "payment not authorised" of docs/api.md#states. */
const DEFAULT_FAILURE_CODE: FailureCode = 'rejected';

interface Completion {
  reference: string;
  outcome: (typeof outcomes)[number];
  failureCode: FailureCode | null;
}

/** `failureCode` only with a failed outcome: the one rule between fields, checked after the table. */
export const completionTable = compileTable({
  reference: referenceField,
  outcome: { required: true, enum: outcomes },
  failureCode: { enum: failureCodes, schema: { description: `Only with outcome failed; default ${DEFAULT_FAILURE_CODE}.` } },
});

export function parseCompletion(body: Record<string, unknown>): Completion {
  const values = parseFields(completionTable, body);
  const outcome = values.outcome as Completion['outcome'];
  const failureCode = values.failureCode as FailureCode | undefined;
  if (failureCode !== undefined && outcome === 'success') {
    throw new Problem('validationFailed', { errors: [{ field: '/failureCode', code: 'not_allowed', message: 'is only allowed with outcome failed' }] });
  }
  return { reference: values.reference as string, outcome, failureCode: outcome === 'failed' ? (failureCode ?? DEFAULT_FAILURE_CODE) : null };
}

const notPending = (reference: string, status: string) =>
  new Problem(
    'conflict',
    `Transaction ${reference} is ${status}, not pending; only a pending payment can be completed${status === 'failed' ? ' (or, with outcome success, a payment Kassa ended that was not paid late yet: its late payment)' : ''}.`,
  );

/** The simulated acquirer's AUTHORISATION of a payment Kassa ended, as an acquirer's verified notification says it. */
const lateAuthorisation = (row: TransactionRow, acquirerReference: string): AcquirerWord => ({
  owner: ownerOf(row),
  reference: row.reference,
  event: 'authorisation',
  success: true,
  acquirerReference,
  failureCode: 'rejected',
  item: { connector: 'simulator', eventCode: 'AUTHORISATION', originalReference: undefined },
  amount: { minor: row.amount_minor, currency: row.currency, asSent: row.amount_minor },
  reason: 'the test helper played a late payment',
});

export const completeTestPayment = merchantOperation({
  name: 'completeTestPayment',
  scope: 'test/complete',
  parse: parseCompletion,
  load: async (completion, { ports, caller }) => ({
    row: await findOwnTransaction(ports.store.read, caller, completion.reference),
    simulated: caller.mode === 'test' && (await ports.acquirers.simulated(caller)),
  }),
  decide: ({ row, simulated }, completion, { caller }) => {
    if (!row) throw new Problem('notFound', `No transaction with reference ${completion.reference}.`);
    if (caller.mode !== 'test') throw new Problem('notFound', `Transaction ${row.reference} is live; only a test-mode payment can be completed by the test helper.`);
    if (row.type === 'chargeback') throw new Problem('conflict', `Transaction ${row.reference} is a dispute; its stages are moved by POST /test/dispute.`);
    if (!simulated) {
      throw new Problem(
        'conflict',
        `Transaction ${row.reference} goes to the acquirer this merchant's test mode is connected to, which decides its outcome; the test helper completes only payments of the simulated acquirer.`,
      );
    }
    const late = row.status === 'failed' && completion.outcome === 'success' && payableLate(row) && latePaymentStatusOf(row) === undefined;
    if (row.status !== 'pending' && !late) throw notPending(row.reference, row.status);
    return { row, completion, late };
  },
  act: async ({ row, completion, late }, ctx) => {
    const { simulator } = ctx.ports.acquirers;
    // The bank's late word: the simulated acquirer held the money, and tells Kassa so.
    if (late) await run(settleByAcquirer, lateAuthorisation(row, simulator.hold(row.amount_minor)), { ...ctx, caller: undefined });
    const authorises = row.type === 'authorise' && completion.outcome === 'success' && !late;
    return { row, completion, late, acquirerReference: authorises ? simulator.hold(row.amount_minor) : undefined };
  },
  commit: async (tx, { row, completion, late, acquirerReference }, { ports, now }) => {
    const { reference, outcome, failureCode } = completion;
    if (late) return (await findTransaction(tx, reference))!;
    // A refund's outcome also changes what its sale shows as refunded.
    if (row.type === 'credit') {
      const settled = await settleRefund(tx, ports.store.dialect, row, { to: outcome, failureCode, cause: 'test_helper', at: now });
      if (!settled.moved) throw notPending(reference, settled.row.status);
      return settled.row;
    }
    if (!(await recordAcquirerOutcome(tx, { reference, from: 'pending', to: outcome, failureCode, cause: 'test_helper', at: now }, acquirerReference))) {
      throw notPending(reference, (await findTransaction(tx, reference))!.status);
    }
    return (await findTransaction(tx, reference))!;
  },
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
