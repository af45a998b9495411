/**
 * Completing a `transactionType: "authorise"` card payment (DESIGN §2), shared by the
 * capture and reversal operations: an authorised payment is `success` with
 * `details.captureStatus: "authorised"`; a capture makes it `captured` (money taken), a
 * reversal `reversed` (hold released). The status stays `success` — final states never
 * change — and each completion is an event row.
 */
import { Problem } from '../ground/problem.ts';
import type { Db } from '../store/store.ts';
import type { Mode, TransactionRow } from '../store/schema.ts';
import { findOwnTransaction, findTransaction } from '../store/transactions.ts';
import { findPaymentPage } from '../store/payment-pages.ts';
import { recordAuthorisationChange } from '../store/authorisations.ts';
import type { FollowUpResult } from '../acquirer/connector.ts';

export type CaptureStatus = 'authorised' | 'captured' | 'reversed';

export const captureStatusOf = (row: TransactionRow) => (JSON.parse(row.details) as { captureStatus?: CaptureStatus }).captureStatus;

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
