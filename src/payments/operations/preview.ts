/**
 * What a follow-up operation would do to a transaction, without doing it: the operation's own
 * parse, load and decide, then the check its reserve or act makes before the acquirer is asked,
 * answered as the money it would move. The console offers an action only where its preview
 * passes and shows the previewed amount for confirmation (docs/console.md "Actions"); a refusal
 * is the operation's own Problem, so the console never repeats a rule.
 */
import { Problem } from '../../ground/problem.ts';
import { amountToReserve } from '../refunds.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { authorisationInFlight } from '../../store/payment-pages.ts';
import type { Context } from './operation.ts';
import type { Caller } from '../../merchants/merchants.ts';
import { refund } from './refund.ts';
import { capture } from './capture.ts';
import { reversal } from './reversal.ts';
import { cancel, type CancellingParty } from './cancel.ts';
import { resolve, type Resolution } from './resolve.ts';
import { completeTestPayment } from './complete-test-payment.ts';
import { raiseTestDispute } from './raise-test-dispute.ts';
import { acceptDispute } from './accept-dispute.ts';

/** The money an operation would move: its amount in minor units and the currency's code. */
export interface Preview {
  amountMinor: number;
  currency: string;
}

const moneyOf = (row: Pick<TransactionRow, 'currency'>, amountMinor: number): Preview => ({ amountMinor, currency: row.currency });

/** A refund of `amount`, or without one of all that is not refunded yet; refused as the refund would be. */
export async function previewRefund(body: { reference: string; amount?: string }, ctx: Context<Caller>): Promise<Preview> {
  const input = refund.parse(body, ctx);
  const plan = refund.decide(await refund.load(input, ctx), input, ctx);
  // The check the refund's reservation makes, on what was read without holding the sale: refunds pending or made and disputes holding count.
  return moneyOf(plan.sale.row, amountToReserve(plan, plan.sale.remaining));
}

/** A capture of `amount`, or of the whole authorised amount; only while the authorisation still holds its money and no capture or reversal is being asked. */
export async function previewCapture(body: { reference: string; amount?: string }, ctx: Context<Caller>): Promise<Preview> {
  const input = capture.parse(body, ctx);
  const plan = capture.decide(await capture.load(input, ctx), input, ctx);
  return moneyOf(plan.authorisation.row, plan.amountMinor);
}

/** The reversal of the whole held amount; only while the authorisation still holds its money. */
export async function previewReversal(body: { reference: string }, ctx: Context<Caller>): Promise<Preview> {
  const input = reversal.parse(body, ctx);
  const { authorisation } = reversal.decide(await reversal.load(input, ctx), input, ctx);
  return moneyOf(authorisation.row, authorisation.row.amount_minor);
}

/** Whether a cancel would change the payment: pending, with no authorisation in flight (the cancel operation's commit). */
export async function previewCancel(body: { pageToken: string }, ctx: Context<CancellingParty>): Promise<Preview> {
  const input = cancel.parse(body, ctx);
  const row = cancel.decide(await cancel.load(input, ctx), input, ctx);
  if (row.status !== 'pending' || (await authorisationInFlight(ctx.ports.store.read, row.reference))) {
    throw new Problem('conflict', `Transaction ${row.reference} is ${row.status}; only a pending payment can be cancelled.`);
  }
  return moneyOf(row, row.amount_minor);
}

/** A review's resolution: the payment's whole amount, taken (success) or not (failed). */
export async function previewResolve(body: Resolution, ctx: Context<undefined>): Promise<Preview> {
  const input = resolve.parse(body, ctx);
  const state = await resolve.load(input, ctx);
  resolve.decide(state, input, ctx);
  return moneyOf(state!, state!.amount_minor);
}

/** A test payment's completion (the test helper's): the payment's whole amount, while it is pending and in test mode. */
export async function previewCompleteTestPayment(body: { reference: string; outcome: string; failureCode?: string }, ctx: Context<Caller>): Promise<Preview> {
  const input = completeTestPayment.parse(body, ctx);
  const { row } = completeTestPayment.decide(await completeTestPayment.load(input, ctx), input, ctx);
  return moneyOf(row, row.amount_minor);
}

/** A test dispute (the test helper's): the amount disputed, while the payment is a paid test payment or the test dispute may move to the stage. */
export async function previewRaiseTestDispute(body: { reference: string; stage?: string; amount?: string }, ctx: Context<Caller>): Promise<Preview> {
  const input = raiseTestDispute.parse(body, ctx);
  const { word } = raiseTestDispute.decide(await raiseTestDispute.load(input, ctx), input, ctx);
  return { amountMinor: word.amountMinor!, currency: word.currency };
}

/** A dispute's acceptance: the disputed amount, while its stage may still move to `accepted` (the acquirer is asked only when it runs). */
export async function previewAcceptDispute(body: { reference: string }, ctx: Context<Caller>): Promise<Preview> {
  const input = acceptDispute.parse(body, ctx);
  const { row } = acceptDispute.decide(await acceptDispute.load(input, ctx), input, ctx);
  return moneyOf(row, row.amount_minor);
}
