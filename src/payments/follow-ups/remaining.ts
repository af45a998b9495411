/**
 * What is left of a payment's money (docs/disputes.md "What is left of a payment"): what was paid
 * (a sale's amount, a captured authorisation's capture), less what its refunds hold (pending,
 * successful or held for an operator: store/transactions.ts `refundTotals`) and what its disputes
 * hold (open or standing: ground/dispute-stages.ts `stageHolds`). Refunds (refunds.ts) and
 * disputes (disputes.ts) make one claim on it: each checks and records its amount in one unit of
 * work holding the sale's row, so two claims at once, of either kind and in any processes, take
 * turns and never both take the same money.
 */
import type { Db, Dialect } from '../../store/store.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { findTransaction, lockTransaction, refundTotals } from '../../store/transactions.ts';
import { disputesOfPayment } from '../../store/disputes.ts';
import { stageHolds, type DisputeStage } from '../../ground/dispute-stages.ts';
import { amountNumber, type Currency } from '../../ground/amount.ts';
import { captureReferenceOf } from './authorisation.ts';

/** What claims a payment's money, in its currency's minor units. */
export interface Remaining {
  /** What was paid: the sale's amount (a capture's is what was captured). */
  paidMinor: number;
  /** What its pending, successful and held refunds hold. */
  refundedMinor: number;
  /** What its open and standing disputes hold. */
  disputedMinor: number;
}

export const leftOf = ({ paidMinor, refundedMinor, disputedMinor }: Remaining) => paidMinor - refundedMinor - disputedMinor;

/** How it adds up, for a refusal's message: `50 paid, 20 refunded, 30 held by disputes`. */
export function remainingText(remaining: Remaining, currency: Currency): string {
  const amount = (minor: number) => amountNumber(minor, currency);
  return `${amount(remaining.paidMinor)} paid, ${amount(remaining.refundedMinor)} refunded, ${amount(remaining.disputedMinor)} held by disputes`;
}

/**
 * The row whose amount a payment paid and whose refunds are its children: a sale itself, a
 * captured authorisation's capture (an authorisation not captured is its own row: nothing of it
 * can be refunded, and what a dispute of it may claim is its amount).
 */
export async function saleOf(db: Db, payment: TransactionRow): Promise<TransactionRow> {
  const captureReference = payment.type === 'authorise' ? captureReferenceOf(payment) : undefined;
  return captureReference === undefined ? payment : (await findTransaction(db, captureReference))!;
}

/** The payment whose disputes claim the sale's money: a capture's authorisation, else the sale. */
const paymentReferenceOf = (sale: Pick<TransactionRow, 'type' | 'parent_reference' | 'reference'>) =>
  sale.type === 'sale' && sale.parent_reference !== null ? sale.parent_reference : sale.reference;

/** What claims the sale's money now, read without holding it (a decision before the claim, the console's preview). */
export async function readRemaining(db: Db, sale: TransactionRow): Promise<Remaining> {
  const disputedMinor = (await disputesOfPayment(db, paymentReferenceOf(sale)))
    .filter((dispute) => stageHolds[dispute.stage as DisputeStage])
    .reduce((sum, dispute) => sum + Number(dispute.amount_minor), 0);
  return { paidMinor: sale.amount_minor, refundedMinor: (await refundTotals(db, sale.reference)).reserved, disputedMinor };
}

/**
 * What claims the sale's money, read holding its row until the unit of work ends (PostgreSQL: FOR
 * UPDATE; SQLite runs one unit at a time): the claim that follows in the same unit is the only one.
 */
export async function holdRemaining(tx: Db, dialect: Dialect, saleReference: string): Promise<Remaining> {
  const sale = (await lockTransaction(tx, dialect, saleReference))!;
  return readRemaining(tx, sale);
}
