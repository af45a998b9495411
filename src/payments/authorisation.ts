/**
 * Completing a `transactionType: "authorise"` card payment (DESIGN §2), shared by the
 * capture and reversal operations: an authorised payment is `success` with
 * `details.captureStatus: "authorised"`; a capture makes it `captured` (money taken), a
 * reversal `reversed` (hold released; `authorised` again if the acquirer later says it could not
 * release it). The status stays `success` — final states never change — and each completion is
 * an event row. A capture is also a transaction of its own (follow-up.ts), named in the
 * authorisation's `details.captureReference`: what the merchant refunds, as with the real API.
 */
import { Problem } from '../ground/problem.ts';
import type { Db } from '../store/store.ts';
import type { Mode, TransactionRow } from '../store/schema.ts';
import { findOwnTransaction, findTransaction, insertTransaction, type StatusChange } from '../store/transactions.ts';
import { ensurePaymentPage, findPaymentPage, setPageFields } from '../store/payment-pages.ts';
import { recordAuthorisationChange } from '../store/authorisations.ts';
import type { FollowUpResult } from '../acquirer/connector.ts';
import { amountNumber, findCurrency } from '../ground/amount.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { randomBase62 } from '../lib/tokens.ts';
import type { Status } from '../ground/states.ts';
import { followUpRow } from './follow-up.ts';
import { transition } from './transition.ts';
import { enqueueWebhook } from '../events/outbox.ts';

export type CaptureStatus = 'authorised' | 'captured' | 'reversed';

/** What an authorisation's `details` tell of its completion. */
interface CompletionDetails {
  captureStatus?: CaptureStatus;
  /** The capture's own transaction. */
  captureReference?: string;
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
  if (!found) throw Problem.notFound(`No transaction with reference ${reference}.`);
  const { row } = found;
  if (row.type !== 'authorise' || row.method !== 'card') {
    throw Problem.validation([{ field: '/reference', code: 'not_authorisation', message: 'is not a card payment created with transactionType authorise' }]);
  }
  if (row.status !== 'success' || !captureStatusOf(row)) {
    throw Problem.validation([{ field: '/reference', code: 'not_authorised', message: `is ${row.status}, not an authorised payment` }]);
  }
  return found;
}

/**
 * A payment's one state change to what its acquirer answered, made outside the card page (the
 * test helper, a late notification), left as card-payment.ts `finish` leaves it: an authorise
 * payment that succeeds is held (`captureStatus: "authorised"`), and the acquirer's reference of
 * a success is kept for its capture, reversal and refunds. False when the payment was no longer in `from`.
 */
export async function recordAcquirerOutcome(tx: Db, change: StatusChange & { from: Status; to: Status }, acquirerReference?: string): Promise<boolean> {
  const current = (await findTransaction(tx, change.reference))!;
  const held = change.to === 'success' && current.type === 'authorise';
  const moved = await transition(tx, { ...change, set: held ? { details: authorisedDetails(JSON.parse(current.details) as Record<string, unknown>) } : undefined });
  if (moved && change.to === 'success' && acquirerReference !== undefined) {
    await ensurePaymentPage(tx, change.reference, randomBase62(32), change.at);
    await setPageFields(tx, change.reference, { acquirer_reference: acquirerReference });
  }
  return moved;
}

/** Whether the acquirer is still to be asked: a replay finds the authorisation completed and skips the call. */
export function stillAuthorised(authorisation: Authorisation): boolean {
  if (captureStatusOf(authorisation.row) !== 'authorised') return false;
  if (!authorisation.acquirerReference) throw new Problem(500, 'Internal error', 'The authorisation has no acquirer reference.');
  return true;
}

export interface Completion {
  reference: string;
  kind: 'capture' | 'reversal';
  /** What the payment becomes. */
  to: Exclude<CaptureStatus, 'authorised'>;
  /** The acquirer's answer; undefined when it was not asked (completed already). */
  result: FollowUpResult | undefined;
  /** Merged into details when recorded. */
  extra: Record<string, unknown>;
}

/** Records the completion (compare-and-set on the details read); throws the Problem a merchant should see when it cannot. */
export async function recordCompletion(tx: Db, completion: Completion, at: number): Promise<TransactionRow> {
  const { reference, result } = completion;
  const row = (await findTransaction(tx, reference))!;
  const status = captureStatusOf(row);
  if (status !== 'authorised' || !result) {
    throw Problem.validation([{ field: '/reference', code: `already_${status}`, message: `the authorisation is already ${status}` }]);
  }
  if (result.outcome === 'refused') throw new Problem(422, 'Refused by the acquirer', `The acquirer refused the ${completion.kind}: ${result.reason}.`);
  if (result.outcome === 'unknown') {
    // Nothing recorded: the same request again carries the same key to the acquirer, which never does it twice.
    throw new Problem(503, 'No answer from the acquirer', `The acquirer did not answer the ${completion.kind} in time; send the same request again.`, undefined, {
      'Retry-After': '5',
    });
  }
  const details = JSON.parse(row.details) as Record<string, unknown>;
  const applied = await recordAuthorisationChange(tx, {
    reference,
    fromDetails: row.details,
    toDetails: JSON.stringify({ ...details, captureStatus: completion.to, ...completion.extra }),
    cause: completion.kind,
    at,
  });
  if (!applied) throw Problem.conflict('The payment changed at the same time; read it again.', { 'Retry-After': '1' });
  return (await findTransaction(tx, reference))!;
}

/**
 * The acquirer's later word that a reversal it had taken (`received`) was not done: the amount is
 * still held, so the authorisation is `authorised` again (to be captured or reversed anew), and
 * the merchant, told at the reversal that it was `reversed`, gets a webhook to read it again
 * (docs/acquirers.md "Notifications"). Nothing changes when it is no longer `reversed` as read.
 */
export async function recordRefusedReversal(tx: Db, row: TransactionRow, at: number): Promise<void> {
  const details = JSON.parse(row.details) as Record<string, unknown>;
  const applied = await recordAuthorisationChange(tx, {
    reference: row.reference,
    fromDetails: row.details,
    toDetails: JSON.stringify({ ...details, captureStatus: 'authorised' satisfies CaptureStatus }),
    cause: 'reversal_refused_by_acquirer',
    at,
  });
  if (applied) await enqueueWebhook(tx, { reference: row.reference, to: row.status, at });
}

export interface CaptureOutcome {
  /** The capture's own reference, as the acquirer was told it. */
  reference: string;
  authorisation: TransactionRow;
  amountMinor: number;
  orderLines?: unknown[];
  /** The acquirer's answer; undefined when it was not asked (captured already). */
  result: FollowUpResult | undefined;
}

/**
 * Records a capture in one unit of work: the authorisation completed as `captured` (what it
 * was captured for, and by which transaction), and the capture's own transaction: `success`
 * as the acquirer answered, announced by webhook as any final state is, or `pending` until
 * the acquirer's notification when it only took the capture.
 */
export async function recordCapture(tx: Db, capture: CaptureOutcome, at: { secrets: SecretBox; now: number }): Promise<TransactionRow> {
  const { authorisation, amountMinor, result } = capture;
  const row = followUpRow(authorisation, { reference: capture.reference, type: 'sale', amountMinor, orderLines: capture.orderLines }, at);
  const capturedAmount = amountNumber(amountMinor, findCurrency(authorisation.currency)!);
  await recordCompletion(
    tx,
    { reference: authorisation.reference, kind: 'capture', to: 'captured', result, extra: { capturedAmount, captureReference: row.reference } },
    at.now,
  );
  await insertTransaction(tx, row, 'created');
  // An acquirer that only took the capture (`received`) says later whether it was done (acquirer-notification.ts).
  if (result?.outcome === 'done') await transition(tx, { reference: row.reference, from: 'pending', to: 'success', cause: 'acquirer_captured', at: at.now });
  return (await findTransaction(tx, row.reference))!;
}
