/**
 * What the console can do to a transaction, as data: each action runs the same operation as the
 * merchant API or the command line (payments/operations/), for the transaction's own merchant
 * and mode, so it gets the same checks, events and webhooks. Whether a button is shown, and the
 * amount a confirmation names, come from the operation's own preview (payments/operations/preview.ts).
 */
import { Problem } from '../ground/problem.ts';
import { findCurrency, formatAmount } from '../ground/amount.ts';
import type { TransactionRow } from '../store/schema.ts';
import type { Caller } from '../merchants/merchants.ts';
import type { Ports } from '../payments/ports.ts';
import { pageTokenOfPayment } from '../payments/serialize.ts';
import type { Log } from '../payments/runner/operation.ts';
import { run } from '../payments/runner/run.ts';
import { refund } from '../payments/operations/refund.ts';
import { capture } from '../payments/operations/capture.ts';
import { reversal } from '../payments/operations/reversal.ts';
import { cancel } from '../payments/operations/cancel.ts';
import { resolve, type Resolution } from '../payments/operations/resolve.ts';
import { completeTestPayment } from '../payments/operations/complete-test-payment.ts';
import { raisedStages, raiseTestDispute } from '../payments/operations/raise-test-dispute.ts';
import { acceptDispute } from '../payments/operations/accept-dispute.ts';
import {
  previewAcceptDispute,
  previewCancel,
  previewCapture,
  previewCompleteTestPayment,
  previewRaiseTestDispute,
  previewRefund,
  previewResolve,
  previewReversal,
  type Preview,
} from '../payments/operations/preview.ts';
import type { FailureCode } from '../ground/states.ts';
import { stageTransitions, type DisputeStage } from '../ground/dispute-stages.ts';
import { methods } from '../ground/payment-method.ts';
import { methodPaidElsewhere } from '../payments/operations/send-to-method.ts';
import type { Form } from '../lib/page-security.ts';
import { field } from '../lib/page-security.ts';

export const actionNames = ['refund', 'capture', 'reversal', 'cancel', 'complete', 'resolve', 'dispute', 'accept'] as const;
export type ActionName = (typeof actionNames)[number];

export interface ActionContext {
  ports: Ports;
  /** The transaction's merchant and mode: the caller the merchant API would have. */
  caller: Caller;
  now: number;
  log: Log;
}

/** The form's values an action takes; these go into the audit log too. */
export type ActionInput = Record<string, string>;

const optionalAmount = (form: Form): ActionInput => {
  const amount = field(form, 'amount')?.trim();
  return amount ? { amount } : {};
};

interface Action {
  /** The form values its offer is previewed with: what an untouched form sends. */
  probe: ActionInput;
  input(form: Form): ActionInput;
  /** What the operation would do now, or its Problem: the button is shown where this passes. */
  preview(row: TransactionRow, input: ActionInput, ctx: ActionContext): Promise<Preview>;
  /** Moves money: the first POST answers a confirmation naming the previewed amount (docs/console.md "Actions"). */
  confirmed: boolean;
  /** The values the confirmed POST sends: an amount left empty becomes the amount confirmed, so no more moves than was shown. */
  carried(input: ActionInput, preview: Preview): ActionInput;
  /** Runs the operation; answers the transaction it made or changed. */
  perform(row: TransactionRow, input: ActionInput, ctx: ActionContext): Promise<{ reference: string; status: string }>;
}

const asInput = (input: ActionInput) => input;
const withAmount = (input: ActionInput, preview: Preview): ActionInput => ({ ...input, amount: formatAmount(preview.amountMinor, findCurrency(preview.currency)!) });

const resultOf = (answer: Record<string, unknown>) => ({ reference: String(answer.reference), status: String(answer.status) });

/** The merchant's own cancel (cause merchant_cancel), through the payment's cancel address as the API has it. */
const cancelling = (row: TransactionRow, ctx: ActionContext) => ({
  body: { pageToken: pageTokenOfPayment(row, ctx.ports.links.secrets) },
  ctx: { ...ctx, caller: { merchantId: ctx.caller.merchantId } },
});

/** As `kassa payment resolve` takes it, with the reason the audit log keeps. */
function resolution(row: TransactionRow, input: ActionInput): Resolution {
  if (!input.reason) throw new Problem('validationFailed', { errors: [{ field: '/reason', code: 'required', message: 'give the reason' }] });
  return { reference: row.reference, outcome: input.outcome, ...(input.failureCode ? { failureCode: input.failureCode } : {}) } as Resolution;
}

/**
 * The outcomes a tester gives a pending test payment from the console, the words of a method's
 * simulated page less "still open" (docs/payment-methods.md "Test mode"), and what the test helper
 * completes the payment as for each.
 */
export const testOutcomes = {
  paid: { outcome: 'success' },
  failed: { outcome: 'failed', failureCode: 'rejected' },
  cancelled: { outcome: 'failed', failureCode: 'cancelled' },
  expired: { outcome: 'failed', failureCode: 'expired' },
} as const satisfies Record<string, { outcome: 'success' | 'failed'; failureCode?: FailureCode }>;
export type TestOutcome = keyof typeof testOutcomes;
export const testOutcomeNames = Object.keys(testOutcomes) as TestOutcome[];

/**
 * A payment paid by bank transfer, its own method or the one its customer chose on a landing page:
 * the method whose test-mode step is the transfer instructions. Not its refund, which keeps the
 * payment's flow but is no money arriving.
 */
export function paidByTransfer(row: TransactionRow, page: { chosen_method: string | null } | undefined): boolean {
  if (row.type === 'credit') return false;
  const method = methodPaidElsewhere(row, page);
  return method !== undefined && methods[method].simulator === 'transfer-instructions';
}

/** As `POST {base_url}/test/complete` takes it, for the outcome the tester picked. */
function completion(row: TransactionRow, input: ActionInput) {
  if (!Object.hasOwn(testOutcomes, input.outcome)) {
    throw new Problem('validationFailed', { errors: [{ field: '/outcome', code: 'enum', message: `must be one of ${testOutcomeNames.join(', ')}` }] });
  }
  return { reference: row.reference, ...testOutcomes[input.outcome as TestOutcome] };
}

/**
 * The stages a tester may give a test dispute from the console (docs/disputes.md "Test mode"): a
 * paid payment's dispute is raised at one of the first stages, a dispute moves to those its stage
 * table allows from where it stands. The operation decides which are allowed now.
 */
export function testDisputeStages(row: TransactionRow): readonly DisputeStage[] {
  if (row.type !== 'chargeback') return raisedStages;
  return stageTransitions[(JSON.parse(row.details) as { stage: DisputeStage }).stage] ?? [];
}

/** As `POST {base_url}/test/dispute` takes it; an untouched form raises at, or moves to, the first stage the form offers. */
function testDispute(row: TransactionRow, input: ActionInput) {
  const stage = input.stage || testDisputeStages(row)[0];
  return { reference: row.reference, ...(stage ? { stage } : {}), ...(input.amount ? { amount: input.amount } : {}) };
}

export const actions: Record<ActionName, Action> = {
  refund: {
    probe: {},
    input: optionalAmount,
    preview: (row, input, ctx) => previewRefund({ reference: row.reference, ...input }, ctx),
    confirmed: true,
    carried: withAmount,
    perform: async (row, input, ctx) => resultOf(await run(refund, { reference: row.reference, ...input }, ctx)),
  },
  capture: {
    probe: {},
    input: optionalAmount,
    preview: (row, input, ctx) => previewCapture({ reference: row.reference, ...input }, ctx),
    confirmed: true,
    carried: withAmount,
    perform: async (row, input, ctx) => resultOf(await run(capture, { reference: row.reference, ...input }, ctx)),
  },
  reversal: {
    probe: {},
    input: () => ({}),
    preview: (row, _input, ctx) => previewReversal({ reference: row.reference }, ctx),
    confirmed: true,
    carried: asInput,
    perform: async (row, _input, ctx) => resultOf(await run(reversal, { reference: row.reference }, ctx)),
  },
  cancel: {
    probe: {},
    input: () => ({}),
    preview: (row, _input, ctx) => {
      const { body, ctx: as } = cancelling(row, ctx);
      return previewCancel(body, as);
    },
    confirmed: false,
    carried: asInput,
    perform: async (row, _input, ctx) => {
      const { body, ctx: as } = cancelling(row, ctx);
      const done = await run(cancel, body, as);
      return { reference: done.reference, status: done.status };
    },
  },
  complete: {
    probe: { outcome: 'paid' },
    input: (form) => ({ outcome: field(form, 'outcome') ?? '' }),
    preview: (row, input, ctx) => previewCompleteTestPayment(completion(row, input), ctx),
    confirmed: true,
    carried: asInput,
    perform: async (row, input, ctx) => resultOf(await run(completeTestPayment, completion(row, input), ctx)),
  },
  resolve: {
    probe: { outcome: 'success', reason: '-' },
    input: (form) => ({ outcome: field(form, 'outcome') ?? '', failureCode: field(form, 'failureCode') ?? '', reason: (field(form, 'reason') ?? '').trim() }),
    preview: (row, input, ctx) => previewResolve(resolution(row, input), { ...ctx, caller: undefined }),
    confirmed: true,
    carried: asInput,
    perform: async (row, input, ctx) => {
      const done = await run(resolve, resolution(row, input), { ...ctx, caller: undefined });
      return { reference: done.reference, status: done.status };
    },
  },
  dispute: {
    probe: {},
    input: (form) => ({ stage: field(form, 'stage') ?? '', ...optionalAmount(form) }),
    preview: (row, input, ctx) => previewRaiseTestDispute(testDispute(row, input), ctx),
    confirmed: true,
    // The stage previewed is the one confirmed, and so is the amount.
    carried: (input, preview) => ({ ...withAmount(input, preview), stage: input.stage }),
    perform: async (row, input, ctx) => resultOf(await run(raiseTestDispute, testDispute(row, input), ctx)),
  },
  accept: {
    probe: {},
    input: () => ({}),
    preview: (row, _input, ctx) => previewAcceptDispute({ reference: row.reference }, ctx),
    confirmed: true,
    carried: asInput,
    perform: async (row, _input, ctx) => resultOf(await run(acceptDispute, { reference: row.reference }, ctx)),
  },
};

/** The actions the operations would accept on the transaction as it is now. */
export async function offeredActions(row: TransactionRow, ctx: ActionContext): Promise<Record<ActionName, boolean>> {
  const offered = await Promise.all(
    actionNames.map((name) =>
      actions[name].preview(row, actions[name].probe, ctx).then(
        () => true,
        (error: unknown) => {
          if (error instanceof Problem) return false;
          throw error;
        },
      ),
    ),
  );
  return Object.fromEntries(actionNames.map((name, i) => [name, offered[i]])) as Record<ActionName, boolean>;
}
