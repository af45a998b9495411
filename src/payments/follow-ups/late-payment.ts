/**
 * Money a shopper paid after Kassa ended the payment (docs/acquirers.md "Money paid after Kassa
 * gave up"): a payment Kassa made `failed` (expired, cancelled) while the shopper was still at
 * their bank, or a card authorisation whose answer came after its payment was ended, that the
 * acquirer then says it authorised. The shop cancelled the order, so Kassa gives the money back by
 * itself: the payment stays `failed` (final states never change) and its `details.latePayment`
 * tells what became of the money — `returning` while the acquirer's cancel-or-refund is asked
 * (under a claim, claims.ts, asked again by the recovery job until it is answered), `returned`
 * once done, `not_returned` when the acquirer refused (an operator must look). Each step is an
 * event of the payment's timeline and a webhook for the merchant to read the payment again.
 */
import type { Db } from '../../store/store.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { findTransaction } from '../../store/transactions.ts';
import { recordAuthorisationChange } from '../../store/authorisations.ts';
import { amountNumber, findCurrency } from '../../ground/amount.ts';
import { enqueueWebhook } from '../../events/outbox.ts';

export type LatePaymentStatus = 'returning' | 'returned' | 'not_returned';

/** What the payment object's `details.latePayment` shows (docs/api.md#the-details-object). */
interface LatePayment {
  status: LatePaymentStatus;
  /** In major units of the payment's currency, as every amount of the payment object. */
  amount: number;
}

const latePaymentOf = (row: Pick<TransactionRow, 'details'>) => (JSON.parse(row.details) as { latePayment?: LatePayment }).latePayment;

/** Where money paid late for the payment stands; undefined: none was told of (a second word of it changes nothing). */
export const latePaymentStatusOf = (row: Pick<TransactionRow, 'details'>) => latePaymentOf(row)?.status;

/** A payment of its own (not a capture, refund, dispute or enrollment): what a shopper can pay late. */
export const payableLate = (row: Pick<TransactionRow, 'type' | 'parent_reference'>) => row.parent_reference === null && (row.type === 'sale' || row.type === 'authorise');

/**
 * The acquirer's word that an ended payment was paid after all: `returning` recorded with the
 * acquirer's word on the timeline, and the merchant told. False when the payment is no longer
 * `failed` with the details read (told already, or changed meanwhile): the caller then claims nothing.
 */
export async function recordLatePayment(tx: Db, row: TransactionRow, change: { at: number; detail: string }): Promise<boolean> {
  if (row.status !== 'failed' || latePaymentOf(row) !== undefined) return false;
  const latePayment: LatePayment = { status: 'returning', amount: amountNumber(row.amount_minor, findCurrency(row.currency)!) };
  return moveLatePayment(tx, row, latePayment, { cause: 'acquirer_paid_late', ...change });
}

/**
 * The acquirer's answer to the cancel-or-refund (its own, or its notification's): `returned`, or
 * `not_returned`. Nothing changes when the money is not being returned as read (the other of the
 * answer and the notification came first).
 */
export async function endLatePayment(tx: Db, reference: string, to: 'returned' | 'not_returned', change: { at: number; detail?: string }): Promise<boolean> {
  const row = (await findTransaction(tx, reference))!;
  const latePayment = latePaymentOf(row);
  if (latePayment?.status !== 'returning') return false;
  return moveLatePayment(tx, row, { ...latePayment, status: to }, { cause: to === 'returned' ? 'late_payment_returned' : 'late_payment_not_returned', ...change });
}

/** One compare-and-set on the details as read, its timeline event and the merchant's webhook. */
async function moveLatePayment(
  tx: Db,
  row: Pick<TransactionRow, 'reference' | 'details' | 'status' | 'failure_code'>,
  latePayment: LatePayment,
  change: { cause: 'acquirer_paid_late' | 'late_payment_returned' | 'late_payment_not_returned'; at: number; detail?: string },
): Promise<boolean> {
  const toDetails = JSON.stringify({ ...(JSON.parse(row.details) as Record<string, unknown>), latePayment });
  const moved = await recordAuthorisationChange(tx, { reference: row.reference, fromDetails: row.details, toDetails, status: 'failed', ...change });
  if (moved) await enqueueWebhook(tx, { reference: row.reference, to: row.status, failureCode: row.failure_code, at: change.at });
  return moved;
}
