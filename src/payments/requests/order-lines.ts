/**
 * The order lines of a pay-later payment (docs/payment-methods.md): checked to add up to the
 * amount when the payment is created (payment-request.ts) or captured (operations/capture.ts), and
 * read as the method's invoice (operations/send-to-method.ts). Pure: no I/O.
 */
import type { FieldError } from '../../ground/problem.ts';
import type { InvoiceLine } from '../../acquirer/connector.ts';
import { formatAmount, parseAmount, type AmountResult, type Currency } from '../../ground/amount.ts';

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
