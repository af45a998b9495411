/**
 * What a follow-up operation would do to a transaction, without doing it: the operation planned by
 * the runner (`planOperation`: its own parse, load and decide), then the check its reserve or act
 * makes before the acquirer is asked, answered as the money it would move; one entry per action. The console offers an action only where its preview
 * passes and shows the previewed amount for confirmation (docs/console.md "Actions"); a refusal
 * is the operation's own Problem, so the console never repeats a rule.
 */
import { Problem } from '../../ground/problem.ts';
import { amountToReserve } from '../follow-ups/refunds.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { authorisationInFlight } from '../../store/payment-pages.ts';
import type { Context, Operation } from '../runner/operation.ts';
import { planOperation, type Planned } from '../runner/run.ts';
import { refund } from './refund.ts';
import { capture } from './capture.ts';
import { reversal } from './reversal.ts';
import { cancel } from './cancel.ts';
import { resolve } from './resolve.ts';
import { completeTestPayment } from './complete-test-payment.ts';
import { raiseTestDispute } from './raise-test-dispute.ts';
import { acceptDispute } from './accept-dispute.ts';

/** The money an operation would move: its amount in minor units and the currency's code. */
export interface Preview {
  amountMinor: number;
  currency: string;
}

const moneyOf = (row: Pick<TransactionRow, 'currency'>, amountMinor: number): Preview => ({ amountMinor, currency: row.currency });

/** An operation's preview: planned by the runner, its money read from what it decided. */
const previewOf =
  <Caller, Body, Input, State, Plan, Acted, Out, Answer>(
    op: Operation<Caller, Body, Input, State, Plan, Acted, Out, Answer>,
    money: (planned: Planned<State, Plan>, ctx: Context<Caller>) => Preview | Promise<Preview>,
  ) =>
  async (body: Body, ctx: Context<Caller>): Promise<Preview> =>
    money(await planOperation(op, body, ctx), ctx);

/** A refund of `amount`, or without one of all that is not refunded yet; refused as the refund would be. */
// The check the refund's reservation makes, on what was read without holding the sale: refunds pending or made and disputes holding count.
export const previewRefund = previewOf(refund, ({ plan }) => moneyOf(plan.sale.row, amountToReserve(plan, plan.sale.remaining)));

/** A capture of `amount`, or of the whole authorised amount; only while the authorisation still holds its money and no capture or reversal is being asked. */
export const previewCapture = previewOf(capture, ({ plan }) => moneyOf(plan.authorisation.row, plan.amountMinor));

/** The reversal of the whole held amount; only while the authorisation still holds its money. */
export const previewReversal = previewOf(reversal, ({ plan: { authorisation } }) => moneyOf(authorisation.row, authorisation.row.amount_minor));

/** Whether a cancel would change the payment: pending, with no authorisation in flight (the cancel operation's commit). */
export const previewCancel = previewOf(cancel, async ({ plan: row }, ctx) => {
  if (row.status !== 'pending' || (await authorisationInFlight(ctx.ports.store.read, row.reference))) {
    throw new Problem('conflict', `Transaction ${row.reference} is ${row.status}; only a pending payment can be cancelled.`);
  }
  return moneyOf(row, row.amount_minor);
});

/** A review's resolution: the payment's whole amount, taken (success) or not (failed). */
export const previewResolve = previewOf(resolve, ({ state }) => moneyOf(state!, state!.amount_minor));

/** A test payment's completion (the test helper's): the payment's whole amount, while it is pending and in test mode. */
export const previewCompleteTestPayment = previewOf(completeTestPayment, ({ plan: { row } }) => moneyOf(row, row.amount_minor));

/** A test dispute (the test helper's): the amount disputed, while the payment is a paid test payment or the test dispute may move to the stage. */
export const previewRaiseTestDispute = previewOf(raiseTestDispute, ({ plan: { word } }) => ({ amountMinor: word.amountMinor!, currency: word.currency }));

/** A dispute's acceptance: the disputed amount, while its stage may still move to `accepted` (the acquirer is asked only when it runs). */
export const previewAcceptDispute = previewOf(acceptDispute, ({ plan: { row } }) => moneyOf(row, row.amount_minor));
