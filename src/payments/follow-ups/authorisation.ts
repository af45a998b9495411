/**
 * Completing a `transactionType: "authorise"` card payment (docs/api.md#existing-clients), shared by the
 * capture and reversal operations: an authorised payment is `success` with
 * `details.captureStatus: "authorised"`; a capture makes it `captured` (money taken), a
 * reversal `reversed` (hold released; `authorised` again if the acquirer later says it could not
 * release it). Before the acquirer is asked, the one capture or reversal claims it (`capturing`,
 * `reversing`: claims.ts). The status stays `success` — final states never change — and each completion is
 * an event row. A capture is also a transaction of its own (follow-up.ts), named in the
 * authorisation's `details.captureReference`: what the merchant refunds, as with the real API.
 */
import { Problem } from '../../ground/problem.ts';
import type { Db } from '../../store/store.ts';
import type { Mode, TransactionRow } from '../../store/schema.ts';
import { findOwnTransaction, findTransaction, recordTimelineEntry, type StatusChange } from '../../store/transactions.ts';
import { amountNumber, findCurrency } from '../../ground/amount.ts';
import { ensurePaymentPage, findPaymentPage, setPageFields } from '../../store/payment-pages.ts';
import { recordAuthorisationChange, type AuthorisationChangeCause } from '../../store/authorisations.ts';
import { randomBase62 } from '../../lib/tokens.ts';
import type { Status } from '../../ground/states.ts';
import { transition } from '../transition.ts';
import { enqueueWebhook } from '../../events/outbox.ts';

export type CaptureStatus = 'authorised' | 'captured' | 'reversed';
/**
 * An authorisation claimed by the capture or reversal being asked of its acquirer (claims.ts):
 * still `authorised` to the merchant (serialize.ts), as nothing is completed until the answer.
 */
export type ClaimedStatus = 'capturing' | 'reversing';

/** What an authorisation's `details` tell of its completion. */
interface CompletionDetails {
  captureStatus?: CaptureStatus | ClaimedStatus;
  /** The capture's own transaction. */
  captureReference?: string;
  /** A reversal the acquirer never answered, left to an operator (`holdReversalForOperator`). */
  acquirerOutcomeUnknown?: 'reversal';
}

const completionOf = (row: Pick<TransactionRow, 'details'>) => JSON.parse(row.details) as CompletionDetails;
export const captureStatusOf = (row: Pick<TransactionRow, 'details'>) => completionOf(row).captureStatus;
export const captureReferenceOf = (row: Pick<TransactionRow, 'details'>) => completionOf(row).captureReference;

/** The details of an authorisation just made: the acquirer holds its amount until a capture or a reversal. */
export const authorisedDetails = (details: Record<string, unknown>) => JSON.stringify({ ...details, captureStatus: 'authorised' satisfies CaptureStatus });

export interface Authorisation {
  row: TransactionRow;
  /** The acquirer's reference of the authorisation, which the capture or reversal names. */
  acquirerReference: string | null | undefined;
}

/** The caller's transaction and its acquirer reference, if it has one. */
export async function loadAuthorisation(read: Db, caller: { merchantId: string; mode: Mode }, reference: string): Promise<Authorisation | undefined> {
  const row = await findOwnTransaction(read, caller, reference);
  if (!row) return undefined;
  return { row, acquirerReference: (await findPaymentPage(read, reference))?.acquirer_reference };
}

/** The authorisation, or the Problem saying why it cannot be completed. Pure. */
export function authorised(found: Authorisation | undefined, reference: string): Authorisation {
  if (!found) throw new Problem('notFound', `No transaction with reference ${reference}.`);
  const { row } = found;
  // Only methods whose flows take transactionType authorise make one (payments/flows.ts).
  if (row.type !== 'authorise') {
    throw new Problem('validationFailed', {
      errors: [{ field: '/reference', code: 'not_authorisation', message: 'is not a card payment created with transactionType authorise' }],
    });
  }
  if (row.status !== 'success' || !captureStatusOf(row)) {
    throw new Problem('validationFailed', { errors: [{ field: '/reference', code: 'not_authorised', message: `is ${row.status}, not an authorised payment` }] });
  }
  return found;
}

/**
 * A payment's one state change to what its acquirer answered, made outside the card page (the
 * test helper, a late notification), left as card/commit.ts `finish` leaves it: an authorise
 * payment that succeeds is held (`captureStatus: "authorised"`), and the acquirer's reference of
 * a success is kept for its capture, reversal and refunds; what the acquirer told of the payer
 * (`learned`: a bank account's holder and masked IBAN) is added to its details. False when the
 * payment was no longer in `from`.
 */
export async function recordAcquirerOutcome(
  tx: Db,
  change: StatusChange & { from: Status; to: Status },
  acquirerReference?: string,
  learned?: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  const current = (await findTransaction(tx, change.reference))!;
  const held = change.to === 'success' && current.type === 'authorise';
  const details = learned ? { ...(JSON.parse(current.details) as Record<string, unknown>), ...learned } : undefined;
  const set = held
    ? { details: authorisedDetails(details ?? (JSON.parse(current.details) as Record<string, unknown>)) }
    : details
      ? { details: JSON.stringify(details) }
      : undefined;
  const moved = await transition(tx, { ...change, set });
  if (moved && change.to === 'success' && acquirerReference !== undefined) {
    await ensurePaymentPage(tx, change.reference, randomBase62(32), change.at);
    await setPageFields(tx, change.reference, { acquirer_reference: acquirerReference });
  }
  return moved;
}

/**
 * The authorisation, if it can be captured or reversed now (pure): not completed, and not
 * claimed by a capture or reversal being asked of the acquirer — that one is answered first.
 */
export function completable(authorisation: Authorisation): Authorisation {
  const status = captureStatusOf(authorisation.row);
  if (reversalHeldForOperator(authorisation.row)) {
    throw new Problem('conflict', 'The acquirer never answered the reversal of this authorisation: it is held for an operator, who resolves it.');
  }
  if (status === 'capturing' || status === 'reversing') {
    throw new Problem('conflict', {
      detail: `A ${status === 'capturing' ? 'capture' : 'reversal'} of this authorisation is being made; read it again shortly.`,
      headers: { 'Retry-After': '5' },
    });
  }
  if (status !== 'authorised') {
    throw new Problem('validationFailed', { errors: [{ field: '/reference', code: `already_${status}`, message: `the authorisation is already ${status}` }] });
  }
  if (!authorisation.acquirerReference) throw new Problem('internalError', 'The authorisation has no acquirer reference.');
  return authorisation;
}

/**
 * Claims the authorisation for one capture or reversal (docs/acquirers.md "Claims and leases"):
 * the compare-and-set from `authorised` as read to `capturing` or `reversing`, before the
 * acquirer is asked, so that of two requests at once exactly one asks. The other gets what the
 * authorisation is now: 409 while it is claimed, 422 once completed.
 */
export async function claimAuthorisation(tx: Db, authorisation: Authorisation, action: 'capture' | 'reversal', at: number): Promise<void> {
  const { row } = authorisation;
  const details = JSON.parse(row.details) as Record<string, unknown>;
  const claimed: ClaimedStatus = action === 'capture' ? 'capturing' : 'reversing';
  const toDetails = JSON.stringify({ ...details, captureStatus: claimed });
  if (await recordAuthorisationChange(tx, { reference: row.reference, fromDetails: row.details, toDetails, cause: null, at })) return;
  const current = (await findTransaction(tx, row.reference))!;
  completable({ ...authorisation, row: current });
  throw new Problem('conflict', { detail: 'The payment changed at the same time; read it again.', headers: { 'Retry-After': '1' } });
}

/** What a claimed authorisation ends as: completed, with what its details then tell, or `authorised` again (nothing was done). */
export type ClaimEnd = { to: 'captured'; capturedAmount: number; captureReference: string } | { to: 'reversed' } | { to: 'authorised' };

/**
 * Ends the claim on the authorisation (compare-and-set on its details as read here): completed,
 * an event of the timeline, or given back without one. Nothing changes when it is not claimed.
 */
export async function endAuthorisationClaim(tx: Db, reference: string, end: ClaimEnd, at: number): Promise<void> {
  const row = (await findTransaction(tx, reference))!;
  const status = captureStatusOf(row);
  if (status !== 'capturing' && status !== 'reversing') return;
  const { to, ...extra } = end;
  const details = { ...(JSON.parse(row.details) as Record<string, unknown>), captureStatus: to, ...extra };
  const cause = to === 'captured' ? 'capture' : to === 'reversed' ? 'reversal' : null;
  if (!(await recordAuthorisationChange(tx, { reference, fromDetails: row.details, toDetails: JSON.stringify(details), cause, at }))) {
    throw new Problem('conflict', { detail: 'The payment changed at the same time; read it again.', headers: { 'Retry-After': '1' } });
  }
}

/**
 * The acquirer's later word that a reversal it had taken (`received`) was not done: the amount is
 * still held, so the authorisation is `authorised` again (to be captured or reversed anew), and
 * the merchant, told at the reversal that it was `reversed`, gets a webhook to read it again
 * (docs/acquirers.md "Notifications"). Nothing changes when it is no longer `reversed` as read.
 */
export async function recordRefusedReversal(tx: Db, row: TransactionRow, at: number): Promise<void> {
  await moveCaptureStatus(tx, row, JSON.parse(row.details) as Record<string, unknown>, { to: 'authorised', cause: 'reversal_refused_by_acquirer', at });
}

/**
 * An authorisation's capture status moved by the acquirer's later word: its details (as read,
 * less what the caller took out) with the new status, in one compare-and-set against the details
 * read; the change on its timeline and a webhook for the merchant to read it again. False when
 * its details changed meanwhile.
 */
async function moveCaptureStatus(
  tx: Db,
  row: Pick<TransactionRow, 'reference' | 'details' | 'status'>,
  details: Record<string, unknown>,
  change: { to: CaptureStatus | 'reversing'; cause: NonNullable<AuthorisationChangeCause>; at: number; detail?: string },
): Promise<boolean> {
  const applied = await recordAuthorisationChange(tx, {
    reference: row.reference,
    fromDetails: row.details,
    toDetails: JSON.stringify({ ...details, captureStatus: change.to }),
    cause: change.cause,
    at: change.at,
    detail: change.detail,
  });
  if (applied) await enqueueWebhook(tx, { reference: row.reference, to: row.status, at: change.at });
  return applied;
}

/**
 * A capture that the acquirer took and then could not make (its notification: the capture failed,
 * docs/acquirers.md "Notifications"): no money was taken and the amount is still held, so the
 * authorisation is `authorised` again, as after a refused capture, to be captured or reversed
 * anew (the acquirer refuses what it can no longer do); it no longer names the capture. The
 * merchant, told `captured` when the capture was taken, gets a webhook of the authorisation to
 * read it again. Nothing changes when the authorisation no longer shows this capture.
 */
export async function giveCaptureBack(tx: Db, capture: Pick<TransactionRow, 'reference' | 'parent_reference'>, change: { at: number; detail?: string }): Promise<void> {
  const authorisation = (await findTransaction(tx, capture.parent_reference!))!;
  const status = captureStatusOf(authorisation);
  // Still claimed (the capture was never answered): given back as a refused capture is, unseen by the merchant.
  if (status === 'capturing') return endAuthorisationClaim(tx, authorisation.reference, { to: 'authorised' }, change.at);
  if (status !== 'captured' || captureReferenceOf(authorisation) !== capture.reference) return;
  const { captureReference: _reference, capturedAmount: _amount, ...details } = JSON.parse(authorisation.details) as Record<string, unknown>;
  await moveCaptureStatus(tx, authorisation, details, { to: 'authorised', cause: 'acquirer_capture_failed', ...change });
}

/**
 * The acquirer made a capture after all that it had said failed (undone.ts `redoCapture`): the
 * authorisation, `authorised` again since, is `captured` again naming it, with the acquirer's word
 * on its timeline and a webhook. False when it is not `authorised` as read (captured anew,
 * reversed, or a capture or reversal is being asked): then only its timeline says it.
 */
export async function recaptureAuthorisation(
  tx: Db,
  capture: Pick<TransactionRow, 'reference' | 'parent_reference' | 'amount_minor' | 'currency'>,
  change: { cause: 'acquirer_recaptured'; at: number; detail: string },
): Promise<boolean> {
  const authorisation = (await findTransaction(tx, capture.parent_reference!))!;
  if (captureStatusOf(authorisation) === 'authorised') {
    const capturedAmount = amountNumber(capture.amount_minor, findCurrency(capture.currency)!);
    const details = { ...(JSON.parse(authorisation.details) as Record<string, unknown>), capturedAmount, captureReference: capture.reference };
    if (await moveCaptureStatus(tx, authorisation, details, { to: 'captured', ...change })) return true;
  }
  await recordTimelineEntry(tx, { reference: authorisation.reference, status: authorisation.status, cause: change.cause, detail: change.detail, at: change.at });
  return false;
}

/**
 * The acquirer released an authorisation's held amount without a capture (its expiry): it is
 * `reversed`, as after a reversal, with the acquirer's word on the timeline and a webhook. False
 * when it is not `authorised` as read (captured, reversed, or a capture or reversal is being asked).
 */
export async function recordExpiredAuthorisation(tx: Db, row: TransactionRow, change: { at: number; detail?: string }): Promise<boolean> {
  if (captureStatusOf(row) !== 'authorised') return false;
  return moveCaptureStatus(tx, row, JSON.parse(row.details) as Record<string, unknown>, { to: 'reversed', cause: 'acquirer_authorisation_expired', ...change });
}

/** Whether the authorisation's reversal had no answer and is held for an operator (`holdReversalForOperator`). */
export const reversalHeldForOperator = (row: Pick<TransactionRow, 'details'>) => completionOf(row).acquirerOutcomeUnknown === 'reversal';

/**
 * A reversal the acquirer never answered, however often the recovery job asked (claims.ts
 * `leaveClaimToOperator`): whether the amount is still held is unknown, so the authorisation stays
 * claimed (`reversing`, shown `authorised`: no capture or reversal meanwhile) and says so,
 * `details.acquirerOutcomeUnknown: "reversal"`, with `acquirer_outcome_unknown` on its timeline and a
 * webhook for the merchant (docs/acquirers.md "Claims and leases"). Nothing changes when it is no
 * longer `reversing`.
 */
export async function holdReversalForOperator(tx: Db, reference: string, at: number): Promise<void> {
  const row = (await findTransaction(tx, reference))!;
  if (captureStatusOf(row) !== 'reversing') return;
  const details = { ...(JSON.parse(row.details) as Record<string, unknown>), acquirerOutcomeUnknown: 'reversal' };
  await moveCaptureStatus(tx, row, details, { to: 'reversing', cause: 'acquirer_outcome_unknown', at });
}

/**
 * A reversal whose answer no request or recovery job recorded (`reversing`, its claim open or held
 * for an operator), settled by the acquirer's notification or an operator's `resolve`: done →
 * `reversed`, not done → `authorised` again, the hold for an operator lifted, with its cause on
 * the timeline and a webhook. False when it is not `reversing` as read (its details changed).
 */
export async function settleUnansweredReversal(
  tx: Db,
  row: TransactionRow,
  change: { done: boolean; cause: 'reversal' | 'reversal_refused_by_acquirer' | 'operator_resolved'; at: number; detail?: string },
): Promise<boolean> {
  if (captureStatusOf(row) !== 'reversing') return false;
  const { acquirerOutcomeUnknown: _held, ...details } = JSON.parse(row.details) as Record<string, unknown>;
  return moveCaptureStatus(tx, row, details, { to: change.done ? 'reversed' : 'authorised', cause: change.cause, at: change.at, detail: change.detail });
}
