/**
 * Which flow a create-payment request asks for (flows.ts `recognisedBy`): its method, and the
 * details fields that mark another flow of that method than the plain one. Read before the fields
 * are checked, as the flow decides what they may be (payment-request.ts), and by the OpenAPI
 * document's if/then rules (contract/request-schemas.ts). Pure: no I/O.
 */
import { given, isObject } from '../../ground/field-engine.ts';
import { paymentMethods, type PaymentMethod } from '../../ground/payment-method.ts';
import { flowNames, flows, type DetailsField, type FlowSpec, type PaymentFlow } from '../flows.ts';

/** The flows a create-payment request can ask for (not the vault enrollment's). */
export const paymentFlows = flowNames.filter((flow): flow is PaymentFlow => 'detailsSent' in flows[flow].recognisedBy);

/**
 * A details field marks its flow (flows.ts `recognisedBy`) when given, whatever its value, so
 * a refused wallet field is reported as itself rather than as the hosted flow's missing
 * returnUrl. A vault access token marks the vault flow only as a string: one of another type
 * is a card payment's type error.
 */
const marksOnlyAsString: ReadonlySet<DetailsField> = new Set(['vaultAccessToken']);

export interface MethodFlows {
  /** In table order: the direct wallet's token wins over the hybrid fields, an off-session vault payment over the vault's page. */
  marked: { flow: PaymentFlow; marks: readonly { name: DetailsField; onlyAsString: boolean }[]; sequenceSource?: 'MIT' }[];
  /** The method's flow when no details field marks another. */
  plain: PaymentFlow;
}

function methodFlows(method: PaymentMethod): MethodFlows {
  const own = paymentFlows.filter((flow) => flows[flow].method === method);
  const plain = own.find((flow) => flows[flow].recognisedBy.detailsSent.length === 0);
  if (plain === undefined) throw new Error(`flows.ts gives method ${method} no flow without details`);
  const marked = own
    .filter((flow) => flow !== plain)
    .map((flow) => ({
      flow,
      marks: flows[flow].recognisedBy.detailsSent.map((name) => ({ name, onlyAsString: marksOnlyAsString.has(name) })),
      sequenceSource: (flows[flow].recognisedBy as Extract<FlowSpec['recognisedBy'], { detailsSent: unknown }>).sequenceSource,
    }));
  return { marked, plain };
}

export const flowsByMethod = Object.fromEntries(paymentMethods.map((method) => [method, methodFlows(method)])) as Record<PaymentMethod, MethodFlows>;

export const NOTHING_SENT: Record<string, unknown> = Object.freeze({});

/** `sequenceInfo.source` as sent (docs/api.md#sequence-information); its own validation reports a wrong one. */
export function sequenceSourceOf(body: Record<string, unknown>): unknown {
  return isObject(body.sequenceInfo) ? body.sequenceInfo.source : undefined;
}

export function recogniseFlow(method: PaymentMethod, details: Record<string, unknown>, sequenceSource: unknown): PaymentFlow {
  const { marked, plain } = flowsByMethod[method];
  for (const { flow, marks, sequenceSource: wanted } of marked) {
    if (wanted !== undefined && sequenceSource !== wanted) continue;
    for (const mark of marks) {
      const value = details[mark.name];
      if (given(value) && (!mark.onlyAsString || typeof value === 'string')) return flow;
    }
  }
  return plain;
}

/**
 * The flow a create-payment body asks for, read before it is validated (a request that another
 * operation runs, create-payment.ts): undefined without a method Kassa knows.
 */
export function requestedFlow(body: Record<string, unknown>): PaymentFlow | undefined {
  const { method } = body;
  if (typeof method !== 'string' || !(paymentMethods as readonly string[]).includes(method)) return undefined;
  return recogniseFlow(method as PaymentMethod, isObject(body.details) ? body.details : NOTHING_SENT, sequenceSourceOf(body));
}
