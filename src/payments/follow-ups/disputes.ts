/**
 * Disputes (docs/disputes.md): a dispute is a transaction of its own, `type: "chargeback"`, its
 * `parentReference` the payment, its amount what the cardholder disputes, its stage and the
 * scheme's reason in `details`. An acquirer's notification (settle-by-acquirer.ts) or the test
 * helper (operations/raise-test-dispute.ts) says what happened to it as a `DisputeWord`; the first
 * word of a dispute the acquirer names opens it, each later one moves it forward along the stage
 * table (ground/dispute-stages.ts) by one compare-and-set, with its event, its merchant webhook
 * and the payment's `details.disputes` in the same unit of work. A word that comes late or again
 * moves nothing: it is kept on the dispute's timeline. The payment's own status never changes.
 *
 * A dispute that holds its amount (open or standing, ground/dispute-stages.ts `stageHolds`) claims
 * what is left of its payment's money as a refund does (remaining.ts): a word that would make one
 * hold more than is left, next to the payment's refunds and other disputes, is checked and
 * recorded holding the sale, and when it does not fit it is not counted: kept on the timeline
 * (cause `dispute_not_counted`) for an operator, and refused to the test helper
 * (docs/disputes.md "What is left of a payment").
 */
import type { Db, Dialect } from '../../store/store.ts';
import type { Mode, NewTransaction, TransactionRow } from '../../store/schema.ts';
import {
  changeStatus,
  findOwnTransaction,
  findTransaction,
  insertTransaction,
  lockTransaction,
  ownerOf,
  recordTimelineEntry,
  setTransactionDetails,
} from '../../store/transactions.ts';
import { disputesOfPayment, findDispute, insertDispute, lockDisputeByAcquirerReference, setDisputeStage, type DisputeRow } from '../../store/disputes.ts';
import type { Acquirers } from '../../acquirer/select.ts';
import type { DisputeAnswer, DisputeService } from '../../acquirer/dispute-service.ts';
import { Problem } from '../../ground/problem.ts';
import { enqueueDisputeWebhook } from '../../events/outbox.ts';
import { amountNumber, findCurrency, type Currency } from '../../ground/amount.ts';
import { canAdvance, stageHolds, stageStatus, stageTransitions, type DisputeStage } from '../../ground/dispute-stages.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { followUpRow } from './follow-up.ts';
import { holdRemaining, leftOf, remainingText, saleOf, type Remaining } from './remaining.ts';
import type { EventCause } from '../../ground/event-causes.ts';

/** What an acquirer (or the test helper) says of a dispute. */
export interface DisputeWord {
  /** The connector that told of it (`adyen`; `simulator` for the test helper). */
  connector: string;
  /** The acquirer's reference of the dispute (not of its payment). */
  acquirerReference: string;
  /** The stage it moves the dispute to; undefined: an entry of its timeline only. */
  stage: DisputeStage | undefined;
  /** The disputed amount in the currency's minor units; undefined when Kassa's units cannot carry it. */
  amountMinor: number | undefined;
  currency: string;
  reasonCode?: string;
  reason?: string;
  schemeCode?: string;
  defensePeriodEndsAt?: string;
  /** Why, as the timeline keeps it: `acquirer_dispute`, `test_helper`. */
  cause: EventCause;
  /** What was said, for the timeline (settle-by-acquirer.ts `detailOf`). */
  detail: string;
}

/** A chargeback's `details`, as its transaction object shows them (docs/api.md#the-payment-object). */
export interface DisputeDetails {
  stage: DisputeStage;
  reasonCode?: string;
  reason?: string;
  schemeCode?: string;
  defensePeriodEndsAt?: string;
  /** The reason the merchant defended it with (recordDefense). */
  defenseReasonCode?: string;
}

/**
 * What became of a word: the dispute opened or moved (`row` the dispute), kept on a timeline only
 * (`row` the dispute, or its payment when Kassa does not know the dispute yet), or a dispute that
 * cannot be, or cannot hold what the word says (said why, for an operator; kept on the dispute's
 * timeline, or its payment's when Kassa does not know the dispute, with cause `dispute_not_counted`).
 */
export type DisputeOutcome = { kind: 'opened' | 'advanced' | 'kept'; row: TransactionRow } | { kind: 'refused'; payment: TransactionRow; why: string };

/** Why a payment cannot have this dispute, if it cannot (pure): Kassa's units must carry the amount, at most the payment's, in its currency. */
export function disputeRefusal(
  payment: Pick<TransactionRow, 'type' | 'amount_minor' | 'currency'>,
  word: Pick<DisputeWord, 'amountMinor' | 'currency'>,
): string | undefined {
  if (payment.type !== 'sale' && payment.type !== 'authorise') return `is a ${payment.type}, not a payment`;
  if (word.currency.toLowerCase() !== payment.currency) return `the dispute's currency ${word.currency} is not the payment's`;
  if (word.amountMinor === undefined || word.amountMinor <= 0) return "the dispute's amount is not one Kassa can record";
  if (word.amountMinor > payment.amount_minor) return "the dispute's amount is more than the payment's";
  return undefined;
}

/** Why a dispute of `amountMinor` cannot hold it against what is left of its payment (pure); undefined when it fits. */
export function beyondRemaining(remaining: Remaining, amountMinor: number, currency: Currency): string | undefined {
  const left = Math.max(leftOf(remaining), 0);
  if (amountMinor <= left) return undefined;
  const amount = (minor: number) => amountNumber(minor, currency);
  return `the dispute's ${amount(amountMinor)} is more than the ${amount(left)} left of what was paid (${remainingText(remaining, currency)})`;
}

/** Whether a dispute moving `from` → `to` claims its amount again (pure): reversed or won, then back (a second chargeback, a pre-arbitration). */
export const claimsAgain = (from: DisputeStage, to: DisputeStage) => stageHolds[to] && !stageHolds[from];

/** The next stage for a dispute at `current` (pure): undefined when the word moves nothing (a timeline entry, late or sent again). */
export function nextStage(current: DisputeStage, word: Pick<DisputeWord, 'stage'>): DisputeStage | undefined {
  return word.stage !== undefined && canAdvance(current, word.stage) ? word.stage : undefined;
}

const detailsOf = (word: DisputeWord, stage: DisputeStage, earlier: Partial<DisputeDetails> = {}): DisputeDetails => ({
  ...earlier,
  stage,
  ...(word.reasonCode !== undefined ? { reasonCode: word.reasonCode } : {}),
  ...(word.reason !== undefined ? { reason: word.reason } : {}),
  ...(word.schemeCode !== undefined ? { schemeCode: word.schemeCode } : {}),
  ...(word.defensePeriodEndsAt !== undefined ? { defensePeriodEndsAt: word.defensePeriodEndsAt } : {}),
});

interface At {
  dialect: Dialect;
  secrets: SecretBox;
  now: number;
}

/**
 * Applies a word about a dispute of `payment`, in the caller's unit of work: opens it (its first
 * stage), moves it forward, or keeps the word on its timeline. A word for a timeline about a dispute
 * Kassa does not know yet goes on the payment's.
 */
export async function recordDisputeWord(tx: Db, payment: TransactionRow, word: DisputeWord, at: At): Promise<DisputeOutcome> {
  const known = await lockDisputeByAcquirerReference(tx, at.dialect, word);
  if (known) return moveDispute(tx, known, payment, word, at);
  const refusal = disputeRefusal(payment, word);
  if (word.stage === undefined || refusal !== undefined) {
    if (refusal !== undefined) return notCounted(tx, payment, payment, word, refusal, at);
    await recordTimelineEntry(tx, { reference: payment.reference, status: payment.status, cause: word.cause, detail: word.detail, at: at.now });
    return { kind: 'kept', row: payment };
  }
  // Every new dispute holds the sale first, whatever its stage, so that the units opening disputes of one payment take their locks in one order.
  const remaining = await holdPaymentRemaining(tx, payment, at);
  // Another unit opened it while this one waited for the sale (two of its notifications at once): this word moves that one.
  const openedMeanwhile = await lockDisputeByAcquirerReference(tx, at.dialect, word);
  if (openedMeanwhile) return moveDispute(tx, openedMeanwhile, payment, word, at);
  const opening = { ...word, stage: word.stage, amountMinor: word.amountMinor! };
  const beyond = stageHolds[opening.stage] ? beyondRemaining(remaining, opening.amountMinor, findCurrency(payment.currency)!) : undefined;
  if (beyond !== undefined) return notCounted(tx, payment, payment, word, beyond, at);
  return openDispute(tx, payment, opening, at);
}

/** What is left of the payment's money, holding its sale until the unit of work ends (remaining.ts). */
async function holdPaymentRemaining(tx: Db, payment: TransactionRow, at: At): Promise<Remaining> {
  // Read again in the unit: an authorisation captured since it was read has its capture as its sale.
  const current = (await findTransaction(tx, payment.reference))!;
  return holdRemaining(tx, at.dialect, (await saleOf(tx, current)).reference);
}

/** A word Kassa does not count: kept on `on`'s timeline, flagged for an operator (`dispute_not_counted`), nothing else changed. */
async function notCounted(tx: Db, on: TransactionRow, payment: TransactionRow, word: DisputeWord, why: string, at: At): Promise<DisputeOutcome> {
  const detail = `${word.detail} (the acquirer's dispute ${word.acquirerReference}), not counted: ${why}`.slice(0, 500);
  await recordTimelineEntry(tx, { reference: on.reference, status: on.status, cause: 'dispute_not_counted', detail, at: at.now });
  return { kind: 'refused', payment, why };
}

async function openDispute(tx: Db, payment: TransactionRow, word: DisputeWord & { stage: DisputeStage; amountMinor: number }, at: At): Promise<DisputeOutcome> {
  const row: NewTransaction = {
    ...followUpRow(payment, { type: 'chargeback', amountMinor: word.amountMinor }, at),
    status: stageStatus[word.stage],
    details: JSON.stringify(detailsOf(word, word.stage)),
    request: '{}',
  };
  const dispute: DisputeRow = {
    reference: row.reference,
    payment_reference: payment.reference,
    connector: word.connector,
    acquirer_reference: word.acquirerReference,
    stage: word.stage,
    created: at.now,
    last_update: at.now,
  };
  // Another unit opened it first (two of its notifications at once, for two payments): this word moves that one.
  if (!(await insertDispute(tx, dispute))) return moveDispute(tx, (await lockDisputeByAcquirerReference(tx, at.dialect, word))!, payment, word, at);
  await insertTransaction(tx, row, word.cause, word.detail);
  await enqueueDisputeWebhook(tx, { reference: row.reference, stage: word.stage, at: at.now });
  await recordPaymentDisputes(tx, at.dialect, payment.reference);
  return { kind: 'opened', row: (await findTransaction(tx, row.reference))! };
}

async function moveDispute(tx: Db, known: DisputeRow, payment: TransactionRow, word: DisputeWord, at: At): Promise<DisputeOutcome> {
  const row = (await findTransaction(tx, known.reference))!;
  const from = known.stage as DisputeStage;
  const to = nextStage(from, word);
  if (to !== undefined && claimsAgain(from, to)) {
    const beyond = beyondRemaining(await holdPaymentRemaining(tx, payment, at), row.amount_minor, findCurrency(row.currency)!);
    if (beyond !== undefined) return notCounted(tx, row, payment, word, `its move to ${to}: ${beyond}`, at);
  }
  if (to === undefined || !(await setDisputeStage(tx, { reference: known.reference, from, to, at: at.now }))) {
    await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause: word.cause, detail: word.detail, at: at.now });
    return { kind: 'kept', row };
  }
  const details = detailsOf(word, to, JSON.parse(row.details) as Partial<DisputeDetails>);
  // The stage's compare-and-set above holds the dispute: its status follows its stage (ground/dispute-stages.ts), even when it stays the same.
  await changeStatus(tx, {
    reference: row.reference,
    from: row.status,
    to: stageStatus[to],
    cause: word.cause,
    at: at.now,
    detail: word.detail,
    set: { details: JSON.stringify(details) },
  });
  await enqueueDisputeWebhook(tx, { reference: row.reference, stage: to, at: at.now });
  await recordPaymentDisputes(tx, at.dialect, known.payment_reference);
  return { kind: 'advanced', row: (await findTransaction(tx, row.reference))! };
}

/** The payment's `details.disputes`: each of its disputes as it stands now, oldest first (docs/api.md#the-payment-object). */
async function recordPaymentDisputes(tx: Db, dialect: Dialect, paymentReference: string): Promise<void> {
  // Held, as a sale is for its refunds: two of its disputes moving at once each see the other.
  const payment = (await lockTransaction(tx, dialect, paymentReference))!;
  const disputes = (await disputesOfPayment(tx, paymentReference)).map((dispute) => ({
    reference: dispute.reference,
    stage: dispute.stage,
    status: dispute.status,
    amount: amountNumber(Number(dispute.amount_minor), findCurrency(dispute.currency)!),
  }));
  await setTransactionDetails(tx, paymentReference, JSON.stringify({ ...(JSON.parse(payment.details) as Record<string, unknown>), disputes }));
}

/** A dispute as its owner sees it: its chargeback transaction, what makes it one at its acquirer, and its payment. */
export interface OwnDispute {
  row: TransactionRow;
  dispute: DisputeRow;
  payment: TransactionRow;
}

/** The caller's dispute named by its transaction's reference; undefined for anything else, as for no transaction. */
export async function loadDispute(read: Db, caller: { merchantId: string; mode: Mode }, reference: string): Promise<OwnDispute | undefined> {
  const row = await findOwnTransaction(read, caller, reference);
  const dispute = row?.type === 'chargeback' ? await findDispute(read, row.reference) : undefined;
  const payment = dispute && (await findOwnTransaction(read, caller, dispute.payment_reference));
  return row && dispute && payment ? { row, dispute, payment } : undefined;
}

/**
 * Where a merchant's word on its dispute may apply (pure): a dispute of the caller's, at a stage that
 * may still move to `to` (accepting: `accepted`; defending: a stage the issuer decides next, so any
 * stage that is not an end).
 */
export function disputeOpenTo(found: OwnDispute | undefined, reference: string, to: DisputeStage | 'defended'): OwnDispute {
  if (!found) throw new Problem('notFound', `No dispute with reference ${reference}.`);
  const stage = found.dispute.stage as DisputeStage;
  const open = to === 'defended' ? stageTransitions[stage].length > 0 : canAdvance(stage, to);
  if (!open) throw new Problem('conflict', `Dispute ${reference} is at ${stage}; it can no longer be ${to === 'defended' ? 'defended' : to}.`);
  return found;
}

/** The acquirer's service for the dispute, or the 503 saying it has none Kassa can ask (docs/disputes.md "Accepting and defending"). */
export async function disputeServiceOf(acquirers: Pick<Acquirers, 'disputes'>, found: OwnDispute): Promise<DisputeService> {
  const service = await acquirers.disputes(ownerOf(found.row), found.dispute.connector);
  if (service) return service;
  throw new Problem(
    'disputesNotConnected',
    `Kassa cannot ask this dispute's acquirer (${found.dispute.connector}) to accept or defend it: the connection names no Disputes API (kassa acquirer set --disputes-endpoint). Do it at the acquirer; its notification moves the dispute here.`,
  );
}

/** The acquirer's answer as the merchant gets it: done, or its refusal (422), or no answer (503, nothing recorded: ask again). */
export function unlessRefusedDispute(answer: DisputeAnswer, action: 'accept' | 'defend'): void {
  if (answer.outcome === 'refused') throw new Problem('refusedByAcquirer', `The acquirer refused to ${action} the dispute: ${answer.reason}.`);
  if (answer.outcome === 'unknown')
    throw new Problem('noAcquirerAnswer', {
      detail: `The acquirer did not answer in time (${answer.reason}); nothing was recorded. Send the request again.`,
      headers: {
        'Retry-After': '5',
      },
    });
}

/** A defense made at the acquirer: its reason in the dispute's `details.defenseReasonCode` and on its timeline; its stage waits for the issuer. */
export async function recordDefense(tx: Db, reference: string, defense: { defenseReasonCode: string; at: number }): Promise<TransactionRow> {
  const row = (await findTransaction(tx, reference))!;
  const details = { ...(JSON.parse(row.details) as Record<string, unknown>), defenseReasonCode: defense.defenseReasonCode };
  await setTransactionDetails(tx, reference, JSON.stringify(details));
  await recordTimelineEntry(tx, { reference, status: row.status, cause: 'merchant_defended', detail: `defended: ${defense.defenseReasonCode}`, at: defense.at });
  return (await findTransaction(tx, reference))!;
}
