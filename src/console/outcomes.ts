/**
 * What happened to a payment after its own status, read from its `details` (docs/api.md#the-details-object):
 * captured or reversed, refunded in part or in full, disputed, charged back, a dispute won. One
 * table: each outcome and when it holds. The list and the transaction page show every outcome that
 * holds next to the status (docs/console.md "Payments"), so a captured, refunded or disputed payment
 * never reads "Successful" alone.
 */
import { amountNumber, findCurrency } from '../ground/amount.ts';

/** The fields of `details` the outcomes are read from. */
interface OutcomeDetails {
  captureStatus?: string;
  /** In major units, as the API answers it. */
  refundedAmount?: number;
  /** Each dispute as it stands now; its status says where the disputed money is (ground/dispute-stages.ts). */
  disputes?: { status: string }[];
}

const disputeIn = (details: OutcomeDetails, status: string) => (details.disputes ?? []).some((dispute) => dispute.status === status);

/** Each outcome and when it holds, `amount` being the payment's own in major units; shown in this order. */
const outcomeRules = {
  captured: (details: OutcomeDetails) => details.captureStatus === 'captured',
  reversed: (details: OutcomeDetails) => details.captureStatus === 'reversed',
  partlyRefunded: (details: OutcomeDetails, amount: number) => (details.refundedAmount ?? 0) > 0 && (details.refundedAmount ?? 0) < amount,
  refunded: (details: OutcomeDetails, amount: number) => (details.refundedAmount ?? 0) >= amount,
  // An open dispute's money is undecided, a standing one's taken back, a won one's the merchant's again.
  disputed: (details: OutcomeDetails) => disputeIn(details, 'pending'),
  chargedBack: (details: OutcomeDetails) => disputeIn(details, 'success'),
  disputeWon: (details: OutcomeDetails) => disputeIn(details, 'failed'),
} satisfies Record<string, (details: OutcomeDetails, amount: number) => boolean>;

export type Outcome = keyof typeof outcomeRules;
export const outcomes = Object.keys(outcomeRules) as Outcome[];

/** The outcomes that hold for a transaction, in the table's order; none for one with nothing after its status. */
export function outcomesOf(row: { details: string; amount_minor: number; currency: string }): Outcome[] {
  const details = JSON.parse(row.details) as OutcomeDetails;
  const amount = amountNumber(row.amount_minor, findCurrency(row.currency)!);
  return outcomes.filter((outcome) => outcomeRules[outcome](details, amount));
}
