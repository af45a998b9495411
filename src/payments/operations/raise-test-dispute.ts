/**
 * The test helper's dispute (docs/disputes.md "Test mode"): `POST {base_url}/test/dispute`
 * `{reference, stage?, amount?, reasonCode?, reason?}` raises a dispute on a paid test payment, as
 * its cardholder's bank would through the acquirer, or moves a dispute it raised to the stage
 * the tester picks, so a merchant walks the path it wants to test (raised → chargeback →
 * reversed, second chargeback, pre-arbitration won or lost) and receives each stage's webhook.
 * It goes through the same record as an acquirer's notification (disputes.ts), only its connector
 * is the simulator's. Test mode only, as `/test/complete` (complete-test-payment.ts); a dispute an
 * acquirer told of moves by the acquirer's word alone. A dispute that would hold more than is left
 * of the payment (its refunds and other disputes counted, docs/disputes.md "What is left of a
 * payment") is refused, 422 `exceeds_disputable`: decided on what was read, and checked again
 * holding the sale when recorded, where the acquirer's word is only flagged.
 */
import { Problem } from '../../ground/problem.ts';
import { amountNumber, findCurrency, parseAmount } from '../../ground/amount.ts';
import { canAdvance, disputeStages, type DisputeStage } from '../../ground/dispute-stages.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { findOwnTransaction } from '../../store/transactions.ts';
import { newTransactionReference } from '../../lib/tokens.ts';
import { SIMULATED_DISPUTES } from '../../acquirer/dispute-service.ts';
import { compileTable } from '../requests/rows.ts';
import { amountSchema } from '../requests/common-fields.ts';
import { captureStatusOf } from '../follow-ups/authorisation.ts';
import { beyondRemaining, claimsAgain, loadDispute, recordDisputeWord, type DisputeWord, type OwnDispute } from '../follow-ups/disputes.ts';
import { leftOf, readRemaining, saleOf, type Remaining } from '../follow-ups/remaining.ts';
import { serializePayment } from '../serialize.ts';
import { parseFields, referenceField } from '../requests/fields.ts';
import { merchantOperation } from '../runner/operation.ts';

/** The stages a dispute may be raised at: the issuer's notice first, or its chargeback at once. */
export const raisedStages = ['notification', 'chargeback'] as const satisfies readonly DisputeStage[];

export const testDisputeTable = compileTable({
  reference: { ...referenceField, schema: { ...referenceField.schema, description: 'A paid test payment to raise a dispute on, or a test dispute to move.' } },
  stage: {
    enum: disputeStages,
    schema: { description: 'The stage to raise the dispute at (`notification` or `chargeback`; default `notification`), or to move a test dispute to.' },
  },
  amount: {
    schema: {
      ...amountSchema,
      description: 'Raising: the disputed amount, at most what is left of the payment, its refunds and other disputes counted (default all of it).',
    },
  },
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

/**
 * What the test helper is asked about: the transaction named, and when it is a dispute, the dispute
 * and its payment; what is left of the payment's money (remaining.ts), as read, for the payment or
 * the dispute's payment.
 */
interface Named {
  row: TransactionRow | undefined;
  dispute: OwnDispute | undefined;
  remaining: Remaining | undefined;
}

export interface TestDisputePlan {
  payment: TransactionRow;
  word: DisputeWord;
  /** The field whose dispute is refused when it would hold more than is left: the amount raised, the stage moved to. */
  claimedBy: '/amount' | '/stage';
}

const refusal = (field: string, code: string, message: string) => new Problem('validationFailed', { errors: [{ field, code, message }] });

/** What a dispute that holds more than is left is refused with, at the field that asked for it. */
const exceedsDisputable = (field: '/amount' | '/stage', why: string) => refusal(field, 'exceeds_disputable', why);

/** The new dispute's word (pure): a paid payment, an amount it covers and is left of it, a stage a dispute may start at. */
function raising(payment: TransactionRow, remaining: Remaining, request: TestDisputeRequest): TestDisputePlan {
  const paid = payment.status === 'success' && (payment.type === 'sale' || captureStatusOf(payment) === 'captured') && payment.parent_reference === null;
  if (!paid) throw refusal('/reference', 'not_paid', 'is not a paid payment; only a paid payment can be disputed');
  const stage = request.stage ?? 'notification';
  if (!(raisedStages as readonly string[]).includes(stage)) throw refusal('/stage', 'enum', `a dispute is raised at ${raisedStages.join(' or ')}`);
  const currency = findCurrency(payment.currency)!;
  // Without an amount, all that is left; when nothing is, all that was paid, which the check below refuses.
  let amountMinor = leftOf(remaining) > 0 ? leftOf(remaining) : remaining.paidMinor;
  if (request.amount !== undefined) {
    const parsed = parseAmount(request.amount, currency);
    if (!parsed.ok) throw refusal('/amount', parsed.code, parsed.message);
    if (parsed.minor <= 0 || parsed.minor > remaining.paidMinor)
      throw refusal('/amount', 'range', `must be more than 0 and not more than the ${amountNumber(remaining.paidMinor, currency)} paid`);
    amountMinor = parsed.minor;
  }
  // Both stages a dispute is raised at hold its amount (ground/dispute-stages.ts `stageHolds`).
  const beyond = beyondRemaining(remaining, amountMinor, currency);
  if (beyond !== undefined) throw exceedsDisputable('/amount', beyond);
  return {
    payment,
    claimedBy: '/amount',
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

/** The word moving a test dispute (pure): to a stage its table allows from where it stands, and, when it claims its amount again, one that is left. */
function moving({ row: chargeback, dispute, payment }: OwnDispute, remaining: Remaining, request: TestDisputeRequest): TestDisputePlan {
  if (dispute.connector !== SIMULATED_DISPUTES)
    throw new Problem('conflict', `Dispute ${chargeback.reference} is its acquirer's: only its acquirer's notifications move it.`);
  if (request.stage === undefined) throw refusal('/stage', 'required', 'give the stage to move the dispute to');
  const from = dispute.stage as DisputeStage;
  if (!canAdvance(from, request.stage)) throw new Problem('conflict', `Dispute ${chargeback.reference} is at ${from}; it cannot move to ${request.stage}.`);
  const beyond = claimsAgain(from, request.stage) ? beyondRemaining(remaining, chargeback.amount_minor, findCurrency(chargeback.currency)!) : undefined;
  if (beyond !== undefined) throw exceedsDisputable('/stage', `its move to ${request.stage}: ${beyond}`);
  return {
    payment,
    claimedBy: '/stage',
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
    const { read } = ports.store;
    const row = await findOwnTransaction(read, caller, request.reference);
    const dispute = row?.type === 'chargeback' ? await loadDispute(read, caller, row.reference) : undefined;
    const payment = dispute?.payment ?? row;
    return { row, dispute, remaining: payment && (await readRemaining(read, await saleOf(read, payment))) };
  },
  decide: ({ row, dispute, remaining }, request, { caller }): TestDisputePlan => {
    if (!row) throw new Problem('notFound', `No transaction with reference ${request.reference}.`);
    if (caller.mode !== 'test') throw new Problem('notFound', `Transaction ${row.reference} is live; only a test-mode payment can be disputed by the test helper.`);
    return dispute ? moving(dispute, remaining!, request) : raising(row, remaining!, request);
  },
  commit: async (tx, plan, { ports, now }) => {
    const outcome = await recordDisputeWord(tx, plan.payment, plan.word, { dialect: ports.store.dialect, secrets: ports.links.secrets, now });
    // What was left when decided was claimed meanwhile (refunds or disputes at once): checked again holding the sale, it no longer fits.
    if (outcome.kind === 'refused') throw exceedsDisputable(plan.claimedBy, outcome.why);
    // Another request moved it first: the stage it asked for may no longer follow.
    if (outcome.kind !== 'opened' && outcome.kind !== 'advanced')
      throw new Problem('conflict', `The dispute of ${plan.payment.reference} changed meanwhile; read it and try again.`);
    return outcome.row;
  },
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
