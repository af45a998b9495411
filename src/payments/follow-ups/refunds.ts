/**
 * Refunds (docs/api.md#the-service: sale and refund; docs/api.md#states; docs/decisions.md#refunds). A refund is a
 * transaction of its own (follow-up.ts): `type: "credit"`, `parentReference` the sale;
 * `pending` → `success` | `failed` through the acquirer. Only a `success` sale or a captured
 * authorisation (that is, its capture) has money to give back, within the refund window of
 * its card network. The sale's pending, successful and held (`manualintervention`) refunds never exceed what was paid
 * (captured), less what the payment's open and standing disputes hold: the check and the new
 * refund's row are one unit of work that holds the sale, the one claim on its money that its
 * disputes make too (remaining.ts).
 */
import { Problem, type FieldError } from '../../ground/problem.ts';
import { amountNumber, findCurrency, parseAmount, type Currency } from '../../ground/amount.ts';
import { methodOf } from '../../ground/payment-method.ts';
import type { CardBrand } from '../../ground/card-brand.ts';
import type { FailureCode } from '../../ground/states.ts';
import type { Db, Dialect } from '../../store/store.ts';
import type { AcquirerClaimRow, Mode, TransactionRow } from '../../store/schema.ts';
import {
  findOwnTransaction,
  findTransaction,
  insertTransaction,
  lockTransaction,
  refundTotals,
  setTransactionDetails,
  undoneByAcquirer,
} from '../../store/transactions.ts';
import { findPaymentPage } from '../../store/payment-pages.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { RefundWindows } from '../../config.ts';
import { compileTable, type RequestRules } from '../requests/rows.ts';
import { commonFields } from '../requests/common-fields.ts';
import { captureStatusOf } from './authorisation.ts';
import { holdRemaining, leftOf, readRemaining, remainingText, saleOf, type Remaining } from './remaining.ts';
import { followUpFields, followUpRow, parseFollowUp, type FollowUpRequest } from './follow-up.ts';
import { transition } from '../transition.ts';
import type { EventCause } from '../../ground/event-causes.ts';

export interface RefundRequest extends FollowUpRequest {
  description?: string;
  webhookUrl?: string;
}

/** The body the official client sends (`RefundRequest.php`): `{reference, amount?, description?, orderLines?, webhookUrl?}`. */
export const refundTable = compileTable({
  ...followUpFields,
  // The reason a shop's admin typed, which the plugins send whole: kept, cut to the limit, rather than the refund refused (docs/interop.md).
  description: { ...commonFields.description, cutToMax: true as const },
  webhookUrl: commonFields.webhookUrl,
});

export function parseRefundRequest(body: Record<string, unknown>, rules: RequestRules): RefundRequest {
  const request = parseFollowUp(refundTable, body, rules);
  return { ...request, description: request.values.description as string | undefined, webhookUrl: request.values.webhookUrl as string | undefined };
}

/** What a refund is decided on: the sale, the acquirer's reference of its money, and what claimed its money when it was read. */
export interface Sale {
  row: TransactionRow;
  acquirerReference: string | null | undefined;
  /** Read without holding the sale: decided on here, counted again holding it when the refund is reserved (reserveRefund). */
  remaining: Remaining;
}

/**
 * The caller's transaction a refund gives money back from: the one named, or for a captured
 * authorisation its capture, so that refunds naming either share the one captured amount.
 * The acquirer knows the money by the authorisation's reference (a capture's is its parent's).
 */
export async function loadSale(read: Db, caller: { merchantId: string; mode: Mode }, reference: string): Promise<Sale | undefined> {
  const named = await findOwnTransaction(read, caller, reference);
  if (!named) return undefined;
  const row = await saleOf(read, named);
  const payment = row.parent_reference ?? row.reference;
  return { row, acquirerReference: (await findPaymentPage(read, payment))?.acquirer_reference, remaining: await readRemaining(read, row) };
}

export interface RefundPlan {
  sale: Sale;
  currency: Currency;
  /** Undefined: whatever remains when the refund is reserved. */
  amountMinor: number | undefined;
  request: RefundRequest;
  /** Set by the reservation: the refund's own row, and its claim on the acquirer (claims.ts). */
  refund?: TransactionRow;
  claim?: AcquirerClaimRow;
}

const refusal = (code: string, message: string): Problem => new Problem('validationFailed', { errors: [{ field: '/reference', code, message }] });

/** Decides whether and how much may be refunded (pure); the Problem that says why not otherwise. */
export function planRefund(found: Sale | undefined, request: RefundRequest, windows: RefundWindows, now: number): RefundPlan {
  if (!found) throw new Problem('notFound', `No transaction with reference ${request.reference}.`);
  const { row } = found;
  if (row.type === 'credit') throw refusal('is_refund', 'is a refund; only a payment can be refunded');
  if (row.type === 'token') throw refusal('not_payment', 'is a vault enrollment; no money was taken');
  if (row.type === 'chargeback') throw refusal('not_payment', "is a dispute: the cardholder's bank takes its money back, not the merchant");
  if (row.status !== 'success') throw refusal('not_paid', `is ${row.status}; only a successful payment can be refunded`);
  if (methodOf(row.method)?.refundable === false) throw refusal('not_refundable', `is paid by ${row.method}, which gives no money back`);
  // A capture the acquirer could not make after all took no money (docs/decisions.md "An acquirer undoing a final outcome").
  if (undoneByAcquirer(row)) throw refusal('not_paid', 'was not paid after all: the acquirer could not make the capture');
  const currency = findCurrency(row.currency)!;
  // A captured authorisation arrives here as its capture (loadSale).
  // Its capture may be under way (`capturing`): still not captured, as the merchant sees it.
  if (row.type === 'authorise') {
    throw refusal('not_captured', captureStatusOf(row) === 'reversed' ? 'is an authorisation reversed' : 'is an authorisation not captured (yet): capture or reverse it');
  }
  const window = windows.byBrand[row.brand as CardBrand] ?? windows.default;
  if (now - row.created > window)
    throw refusal('refund_window_passed', `was paid more than ${Math.round(window / 86_400_000)} days ago, past the refund window of its card network`);
  // What a dispute holds is the cardholder's, or may become so: the acquirer would not give it twice (docs/disputes.md "What is left of a payment").
  const { paidMinor, disputedMinor } = found.remaining;
  const refundable = paidMinor - disputedMinor;
  if (refundable <= 0) throw refusal('charged_back', "is disputed in full: the cardholder's bank has taken the money back, or claims it");
  const paid = disputedMinor > 0 ? 'paid and not held by disputes' : 'paid';
  let amountMinor: number | undefined;
  if (request.amount !== undefined) {
    const parsed = parseAmount(request.amount, currency);
    const errors: FieldError[] = [];
    if (!parsed.ok) errors.push({ field: '/amount', code: parsed.code, message: parsed.message });
    else if (parsed.minor <= 0) errors.push({ field: '/amount', code: 'range', message: 'must be more than 0' });
    else if (parsed.minor > refundable)
      errors.push({ field: '/amount', code: 'range', message: `must not be more than the ${amountNumber(refundable, currency)} ${paid}` });
    if (errors.length > 0) throw new Problem('validationFailed', { errors });
    amountMinor = parsed.ok ? parsed.minor : undefined;
  }
  return { sale: found, currency, amountMinor, request };
}

/**
 * What a refund of the plan reserves, given what the sale's refunds and its payment's disputes
 * hold already (remaining.ts); the Problem saying why not when that leaves nothing or less than
 * asked. Pure: the reservation asks it holding the sale, the console's preview without
 * (operations/preview.ts).
 */
export function amountToReserve(plan: Pick<RefundPlan, 'amountMinor' | 'currency'>, remaining: Remaining): number {
  const left = leftOf(remaining);
  const disputed = remaining.disputedMinor > 0;
  if (left <= 0) {
    throw disputed
      ? refusal('charged_back', `has nothing left to refund (${remainingText(remaining, plan.currency)})`)
      : refusal('fully_refunded', 'has been refunded in full (counting refunds still pending)');
  }
  const amountMinor = plan.amountMinor ?? left;
  if (amountMinor > left) {
    const what = disputed ? `left (${remainingText(remaining, plan.currency)})` : 'not yet refunded';
    throw new Problem('validationFailed', {
      errors: [{ field: '/amount', code: 'exceeds_refundable', message: `must not be more than the ${amountNumber(left, plan.currency)} ${what}` }],
    });
  }
  return amountMinor;
}

/**
 * In one unit of work holding the sale: what its refunds and its payment's disputes leave, and the
 * new refund's row if it fits. Two refunds at once, or a refund and a dispute, in any processes,
 * take turns here (remaining.ts).
 */
export async function reserveRefund(tx: Db, plan: RefundPlan, at: { dialect: Dialect; secrets: SecretBox; now: number }): Promise<RefundPlan> {
  const amountMinor = amountToReserve(plan, await holdRemaining(tx, at.dialect, plan.sale.row.reference));
  const { request } = plan;
  const sale = plan.sale.row;
  const row = followUpRow(sale, { type: 'credit', amountMinor, description: request.description, webhookUrl: request.webhookUrl, orderLines: request.orderLines }, at);
  await insertTransaction(tx, row, 'created');
  return { ...plan, amountMinor, refund: { ...row, version: 1 } as TransactionRow };
}

/**
 * A refund's one state change (from `pending`, or from `manualintervention` by an operator), with the sale's `details.refundedAmount` (what its successful
 * refunds add up to) in the same unit of work: the acquirer's answer, the test helper, alike.
 */
export async function settleRefund(
  tx: Db,
  dialect: Dialect,
  refund: TransactionRow,
  outcome: { from?: 'pending' | 'manualintervention'; to: 'success' | 'failed'; failureCode?: FailureCode | null; cause: EventCause; at: number },
): Promise<{ moved: boolean; row: TransactionRow }> {
  const moved = await transition(tx, {
    reference: refund.reference,
    from: outcome.from ?? 'pending',
    to: outcome.to,
    failureCode: outcome.to === 'failed' ? (outcome.failureCode ?? 'rejected') : null,
    cause: outcome.cause,
    at: outcome.at,
  });
  if (moved && outcome.to === 'success') await recordRefundedAmount(tx, dialect, refund.parent_reference!);
  return { moved, row: (await findTransaction(tx, refund.reference))! };
}

/** The sale's `details.refundedAmount`: what its successful refunds add up to now, those the acquirer undid left out. */
export async function recordRefundedAmount(tx: Db, dialect: Dialect, saleReference: string): Promise<TransactionRow> {
  // Held, as when reserving: two refunds settling at once each count the other's success.
  const sale = (await lockTransaction(tx, dialect, saleReference))!;
  const { refunded } = await refundTotals(tx, sale.reference);
  const details = { ...(JSON.parse(sale.details) as Record<string, unknown>), refundedAmount: amountNumber(refunded, findCurrency(sale.currency)!) };
  await setTransactionDetails(tx, sale.reference, JSON.stringify(details));
  return sale;
}
