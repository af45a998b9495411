/**
 * Parses and validates a create-payment request (docs/api.md#create-a-payment) into a
 * `PaymentRequest`: the method and the details sent pick the flow (flow-of-request.ts, flows.ts),
 * then one table of fields (rows.ts), read with that flow's rules, checks the rest. Pure: no I/O.
 * Every failing field is reported at once; the 3-D Secure 2 fields (docs/api.md#3-d-secure-2-data)
 * are checked by threeds/validate.ts on the same field engine (ground/field-engine.ts).
 */
import type { FieldError } from '../../ground/problem.ts';
import { findCurrency, parseAmount, type Currency } from '../../ground/amount.ts';
import { checkTable, fail, isObject, type CompiledField } from '../../ground/field-engine.ts';
import { compileTable, type RequestFieldSpec, type RequestRules, type RequestRun } from './rows.ts';
import { amountSchema, commonFields, commonFieldsOf, type CommonFields } from './common-fields.ts';
import { NOTHING_SENT, paymentFlows, recogniseFlow, sequenceSourceOf } from './flow-of-request.ts';
import { orderLinesAddingUp } from './order-lines.ts';
import { parseIsoDuration } from '../../lib/duration.ts';
import type { MerchantSettings } from '../../merchants/merchants.ts';
import { methods, paymentMethods, retiredMethods, type MethodSpec, type PaymentMethod } from '../../ground/payment-method.ts';
import { cardBrands, type CardBrand } from '../../ground/card-brand.ts';
import { validateThreeDS, type ThreeDSData } from '../../threeds/validate.ts';
import { parseWalletToken, type WalletPaymentToken } from '../../wallet/index.ts';
import { checkValidationUrl } from '../../wallet/merchant-session.ts';
import { flowOf, flows, type DetailsField, type PaymentFlow } from '../flows.ts';

export interface PaymentRequest extends CommonFields {
  method: PaymentMethod;
  flow: PaymentFlow;
  type: 'sale' | 'authorise';
  amountMinor: number;
  currency: Currency;
  brand?: CardBrand;
  storeInVault: boolean;
  orderLines?: unknown[];
  /** The customer's bank, as a BIC, for a method that takes one (docs/payment-methods.md). */
  issuer?: string;
  expirationDuration?: string;
  expirationMs?: number;
  details: {
    vaultAccessToken?: string;
    walletPayEncryptedToken?: WalletPaymentToken;
    walletPayValidationUrl?: string;
    walletPayDomainName?: string;
  };
  threeDS: ThreeDSData;
}

const MIN_EXPIRATION_MS = 60_000;
/** P60D: pay-by-link plugins of the real API send up to sixty days (docs/interop.md). */
const MAX_EXPIRATION_MS = 60 * 24 * 3600_000;

// ── Formats ──────────────────────────────────────────────────────────────────────────────

const CURRENCY_CODE = /^[A-Za-z]{3}$/;
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
/** Stands in for a refused currency, so the amount's own faults are still reported: 4 is the most decimals an ISO 4217 currency has. */
const ANY_CURRENCY: Currency = { code: 'xxx', numeric: '', exponent: 4 };

function currencyCode(value: unknown, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  if (typeof value !== 'string' || !CURRENCY_CODE.test(value)) return fail(run, field, 'format', 'must be a three-letter ISO 4217 code such as EUR');
  const currency = findCurrency(value);
  if (!currency) return fail(run, field, 'enum', 'is not an ISO 4217 currency code');
  // The method was read first (methodTable): a currency its scheme does not take is refused here, not at the bank.
  const method = run.values.method as PaymentMethod | undefined;
  const taken: MethodSpec['currencies'] | undefined = method && methods[method].currencies;
  if (taken && taken !== 'all' && !taken.includes(currency.code)) {
    return fail(run, field, 'not_allowed', `is not taken by method ${method}, which takes ${taken.map((code) => code.toUpperCase()).join(', ')}`);
  }
  return currency;
}

/** A BIC (ISO 9362): bank, country, location and an optional branch. */
const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;
const methodsTakingIssuer = paymentMethods.filter((method) => methods[method].issuer);

function issuerBic(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  if (run.flow !== undefined && !flowOf(run.flow).issuer) return fail(run, field, 'not_allowed', `is only allowed with method ${methodsTakingIssuer.join(', ')}`);
  const bic = value.toUpperCase();
  return BIC.test(bic) ? bic : fail(run, field, 'format', "must be the bank's BIC, such as INGBNL2A");
}

function amountInCurrency(value: unknown, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const parsed = parseAmount(value, (run.values.currency as Currency | undefined) ?? ANY_CURRENCY);
  return parsed.ok ? parsed.minor : fail(run, field, parsed.code, parsed.message);
}

function walletValidationUrl(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const refused = checkValidationUrl(value, field.pointer);
  if (!refused) return value;
  run.errors.push(refused);
  return undefined;
}

function hostName(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  return HOST_NAME.test(value) ? value.toLowerCase() : fail(run, field, 'format', 'must be a host name only, such as shop.example.com');
}

function walletToken(value: unknown, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const parsed = parseWalletToken(value, field.pointer);
  run.errors.push(...parsed.errors);
  return parsed.token;
}

function expiration(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const ms = parseIsoDuration(value);
  if (ms === undefined) return fail(run, field, 'format', 'must be an ISO 8601 duration such as PT15M');
  if (ms < MIN_EXPIRATION_MS || ms > MAX_EXPIRATION_MS) return fail(run, field, 'range', 'must be between PT1M and P60D');
  return { duration: value, ms };
}

const isYes = (value: unknown): boolean => value === 'yes';

// ── The tables ───────────────────────────────────────────────────────────────────────────

/** The details fields (docs/api.md#the-details-object). */
const detailsFields = {
  vaultAccessToken: { type: 'string', schema: { description: 'Pays with the stored card this token names (a vault payment).' } },
  walletPayValidationUrl: {
    type: 'string',
    format: walletValidationUrl,
    schema: { format: 'uri', pattern: '^https://', description: "The wallet's merchant validation URL, one of its official validation hosts (hybrid flow)." },
  },
  walletPayDomainName: { type: 'string', format: hostName, schema: { format: 'hostname', description: 'The domain of the checkout page (hybrid flow).' } },
  walletPayEncryptedToken: {
    format: walletToken,
    schema: {
      anyOf: [
        { title: 'token object', type: 'object', additionalProperties: true },
        { title: 'token as JSON text', type: 'string' },
      ],
      description: 'The wallet token (version EC_v1) exactly as the wallet gave it: the JSON object, or that object as a JSON string (direct flow).',
    },
  },
  expirationDuration: {
    type: 'string',
    format: expiration,
    schema: { pattern: '^P', description: 'ISO 8601 duration from PT1M to P60D (default PAYMENT_EXPIRY).', examples: ['PT15M'] },
  },
} satisfies Record<DetailsField, RequestFieldSpec>;

/** The types a request may ask for: those of any payment flow. */
const requestTypes = [...new Set(paymentFlows.flatMap((flow) => flows[flow].transactionTypes))];

/** "authorise is only available for method card": the methods of the flows that allow the type. */
function typeOnlyFor(type: string): string {
  const methods = new Set(paymentFlows.filter((flow) => (flows[flow].transactionTypes as readonly string[]).includes(type)).map((flow) => flows[flow].method));
  return `${type} is only available for method ${[...methods].join(', ')}`;
}

const transactionType = { enum: requestTypes, allowedIn: (flow) => flow.transactionTypes, notAllowedMessage: typeOnlyFor } satisfies RequestFieldSpec;
const onlyForCardPayments = () => 'is only allowed for card payments';

/** `method` alone, first: it picks the flow whose rules the other fields are read with. */
export const methodTable = compileTable({
  method: { required: true, enum: paymentMethods, enabledIn: 'methods' },
});

export const paymentTable = compileTable({
  currency: { required: true, format: currencyCode, schema: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code, any case.' } },
  amount: { required: true, format: amountInCurrency, schema: amountSchema },
  details: { type: 'object', fields: detailsFields, typesFirst: true, ruledByFlow: true },
  type: transactionType,
  transactionType: { ...transactionType, agreesWith: 'type' },
  ...commonFields,
  brand: { enum: cardBrands, enabledIn: 'cardBrands', allowedIn: (flow) => (flow.brand ? cardBrands : []), notAllowedMessage: onlyForCardPayments },
  storeInVault: {
    enum: ['yes', 'no'],
    enumMessage: 'must be yes or no',
    allowedIn: (flow) => (flow.storeInVault ? ['yes', 'no'] : ['no']),
    notAllowedMessage: onlyForCardPayments,
    format: isYes,
    default: false,
  },
  orderLines: {
    type: 'array of objects',
    maxItems: 200,
    items: 'lines',
    required: (flow) => flow.orderLinesRequired === true,
    requiredMessage: `is required for method ${paymentMethods.filter((method) => methods[method].orderLinesRequired).join(', ')}`,
  },
  issuer: {
    type: 'string',
    maxLength: 11,
    format: issuerBic,
    schema: {
      pattern: '^[A-Za-z0-9]{8}([A-Za-z0-9]{3})?$',
      description: `The customer's bank as a BIC (method ${methodsTakingIssuer.join(', ')}); absent: the customer picks it.`,
    },
  },
});

// ── The request ──────────────────────────────────────────────────────────────────────────

type ParsedDetails = PaymentRequest['details'] & { expirationDuration?: { duration: string; ms: number } };

export function parsePaymentRequest(
  body: Record<string, unknown>,
  { settings, webhooks, returnUrlSchemes }: RequestRules & { settings: MerchantSettings },
): { errors: FieldError[]; request?: PaymentRequest } {
  const run: RequestRun = { flow: undefined, settings, webhooks, returnUrlSchemes, errors: [], values: {} };
  const retired = typeof body.method === 'string' ? retiredMethods[body.method] : undefined;
  if (retired === undefined) checkTable(methodTable, body, run, run.values);
  else run.errors.push({ field: '/method', code: 'retired', message: `is no longer offered: ${retired}` });
  const method = run.values.method as PaymentMethod | undefined;
  const flow = method === undefined ? undefined : recogniseFlow(method, isObject(body.details) ? body.details : NOTHING_SENT, sequenceSourceOf(body));
  run.flow = flow;
  checkTable(paymentTable, body, run, run.values);

  // Without a flow (no method, or a refused one) the 3-D Secure fields are still checked, as for a card payment.
  const threeDS = validateThreeDS(body, flows[flow ?? 'card'].threeDS);
  run.errors.push(...threeDS.errors);

  const v = run.values;
  if (flow !== undefined && flowOf(flow).orderLinesRequired && Array.isArray(v.orderLines) && typeof v.amount === 'number' && v.currency) {
    run.errors.push(...orderLinesAddingUp(v.orderLines as Record<string, unknown>[], v.amount, v.currency as Currency));
  }
  if (run.errors.length > 0 || flow === undefined) return { errors: run.errors };
  const { expirationDuration, ...details } = (v.details ?? {}) as ParsedDetails;
  return {
    errors: run.errors,
    // The common fields spread last: V8 builds `{ ...fields, more }` with a fresh hidden class every time, at microseconds a request.
    request: {
      method: flows[flow].method,
      flow,
      type: (v.type ?? v.transactionType ?? flows[flow].transactionTypes[0]) as PaymentRequest['type'],
      amountMinor: v.amount as number,
      currency: v.currency as Currency,
      brand: v.brand as CardBrand | undefined,
      storeInVault: v.storeInVault as boolean,
      orderLines: v.orderLines as unknown[] | undefined,
      issuer: v.issuer as string | undefined,
      expirationDuration: expirationDuration?.duration,
      expirationMs: expirationDuration?.ms,
      details,
      threeDS: threeDS.data,
      ...commonFieldsOf(v),
    },
  };
}
