/**
 * Acquirer claims (docs/acquirers.md "Claims and leases"): a capture, a reversal, a refund or the
 * cancel-or-refund of money paid late is asked of the acquirer only under a claim, written before
 * the call in the unit of work that reserves it (the authorisation's compare-and-set from
 * `authorised`, authorisation.ts; the refund's amount, refunds.ts; the late payment recorded,
 * late-payment.ts), so two requests never both ask. The claim keeps what every ask
 * of it carries — one idempotency key naming the action's own reference, one amount — and its
 * lease: until it runs out the request that claimed it answers, after it the recovery job
 * (acquirer-recovery.ts) asks again with the same key. It ends, by the one delete of its row, in
 * the unit that records the acquirer's answer, so of a request and the job exactly one records it.
 */
import { Problem } from '../../ground/problem.ts';
import { amountNumber, findCurrency } from '../../ground/amount.ts';
import type { FailureCode } from '../../ground/states.ts';
import type { ModificationResult } from '../../acquirer/connector.ts';
import type { Db, Dialect } from '../../store/store.ts';
import type { AcquirerClaimRow, TransactionRow } from '../../store/schema.ts';
import { endAcquirerClaim, insertAcquirerClaim } from '../../store/acquirer-claims.ts';
import { findTransaction, ownerOf } from '../../store/transactions.ts';
import { setPageFields } from '../../store/payment-pages.ts';
import { UnfinishedProblem } from '../runner/idempotency.ts';
import { endAuthorisationClaim, giveCaptureBack, holdReversalForOperator, settleUnansweredReversal, type ClaimEnd } from './authorisation.ts';
import { settleRefund } from './refunds.ts';
import { endLatePayment } from './late-payment.ts';
import { transition } from '../transition.ts';
import type { Ports } from '../ports.ts';
import type { Context } from '../runner/operation.ts';
import type { EventCause } from '../../ground/event-causes.ts';

export type ClaimAction = AcquirerClaimRow['action'];

export interface NewClaim {
  action: ClaimAction;
  /** The action's own reference: its capture's or refund's transaction; a reversal's authorisation; the payment paid late. */
  reference: string;
  /** The authorisation captured or reversed, the sale refunded, the payment paid late. */
  paymentReference: string;
  acquirerReference: string;
  amountMinor: number;
  currency: string;
  /**
   * What tells this claim's ask apart from every other ask of the same reference: a reversal's
   * reference is its authorisation's, which may be reversed again after the acquirer said it could
   * not (docs/acquirers.md "Notifications"), and a key used before gets the earlier answer back.
   */
  attempt?: string;
}

/** The acquirer's idempotency key of a claim: its own reference and action, one amount, so a retry never does a second thing. */
export const claimKey = (reference: string, action: ClaimAction) => `${reference}:${action}`;

/** Writes the claim in the reserving unit; its lease is ACQUIRER_RECOVERY_AFTER, longer than any one ask (ACQUIRER_TIMEOUT). */
export async function recordClaim(tx: Db, claim: NewClaim, { now, leaseMs }: { now: number; leaseMs: number }): Promise<AcquirerClaimRow> {
  const row: AcquirerClaimRow = {
    reference: claim.reference,
    action: claim.action,
    payment_reference: claim.paymentReference,
    acquirer_reference: claim.acquirerReference,
    amount_minor: claim.amountMinor,
    currency: claim.currency,
    idempotency_key: claim.attempt === undefined ? claimKey(claim.reference, claim.action) : `${claimKey(claim.reference, claim.action)}-${claim.attempt}`,
    due_at: now + leaseMs,
    created: now,
    asks: 0,
  };
  await insertAcquirerClaim(tx, row);
  return row;
}

/** The claim's one ask of the payment's acquirer: the request's, and the recovery job's again, alike. */
export async function askAcquirer(ports: Ports, claim: AcquirerClaimRow, payment: TransactionRow): Promise<ModificationResult> {
  const acquirer = await ports.acquirers.for(ownerOf(payment));
  const request = { reference: claim.reference, acquirerReference: claim.acquirer_reference, amountMinor: claim.amount_minor, currency: claim.currency };
  return acquirer[claim.action](request, claim.idempotency_key);
}

export type Answered = Exclude<ModificationResult, { outcome: 'unknown' }>;

/**
 * A capture or reversal asked by a request: the acquirer's refusal thrown, so that the runner
 * gives the claim back (`releaseClaim`) and the merchant gets 422.
 */
export function unlessRefused(result: ModificationResult, action: 'capture' | 'reversal'): Exclude<ModificationResult, { outcome: 'refused' }> {
  if (result.outcome === 'refused') throw new Problem('refusedByAcquirer', `The acquirer refused the ${action}: ${result.reason}.`);
  return result;
}

/**
 * A capture or reversal with no answer in time: nothing is recorded, the claim stays until its
 * lease runs out and the recovery job asks again with the same key; a retry with the same
 * Idempotency-Reference gets 409, then the outcome (idempotency.ts).
 */
export const noAnswer = (action: 'capture' | 'reversal') =>
  new UnfinishedProblem('noAcquirerAnswer', {
    detail: `The acquirer did not answer the ${action} in time; Kassa asks it again by itself. Read the payment later, or send the same request with the same Idempotency-Reference.`,
    headers: { 'Retry-After': '5' },
  });

/** What a capture's or reversal's authorisation ends as once the acquirer did it. */
function completed(claim: Pick<AcquirerClaimRow, 'action' | 'reference' | 'amount_minor' | 'currency'>): ClaimEnd {
  if (claim.action === 'reversal') return { to: 'reversed' };
  return { to: 'captured', capturedAmount: amountNumber(claim.amount_minor, findCurrency(claim.currency)!), captureReference: claim.reference };
}

/**
 * Ends the claim as the acquirer answered, in one unit: done → the capture or refund `success`
 * (the refund counted in its sale's `refundedAmount`), the authorisation `captured` or `reversed`;
 * taken (`received`) → the capture or refund stays `pending` for the acquirer's notification, its
 * authorisation completed from now on; refused → `failed`, the authorisation `authorised` again.
 * False when the claim had ended already (the other of a request and the recovery job recorded it).
 */
export async function endClaim(tx: Db, dialect: Dialect, claim: AcquirerClaimRow, result: Answered, at: number): Promise<boolean> {
  if (!(await endAcquirerClaim(tx, claim.reference))) return false;
  // Money paid late: `received` waits for the acquirer's CANCEL_OR_REFUND (settle-by-acquirer.ts).
  if (claim.action === 'cancelOrRefund') {
    if (result.outcome !== 'received')
      await endLatePayment(tx, claim.reference, result.outcome === 'done' ? 'returned' : 'not_returned', { at, detail: refusalReasonOf(result) });
    return true;
  }
  // The reversal taken is the one whose refusal may still come: the refusal names it (docs/acquirers.md "Notifications").
  if (claim.action === 'reversal' && result.outcome !== 'refused') await recordReversalTaken(tx, claim.payment_reference, result.acquirerReference);
  if (result.outcome === 'received') {
    if (claim.action !== 'refund') await endAuthorisationClaim(tx, claim.payment_reference, completed(claim), at);
    return true;
  }
  const done = result.outcome === 'done';
  if (claim.action === 'reversal') await endAuthorisationClaim(tx, claim.payment_reference, done ? completed(claim) : { to: 'authorised' }, at);
  else {
    const row = (await findTransaction(tx, claim.reference))!;
    const cause = !done ? 'acquirer_refused' : claim.action === 'refund' ? 'acquirer_refunded' : 'acquirer_captured';
    await settleFollowUp(tx, dialect, row, { from: 'pending', to: done ? 'success' : 'failed', cause, at });
  }
  return true;
}

/** The acquirer's reason for refusing, as a timeline entry keeps it. */
const refusalReasonOf = (result: Answered) => (result.outcome === 'refused' ? result.reason.slice(0, 500) : undefined);

/** Acting failed before an answer (the acquirer refused, or could not be asked): the claim ends as refused. */
export const releaseClaim = (tx: Db, dialect: Dialect, claim: AcquirerClaimRow, at: number) =>
  endClaim(tx, dialect, claim, { outcome: 'refused', reason: 'not done' }, at).then(() => undefined);

/**
 * A capture's or refund's one state change with what its parent shows, in one unit: a refund's
 * sale its `refundedAmount` (refunds.ts), a capture's authorisation `captured`, or `authorised`
 * again when it failed (authorisation.ts `giveCaptureBack`, also after the acquirer had taken it). The acquirer's answer, the recovery job and an operator's `resolve` alike.
 */
export async function settleFollowUp(
  tx: Db,
  dialect: Dialect,
  row: TransactionRow,
  outcome: { from: 'pending' | 'manualintervention'; to: 'success' | 'failed'; failureCode?: FailureCode | null; cause: EventCause; at: number },
): Promise<TransactionRow> {
  if (row.type === 'credit') return (await settleRefund(tx, dialect, row, outcome)).row;
  const failureCode = outcome.to === 'failed' ? (outcome.failureCode ?? 'rejected') : null;
  if (await transition(tx, { reference: row.reference, from: outcome.from, to: outcome.to, failureCode, cause: outcome.cause, at: outcome.at })) {
    if (outcome.to === 'success') {
      const end = completed({ action: 'capture', reference: row.reference, amount_minor: row.amount_minor, currency: row.currency });
      await endAuthorisationClaim(tx, row.parent_reference!, end, outcome.at);
    } else {
      // Claimed still, or `captured` since the acquirer took it (`received`): either way no money was taken.
      await giveCaptureBack(tx, row, { at: outcome.at });
    }
  }
  return (await findTransaction(tx, row.reference))!;
}

/**
 * How many times the recovery job asks a reversal or a late payment's cancel-or-refund again, with
 * its same key, before it is left to an operator (docs/acquirers.md "Claims and leases"). A capture or
 * refund is left after its first ask: its own transaction shows the merchant at once that its
 * outcome is unknown. A reversal or money paid late has none,
 * and asking it again is harmless (the acquirer answers the first call's result), so it is asked a
 * few more times, every ACQUIRER_RECOVERY_INTERVAL (by default two minutes in all), to ride out a
 * short outage of the acquirer before a person is needed.
 */
export const RECOVERY_ASKS = 5;

/**
 * The recovery job asked again and still has no answer: a capture or refund is left to an
 * operator (`manualintervention`, merchant webhook; its refund amount stays reserved, its
 * authorisation claimed, until `resolve`), its claim ended. A reversal or a late payment's
 * cancel-or-refund, which have no transaction of their own to hold, keep their claim, asked again
 * every interval with the same key, until it was asked `RECOVERY_ASKS` times; then its claim ends
 * and a reversal's authorisation, still claimed, is held for an operator (authorisation.ts
 * `holdReversalForOperator`), money paid late is `not_returned` for an operator (late-payment.ts).
 */
export async function leaveClaimToOperator(tx: Db, claim: AcquirerClaimRow, at: number): Promise<void> {
  if (!ownsTransaction(claim) && claim.asks < RECOVERY_ASKS) return;
  if (!(await endAcquirerClaim(tx, claim.reference))) return;
  if (claim.action === 'reversal') await holdReversalForOperator(tx, claim.payment_reference, at);
  else if (claim.action === 'cancelOrRefund')
    await endLatePayment(tx, claim.reference, 'not_returned', { at, detail: 'The acquirer never answered; an operator must give the money back.' });
  else await transition(tx, { reference: claim.reference, from: 'pending', to: 'manualintervention', cause: 'acquirer_outcome_unknown', at });
}

/** Whether the claim's reference is a transaction of its own (a capture, a refund) rather than the payment it acts on. */
export const ownsTransaction = (claim: Pick<AcquirerClaimRow, 'action'>) => claim.action === 'capture' || claim.action === 'refund';

/**
 * A reversal whose answer no request or recovery job recorded, settled by the acquirer's
 * notification or an operator (authorisation.ts `settleUnansweredReversal`), as a capture's or
 * refund's notification settles it: its claim, if still open, ends here, so a request or the
 * recovery job that gets the acquirer's answer later records nothing. False when the
 * authorisation is no longer `reversing` as read.
 */
export async function settleReversalClaim(
  tx: Db,
  row: TransactionRow,
  change: Parameters<typeof settleUnansweredReversal>[2] & { acquirerReference?: string },
): Promise<boolean> {
  await endAcquirerClaim(tx, row.reference);
  if (change.acquirerReference !== undefined) await recordReversalTaken(tx, row.reference, change.acquirerReference);
  return settleUnansweredReversal(tx, row, change);
}

/** The acquirer's reference of the reversal it answered last, kept on the authorisation's page: the one a refusal must name to re-open it. */
const recordReversalTaken = (tx: Db, reference: string, acquirerReference: string) => setPageFields(tx, reference, { reversal_acquirer_reference: acquirerReference });

/**
 * The capture or refund was settled meanwhile by the acquirer's notification (final already):
 * its claim ends as that outcome, with nothing asked.
 */
export async function endSettledClaim(tx: Db, claim: AcquirerClaimRow, row: TransactionRow, at: number): Promise<void> {
  if (!(await endAcquirerClaim(tx, claim.reference)) || claim.action !== 'capture') return;
  await endAuthorisationClaim(tx, claim.payment_reference, row.status === 'success' ? completed(claim) : { to: 'authorised' }, at);
}

/** A capture's or reversal's plan once reserved: the authorisation it claimed, and the claim. */
interface ClaimedPlan {
  authorisation: { row: TransactionRow };
  claim?: AcquirerClaimRow;
}

/**
 * The stages of every operation that acts under a claim (operation.ts): a held
 * Idempotency-Reference names the claim's transaction; acting that fails gives the claim back.
 */
export const underClaim = <Plan extends { claim?: AcquirerClaimRow }>() => ({
  claimed: (plan: Plan) => plan.claim!.reference,
  release: (tx: Db, plan: Plan, { ports, now }: Context) => releaseClaim(tx, ports.store.dialect, plan.claim!, now),
});

/**
 * The stages a capture and a reversal share after their reservation: those under a claim; the
 * acquirer asked, a refusal thrown to give the claim back; the claim ended as answered, or with
 * no answer left to the recovery job.
 */
export const claimedStages = <Plan extends ClaimedPlan>(action: 'capture' | 'reversal') => ({
  ...underClaim<Plan>(),
  act: async ({ authorisation, claim }: Plan, { ports }: Context) => ({
    claim: claim!,
    result: unlessRefused(await askAcquirer(ports, claim!, authorisation.row), action),
  }),
  commit: async (tx: Db, { claim, result }: { claim: AcquirerClaimRow; result: Exclude<ModificationResult, { outcome: 'refused' }> }, { ports, now }: Context) => {
    if (result.outcome === 'unknown') throw noAnswer(action);
    await endClaim(tx, ports.store.dialect, claim, result, now);
    return (await findTransaction(tx, claim.reference))!;
  },
});
