/**
 * The test helper's dispute (docs/disputes.md "Test mode"): `POST {base_url}/test/dispute`
 * `{reference, stage?, amount?, reasonCode?, reason?}` raises a dispute on a paid test payment, as
 * its cardholder's bank would through the acquirer, or moves a dispute it raised to the stage
 * the tester picks, so a merchant walks the path it wants to test (raised → chargeback →
 * reversed, second chargeback, pre-arbitration won or lost) and receives each stage's webhook.
 * It goes through the same record as an acquirer's notification (disputes.ts), only its connector
 * is the simulator's. Test mode only, as `/test/complete` (complete-test-payment.ts); a dispute an
 * acquirer told of moves by the acquirer's word alone.
 */
import { Problem } from '../../ground/problem.ts';
import { amountNumber, findCurrency, parseAmount } from '../../ground/amount.ts';
import { canAdvance, disputeStages, type DisputeStage } from '../../ground/dispute-stages.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { findOwnTransaction } from '../../store/transactions.ts';
import { newTransactionReference } from '../../lib/tokens.ts';
import { SIMULATED_DISPUTES } from '../../acquirer/dispute-service.ts';
import { amountSchema, compileTable } from '../common-fields.ts';
import { captureStatusOf } from '../authorisation.ts';
import { loadDispute, recordDisputeWord, type DisputeWord, type OwnDispute } from '../disputes.ts';
import { serializePayment } from '../serialize.ts';
import { parseFields, referenceField } from './fields.ts';
import { merchantOperation } from './operation.ts';

/** The stages a dispute may be raised at: the issuer's notice first, or its chargeback at once. */
export const raisedStages = ['notification', 'chargeback'] as const satisfies readonly DisputeStage[];

export const testDisputeTable = compileTable({
  reference: { ...referenceField, schema: { ...referenceField.schema, description: 'A paid test payment to raise a dispute on, or a test dispute to move.' } },
  stage: {
    enum: disputeStages,
    schema: { description: 'The stage to raise the dispute at (`notification` or `chargeback`; default `notification`), or to move a test dispute to.' },
  },
  amount: { schema: { ...amountSchema, description: "Raising: the disputed amount, at most the payment's (default all of it)." } },
  reasonCode: { type: 'string', maxLength: 16, schema: { description: "Raising: the scheme's reason code the dispute carries." } },
  reason: { type: 'string', maxLength: 200, schema: { description: 'Raising: the reason the dispute carries.' } },
});

interface TestDisputeRequest {
  reference: string;
  stage: DisputeStage | undefined;
  amount: unknown;
  reasonCode: string | undefined;
  reason: string | undefined;
}

export function parseTestDispute(body: Record<string, unknown>): TestDisputeRequest {
  const values = parseFields(testDisputeTable, body);
  return {
    reference: values.reference as string,
    stage: values.stage as DisputeStage | undefined,
    amount: body.amount ?? undefined,
    reasonCode: values.reasonCode as string | undefined,
    reason: values.reason as string | undefined,
  };
}

/** What the test helper is asked about: the transaction named, and when it is a dispute, the dispute and its payment. */
interface Named {
  row: TransactionRow | undefined;
  dispute: OwnDispute | undefined;
}

export interface TestDisputePlan {
  payment: TransactionRow;
  word: DisputeWord;
}

const refusal = (field: string, code: string, message: string) => Problem.validation([{ field, code, message }]);

/** The new dispute's word (pure): a paid payment, an amount it covers, a stage a dispute may start at. */
function raising(payment: TransactionRow, request: TestDisputeRequest): TestDisputePlan {
  const paid = payment.status === 'success' && (payment.type === 'sale' || captureStatusOf(payment) === 'captured') && payment.parent_reference === null;
  if (!paid) throw refusal('/reference', 'not_paid', 'is not a paid payment; only a paid payment can be disputed');
  const stage = request.stage ?? 'notification';
  if (!(raisedStages as readonly string[]).includes(stage)) throw refusal('/stage', 'enum', `a dispute is raised at ${raisedStages.join(' or ')}`);
  const currency = findCurrency(payment.currency)!;
  let amountMinor = payment.amount_minor;
  if (request.amount !== undefined) {
    const parsed = parseAmount(request.amount, currency);
    if (!parsed.ok) throw refusal('/amount', parsed.code, parsed.message);
    if (parsed.minor <= 0 || parsed.minor > payment.amount_minor)
      throw refusal('/amount', 'range', `must be more than 0 and not more than the ${amountNumber(payment.amount_minor, currency)} paid`);
    amountMinor = parsed.minor;
  }
  return {
    payment,
    word: {
      connector: SIMULATED_DISPUTES,
      acquirerReference: newTransactionReference(),
      stage,
      amountMinor,
      currency: payment.currency,
      reasonCode: request.reasonCode,
      reason: request.reason,
      cause: 'test_helper',
      detail: `${stage}, ${amountNumber(amountMinor, currency)} ${payment.currency.toUpperCase()}${request.reason ? `: ${request.reason}` : ''}`,
    },
  };
}

/** The word moving a test dispute (pure): to a stage its table allows from where it stands. */
function moving({ row: chargeback, dispute, payment }: OwnDispute, request: TestDisputeRequest): TestDisputePlan {
  if (dispute.connector !== SIMULATED_DISPUTES) throw Problem.conflict(`Dispute ${chargeback.reference} is its acquirer's: only its acquirer's notifications move it.`);
  if (request.stage === undefined) throw refusal('/stage', 'required', 'give the stage to move the dispute to');
  const from = dispute.stage as DisputeStage;
  if (!canAdvance(from, request.stage)) throw Problem.conflict(`Dispute ${chargeback.reference} is at ${from}; it cannot move to ${request.stage}.`);
  return {
    payment,
    word: {
      connector: SIMULATED_DISPUTES,
      acquirerReference: dispute.acquirer_reference,
      stage: request.stage,
      amountMinor: chargeback.amount_minor,
      currency: chargeback.currency,
      cause: 'test_helper',
      detail: `${request.stage}, ${amountNumber(chargeback.amount_minor, findCurrency(chargeback.currency)!)} ${chargeback.currency.toUpperCase()}`,
    },
  };
}

export const raiseTestDispute = merchantOperation({
  name: 'raiseTestDispute',
  scope: 'test/dispute',
  parse: parseTestDispute,
  load: async (request, { ports, caller }): Promise<Named> => {
    const row = await findOwnTransaction(ports.store.read, caller, request.reference);
    return { row, dispute: row?.type === 'chargeback' ? await loadDispute(ports.store.read, caller, row.reference) : undefined };
  },
  decide: ({ row, dispute }, request, { caller }): TestDisputePlan => {
    if (!row) throw Problem.notFound(`No transaction with reference ${request.reference}.`);
    if (caller.mode !== 'test') throw Problem.notFound(`Transaction ${row.reference} is live; only a test-mode payment can be disputed by the test helper.`);
    return dispute ? moving(dispute, request) : raising(row, request);
  },
  commit: async (tx, plan, { ports, now }) => {
    const outcome = await recordDisputeWord(tx, plan.payment, plan.word, { dialect: ports.store.dialect, secrets: ports.links.secrets, now });
    // Another request moved it first: the stage it asked for may no longer follow.
    if (outcome.kind !== 'opened' && outcome.kind !== 'advanced')
      throw Problem.conflict(`The dispute of ${plan.payment.reference} changed meanwhile; read it and try again.`);
    return outcome.row;
  },
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
