/**
 * Money: amounts are integer minor units with their currency's exponent from ISO 4217
 * data. Incoming amounts are parsed as decimal text, never multiplied as floats.
 */
import currencyCodes from 'currency-codes';

export interface Currency {
  /** Lower-case alphabetic code, as the API writes it. */
  code: string;
  numeric: string;
  exponent: number;
}

const currencies = new Map<string, Currency>(
  currencyCodes.data.filter((c) => Number.isInteger(c.digits)).map((c) => [c.code.toLowerCase(), { code: c.code.toLowerCase(), numeric: c.number, exponent: c.digits }]),
);

/** Every ISO 4217 currency Kassa knows (those with a number of decimals), lower case. */
export const knownCurrencies: readonly string[] = [...currencies.keys()];

/** ISO 4217 currency by alphabetic code, any case. */
export function findCurrency(code: string): Currency | undefined {
  return currencies.get(code.toLowerCase());
}

/** Largest amount accepted: stays an exact integer in JSON numbers and JavaScript. */
export const MAX_MINOR_UNITS = 999_999_999_999_99;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export type AmountResult = { ok: true; minor: number } | { ok: false; code: 'type' | 'format' | 'decimals' | 'range'; message: string };

/** Parses a JSON number or numeric string into minor units of `currency`. */
export function parseAmount(value: unknown, currency: Currency): AmountResult {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, code: 'format', message: 'must be a finite number' };
    text = String(value); // shortest round-trip decimal form: 10.5 → "10.5"
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return { ok: false, code: 'type', message: 'must be a number or a numeric string' };
  }
  const match = DECIMAL.exec(text);
  if (!match) return { ok: false, code: 'format', message: 'must be a positive decimal number such as 10.50' };
  const [, whole, fraction = ''] = match;
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > currency.exponent) {
    return {
      ok: false,
      code: 'decimals',
      message: `${currency.code.toUpperCase()} allows ${currency.exponent} decimal place${currency.exponent === 1 ? '' : 's'}`,
    };
  }
  const digits = (whole + significantFraction.padEnd(currency.exponent, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > 16 || Number(digits) > MAX_MINOR_UNITS) {
    return { ok: false, code: 'range', message: 'is larger than the maximum amount' };
  }
  const minor = Number(digits);
  if (minor === 0) return { ok: false, code: 'range', message: 'must be greater than zero' };
  return { ok: true, minor };
}

/** Minor units back to a decimal string in major units ("10.50"). */
export function formatAmount(minor: number, currency: Currency): string {
  if (currency.exponent === 0) return String(minor);
  const digits = String(minor).padStart(currency.exponent + 1, '0');
  return `${digits.slice(0, -currency.exponent)}.${digits.slice(-currency.exponent)}`;
}

/** The JSON number the API returns for an amount (docs/api.md#the-payment-object: amount is a number). */
export function amountNumber(minor: number, currency: Currency): number {
  return Number(formatAmount(minor, currency));
}

/** An amount as people read it in a language (`en`, `nl`): the currency's symbol or code, its decimals, the language's separators. */
export function amountText(row: { amount_minor: number; currency: string }, htmlLang: string): string {
  const currency = findCurrency(row.currency)!;
  const decimal = formatAmount(row.amount_minor, currency);
  try {
    return new Intl.NumberFormat(htmlLang, {
      style: 'currency',
      currency: currency.code.toUpperCase(),
      minimumFractionDigits: currency.exponent,
      maximumFractionDigits: currency.exponent,
    }).format(Number(decimal));
  } catch {
    return `${decimal} ${currency.code.toUpperCase()}`;
  }
}
