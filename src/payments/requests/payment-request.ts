/**
 * Parses and validates a create-payment request (docs/api.md#create-a-payment) into a
 * `PaymentRequest`: the method and the details sent pick the flow (flows.ts), then one table
 * of fields, read with that flow's rules, checks the rest. Pure: no I/O. Every failing field
 * is reported at once; the 3-D Secure 2 fields (docs/api.md#3-d-secure-2-data) are checked by threeds/validate.
 */
import type { FieldError } from '../ground/problem.ts';
import type { InvoiceLine } from '../acquirer/connector.ts';
import { findCurrency, formatAmount, parseAmount, type AmountResult, type Currency } from '../ground/amount.ts';
import {
  amountSchema,
  checkTable,
  commonFields,
  commonFieldsOf,
  compileTable,
  fail,
  given,
  isObject,
  type CommonFields,
  type CompiledField,
  type FieldRun,
  type RequestRules,
  type FieldSpec,
} from './common-fields.ts';
import { parseIsoDuration } from '../lib/duration.ts';
import type { MerchantSettings } from '../merchants/merchants.ts';
import { methods, paymentMethods, retiredMethods, type MethodSpec, type PaymentMethod } from '../ground/payment-method.ts';
import { cardBrands, type CardBrand } from '../ground/card-brand.ts';
import { validateThreeDS, type ThreeDSData } from '../threeds/validate.ts';
import { parseWalletToken, type WalletPaymentToken } from '../wallet/index.ts';
import { checkValidationUrl } from '../wallet/merchant-session.ts';
import { flowNames, flowOf, flows, type DetailsField, type FlowSpec, type PaymentFlow } from './flows.ts';

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

function currencyCode(value: unknown, field: CompiledField, run: FieldRun): unknown {
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

function issuerBic(value: string, field: CompiledField, run: FieldRun): unknown {
  if (run.flow !== undefined && !flowOf(run.flow).issuer) return fail(run, field, 'not_allowed', `is only allowed with method ${methodsTakingIssuer.join(', ')}`);
  const bic = value.toUpperCase();
  return BIC.test(bic) ? bic : fail(run, field, 'format', "must be the bank's BIC, such as INGBNL2A");
}

function amountInCurrency(value: unknown, field: CompiledField, run: FieldRun): unknown {
  const parsed = parseAmount(value, (run.values.currency as Currency | undefined) ?? ANY_CURRENCY);
  return parsed.ok ? parsed.minor : fail(run, field, parsed.code, parsed.message);
}

function walletValidationUrl(value: string, field: CompiledField, run: FieldRun): unknown {
  const refused = checkValidationUrl(value, field.pointer);
  if (!refused) return value;
  run.errors.push(refused);
  return undefined;
}

function hostName(value: string, field: CompiledField, run: FieldRun): unknown {
  return HOST_NAME.test(value) ? value.toLowerCase() : fail(run, field, 'format', 'must be a host name only, such as shop.example.com');
}

function walletToken(value: unknown, field: CompiledField, run: FieldRun): unknown {
  const parsed = parseWalletToken(value, field.pointer);
  run.errors.push(...parsed.errors);
  return parsed.token;
}

function expiration(value: string, field: CompiledField, run: FieldRun): unknown {
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
} satisfies Record<DetailsField, FieldSpec>;

const paymentFlows = flowNames.filter((flow): flow is PaymentFlow => 'detailsSent' in flows[flow].recognisedBy);

/** The types a request may ask for: those of any payment flow. */
const requestTypes = [...new Set(paymentFlows.flatMap((flow) => flows[flow].transactionTypes))];

/** "authorise is only available for method card": the methods of the flows that allow the type. */
function typeOnlyFor(type: string): string {
  const methods = new Set(paymentFlows.filter((flow) => (flows[flow].transactionTypes as readonly string[]).includes(type)).map((flow) => flows[flow].method));
  return `${type} is only available for method ${[...methods].join(', ')}`;
}

const transactionType = { enum: requestTypes, allowedIn: (flow) => flow.transactionTypes, notAllowedMessage: typeOnlyFor } satisfies FieldSpec;
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

// ── Recognising the flow ─────────────────────────────────────────────────────────────────

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

const NOTHING_SENT: Record<string, unknown> = Object.freeze({});

/** `sequenceInfo.source` as sent (docs/api.md#sequence-information); its own validation reports a wrong one. */
function sequenceSourceOf(body: Record<string, unknown>): unknown {
  return isObject(body.sequenceInfo) ? body.sequenceInfo.source : undefined;
}

function recogniseFlow(method: PaymentMethod, details: Record<string, unknown>, sequenceSource: unknown): PaymentFlow {
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

// ── The request ──────────────────────────────────────────────────────────────────────────

type ParsedDetails = PaymentRequest['details'] & { expirationDuration?: { duration: string; ms: number } };

export function parsePaymentRequest(
  body: Record<string, unknown>,
  { settings, webhooks, returnUrlSchemes }: RequestRules & { settings: MerchantSettings },
): { errors: FieldError[]; request?: PaymentRequest } {
  const run: FieldRun = { flow: undefined, settings, webhooks, returnUrlSchemes, errors: [], values: {} };
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

/**
 * The order lines a pay-later method invoices (docs/payment-methods.md): each names what was sold,
 * how many, and its total price in the payment's currency, and the totals add up to the amount
 * exactly, as the method's own checkout refuses an invoice that does not.
 */
/** Line types that take money off the order whatever the sign of their total (docs/payment-methods.md). */
const deducted: ReadonlySet<string> = new Set(['DISCOUNT', 'STORE_CREDIT', 'GIFT_CARD']);

export function orderLinesAddingUp(lines: readonly Record<string, unknown>[], amountMinor: number, currency: Currency): FieldError[] {
  const errors: FieldError[] = [];
  if (lines.length === 0) return [{ field: '/orderLines', code: 'min_items', message: 'must list at least one line' }];
  let total = 0;
  lines.forEach((line, index) => {
    const at = `/orderLines/${index}`;
    if (typeof line.name !== 'string' || line.name.trim() === '') errors.push({ field: `${at}/name`, code: 'required', message: 'is required' });
    const quantity = quantityError(line.quantity);
    if (quantity) errors.push({ field: `${at}/quantity`, ...quantity });
    const price = signedAmount(line.totalPrice, currency);
    if (!price.ok) errors.push({ field: `${at}/totalPrice`, code: price.code, message: price.message });
    else total += deducted.has(line.type as string) ? -Math.abs(price.minor) : price.minor;
  });
  if (errors.length === 0 && total !== amountMinor) {
    errors.push({
      field: '/orderLines',
      code: 'total_mismatch',
      message: `the lines' totalPrice add up to ${formatAmount(total, currency)}, not the amount ${formatAmount(amountMinor, currency)}`,
    });
  }
  return errors;
}

/** Most of one thing a line may count (docs/api.md "Order lines"): far above any basket, far below where a number stops being exact. */
export const MAX_QUANTITY = 1_000_000;
/** Decimal places a quantity may have: a weight in grams of a kilogram, a length in millimetres of a metre. */
const QUANTITY_DECIMALS = 3;
/** A quantity as amounts are written (ground/amount.ts): digits, then a point and digits; no sign, exponent, hex or spaces. */
const QUANTITY = /^(\d+)(?:\.(\d+))?$/;

/**
 * What is wrong with a line's quantity, if anything: it is a JSON number or a string in that
 * grammar, above 0 and at most MAX_QUANTITY. A number is read in its shortest decimal form, so
 * `1e-7` and `1e308` are refused as the strings `"1e-7"` and `"1e400"` are; `Number()` alone took
 * them, and `"Infinity"`, `"0x10"` and `" 1 "` too.
 */
function quantityError(value: unknown): Pick<FieldError, 'code' | 'message'> | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return { code: 'type', message: 'must be a number or a numeric string' };
  const match = QUANTITY.exec(typeof value === 'number' ? String(value) : value);
  if (!match) return { code: 'format', message: 'must be a decimal number such as 2 or 1.5, without sign, exponent or spaces' };
  if ((match[2] ?? '').replace(/0+$/, '').length > QUANTITY_DECIMALS) return { code: 'decimals', message: `allows ${QUANTITY_DECIMALS} decimal places` };
  const quantity = Number(value);
  if (!(quantity > 0 && quantity <= MAX_QUANTITY)) return { code: 'range', message: `must be above 0 and at most ${MAX_QUANTITY}` };
  return undefined;
}

/**
 * The order lines of a payment as a pay-later method's invoice (acquirer/connector.ts
 * `InvoiceLine`): each line's total in minor units, signed as it counts towards the amount (a
 * discount negative), read exactly as `orderLinesAddingUp` checked it at creation.
 */
export function invoiceOf(lines: readonly Record<string, unknown>[], currency: Currency): InvoiceLine[] {
  return lines.map((line) => {
    const price = signedAmount(line.totalPrice, currency);
    const total = price.ok ? price.minor : 0;
    const vatRate = Number(line.vatRate);
    return {
      name: String(line.name ?? '').trim(),
      ...(typeof line.code === 'string' && line.code.trim() !== '' ? { code: line.code.trim() } : {}),
      quantity: Number(line.quantity),
      totalMinor: deducted.has(line.type as string) ? -Math.abs(total) : total,
      ...(line.vatRate !== undefined && line.vatRate !== null && line.vatRate !== '' && Number.isFinite(vatRate) ? { vatRate } : {}),
    };
  });
}

/**
 * How far, in minor units, a line's JSON number may lie from a whole minor unit and still be read
 * as it. The shop plugins compute a line's total in binary floating point (price plus tax, row total
 * minus discount), so a total of 68.99 can arrive as 68.99000000000001 (docs/payment-methods.md "What the request
 * takes"); a true extra decimal (68.995) is half a unit off and still refused.
 */
const FLOAT_NOISE_MINOR = 1e-6;

/** A JSON number carrying only binary noise around a whole minor unit, as that amount's decimal text; anything else unchanged. */
function withoutFloatNoise(value: unknown, currency: Currency): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  const minor = value * 10 ** currency.exponent;
  const whole = Math.round(minor);
  // Only to recognise the noise; the amount itself is then parsed from its decimal text, as every amount.
  return Math.abs(minor - whole) < FLOAT_NOISE_MINOR ? formatAmount(Math.abs(whole), currency) : Math.abs(value);
}

/** A line's total: a discount's is negative, a free line's zero (parseAmount takes positive amounts only). */
function signedAmount(value: unknown, currency: Currency): AmountResult {
  const negative = (typeof value === 'number' && value < 0) || (typeof value === 'string' && value.trim().startsWith('-'));
  const magnitude = typeof value === 'number' ? withoutFloatNoise(value, currency) : typeof value === 'string' ? value.trim().replace(/^-/, '') : value;
  if ((typeof magnitude === 'number' || typeof magnitude === 'string') && Number(magnitude) === 0 && String(magnitude).trim() !== '') return { ok: true, minor: 0 };
  const parsed = parseAmount(magnitude, currency);
  return parsed.ok && negative ? { ok: true, minor: -parsed.minor } : parsed;
}
