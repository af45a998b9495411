/**
 * The shared stages of completing a `transactionType: "authorise"` card payment (DESIGN
 * §2): an authorised payment is `success` with `details.captureStatus: "authorised"`;
 * a capture makes it `captured` (money taken), a reversal `reversed` (hold released).
 * The status stays `success` — final states never change — and each completion is an
 * event row. Stages: check (read) → acquirer call with a per-operation idempotency key
 * (outside any unit of work) → record (compare-and-set, inside the caller's idempotent unit).
 */
import { Problem } from '../ground/problem.ts';
import type { Db } from '../store/store.ts';
import type { TransactionRow } from '../store/schema.ts';
import type { Caller } from '../merchants/merchants.ts';
import { findOwnTransaction, findTransaction } from '../store/transactions.ts';
import { findPaymentPage } from '../store/payment-pages.ts';
import { recordAuthorisationChange } from '../store/authorisations.ts';
import type { FollowUpResult } from '../acquirer/connector.ts';
import type { Ports } from './ports.ts';

export type CaptureStatus = 'authorised' | 'captured' | 'reversed';

export interface AuthorisationOperation {
  kind: 'capture' | 'reversal';
  /** What the payment becomes. */
  to: Exclude<CaptureStatus, 'authorised'>;
  /** Calls the acquirer; `amountMinor` is what the operation covers. */
  call(cp: Ports, row: TransactionRow, acquirerReference: string, amountMinor: number): Promise<FollowUpResult>;
}

export const captureStatusOf = (row: TransactionRow) => (JSON.parse(row.details) as { captureStatus?: CaptureStatus }).captureStatus;

/** The caller's authorised payment, or the Problem saying why it cannot be completed. */
export async function loadAuthorisation(cp: Ports, caller: Pick<Caller, 'merchantId' | 'mode'>, reference: string): Promise<TransactionRow> {
  const row = await findOwnTransaction(cp.store.read, caller, reference);
  if (!row) throw Problem.notFound(`No transaction with reference ${reference}.`);
  if (row.type !== 'authorise' || row.method !== 'card') {
    throw Problem.validation([{ field: '/reference', code: 'not_authorisation', message: 'is not a card payment created with transactionType authorise' }]);
  }
  if (row.status !== 'success' || !captureStatusOf(row)) {
    throw Problem.validation([{ field: '/reference', code: 'not_authorised', message: `is ${row.status}, not an authorised payment` }]);
  }
  return row;
}

/** The acquirer call, made only while the payment is still authorised (a replay finds it done and skips it). */
export async function callAcquirer(cp: Ports, op: AuthorisationOperation, row: TransactionRow, amountMinor: number): Promise<FollowUpResult | undefined> {
  if (captureStatusOf(row) !== 'authorised') return undefined;
  const page = await findPaymentPage(cp.store.read, row.reference);
  if (!page?.acquirer_reference) throw new Problem(500, 'Internal error', 'The authorisation has no acquirer reference.');
  return op.call(cp, row, page.acquirer_reference, amountMinor);
}

/** Records the completion; throws the Problem a merchant should see when it cannot. */
export async function recordCompletion(
  db: Db,
  op: AuthorisationOperation,
  reference: string,
  result: FollowUpResult | undefined,
  extra: Record<string, unknown>,
): Promise<TransactionRow> {
  const row = (await findTransaction(db, reference))!;
  const status = captureStatusOf(row);
  if (status !== 'authorised' || !result) {
    throw Problem.validation([{ field: '/reference', code: `already_${status}`, message: `the authorisation is already ${status}` }]);
  }
  if (result.outcome === 'refused') throw new Problem(422, 'Refused by the acquirer', `The acquirer refused the ${op.kind}: ${result.reason}.`);
  const details = JSON.parse(row.details) as Record<string, unknown>;
  const applied = await recordAuthorisationChange(db, {
    reference,
    fromDetails: row.details,
    toDetails: JSON.stringify({ ...details, captureStatus: op.to, ...extra }),
    cause: op.kind,
    at: Date.now(),
  });
  if (!applied) throw Problem.conflict('The payment changed at the same time; read it again.', { 'Retry-After': '1' });
  return (await findTransaction(db, reference))!;
}
