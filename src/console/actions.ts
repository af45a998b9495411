/**
 * What the console can do to a transaction, as data: each action runs the same operation as the
 * merchant API or the command line (payments/operations/), for the transaction's own merchant
 * and mode, so it gets the same checks, events and webhooks. The console decides only which
 * buttons to show; the operation decides whether the action is allowed.
 */
import { Problem } from '../ground/problem.ts';
import type { TransactionRow } from '../store/schema.ts';
import type { Caller } from '../merchants/merchants.ts';
import type { Ports } from '../payments/ports.ts';
import { pageTokenOfPayment } from '../payments/serialize.ts';
import type { Log } from '../payments/operations/operation.ts';
import { run } from '../payments/operations/run.ts';
import { refund } from '../payments/operations/refund.ts';
import { capture } from '../payments/operations/capture.ts';
import { reversal } from '../payments/operations/reversal.ts';
import { cancel } from '../payments/operations/cancel.ts';
import { resolve, type Resolution } from '../payments/operations/resolve.ts';
import type { Form } from '../lib/page-security.ts';
import { field } from '../lib/page-security.ts';

export const actionNames = ['refund', 'capture', 'reversal', 'cancel', 'resolve'] as const;
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
  /** Whether its button is shown for the transaction as it is now. */
  offered(row: TransactionRow, details: Record<string, unknown>): boolean;
  input(form: Form): ActionInput;
  /** Runs the operation; answers the transaction it made or changed. */
  perform(row: TransactionRow, input: ActionInput, ctx: ActionContext): Promise<{ reference: string; status: string }>;
}

const resultOf = (answer: Record<string, unknown>) => ({ reference: String(answer.reference), status: String(answer.status) });

export const actions: Record<ActionName, Action> = {
  refund: {
    offered: (row, details) => row.status === 'success' && (row.type === 'sale' || (row.type === 'authorise' && details.captureReference !== undefined)),
    input: optionalAmount,
    perform: async (row, input, ctx) => resultOf(await run(refund, { reference: row.reference, ...input }, ctx)),
  },
  capture: {
    offered: (row, details) => row.type === 'authorise' && row.status === 'success' && details.captureStatus === 'authorised',
    input: optionalAmount,
    perform: async (row, input, ctx) => resultOf(await run(capture, { reference: row.reference, ...input }, ctx)),
  },
  reversal: {
    offered: (row, details) => row.type === 'authorise' && row.status === 'success' && details.captureStatus === 'authorised',
    input: () => ({}),
    perform: async (row, _input, ctx) => resultOf(await run(reversal, { reference: row.reference }, ctx)),
  },
  cancel: {
    offered: (row) => row.status === 'pending' && row.type !== 'credit',
    input: () => ({}),
    // The merchant's own cancel (cause merchant_cancel), through the payment's cancel address as the API has it.
    perform: async (row, _input, ctx) => {
      const pageToken = pageTokenOfPayment(row, ctx.ports.links.secrets);
      const done = await run(cancel, { pageToken }, { ...ctx, caller: { merchantId: ctx.caller.merchantId } });
      return { reference: done.reference, status: done.status };
    },
  },
  resolve: {
    offered: (row) => row.status === 'manualintervention',
    input: (form) => ({ outcome: field(form, 'outcome') ?? '', failureCode: field(form, 'failureCode') ?? '', reason: (field(form, 'reason') ?? '').trim() }),
    perform: async (row, input, ctx) => {
      if (!input.reason) throw Problem.validation([{ field: '/reason', code: 'required', message: 'give the reason' }]);
      const resolution = { reference: row.reference, outcome: input.outcome, ...(input.failureCode ? { failureCode: input.failureCode } : {}) } as Resolution;
      const done = await run(resolve, resolution, { ...ctx, caller: undefined });
      return { reference: done.reference, status: done.status };
    },
  },
};
