/**
 * Adyen's own minor units (docs/acquirers.md "Amounts"): Adyen counts an amount in the minor
 * units of its "Currency codes" page, which are ISO 4217's except where Adyen says its number of
 * decimals "differs from standard". Kassa keeps ISO 4217's (ground/amount.ts); this table turns
 * Kassa's minor units into Adyen's for every call, and Adyen's (a notification's `amount.value`)
 * back into Kassa's. An amount Adyen's units cannot carry exactly (CVE with escudo cents) has no
 * Adyen amount: a payment is refused such an amount at creation (`Served.expresses`). Pure.
 */
import { knownCurrencies, findCurrency } from '../ground/amount.ts';

/** The currencies whose decimals at Adyen differ from ISO 4217's (Adyen's "Currency codes" page), with Adyen's decimals. */
export const adyenDecimals: Readonly<Record<string, number>> = {
  // ISO 4217: 0 decimals; Adyen: 2.
  clp: 2,
  isk: 2,
  // ISO 4217: 2 decimals; Adyen: 0.
  cve: 0,
};

/**
 * ISO 4217 codes that name no money a shopper pays with: funds and units of account (BOV, CHE,
 * CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals, the SDR and bond-market units, and the
 * testing and "no currency" codes: no card is charged in them. Every other ISO 4217 currency is
 * sent, and Adyen refuses one the merchant account is not set up for (docs/acquirers.md "Amounts").
 */
const notMoney: ReadonlySet<string> = new Set([
  'bov',
  'che',
  'chw',
  'clf',
  'cou',
  'mxv',
  'usn',
  'uyi',
  'uyw',
  'xag',
  'xau',
  'xpd',
  'xpt',
  'xdr',
  'xsu',
  'xua',
  'xba',
  'xbb',
  'xbc',
  'xbd',
  'xts',
  'xxx',
]);

/** The currencies the Adyen connector takes (`serves.currencies`), lower case. */
export const adyenCurrencies: readonly string[] = knownCurrencies.filter((code) => !notMoney.has(code));

/** The number of decimals Adyen counts `currency` in (lower or upper case), or undefined for a currency Kassa does not know. */
export function adyenExponent(currency: string): number | undefined {
  const code = currency.toLowerCase();
  return adyenDecimals[code] ?? findCurrency(code)?.exponent;
}

/** How many of the smaller unit one of the larger is (10^difference). */
const scale = (difference: number) => 10 ** Math.abs(difference);

/** Kassa's minor units (ISO 4217) as Adyen's, or undefined when Adyen's units cannot carry the amount exactly. */
export function toAdyenMinor(amountMinor: number, currency: string): number | undefined {
  const iso = findCurrency(currency)?.exponent;
  const adyen = adyenExponent(currency);
  if (iso === undefined || adyen === undefined) return undefined;
  if (adyen >= iso) return amountMinor * scale(adyen - iso);
  const factor = scale(adyen - iso);
  return amountMinor % factor === 0 ? amountMinor / factor : undefined;
}

/** Adyen's minor units (a notification's `amount.value`) as Kassa's, or undefined when ISO 4217's cannot carry them exactly. */
export function fromAdyenMinor(adyenMinor: number, currency: string): number | undefined {
  const iso = findCurrency(currency)?.exponent;
  const adyen = adyenExponent(currency);
  if (iso === undefined || adyen === undefined || !Number.isSafeInteger(adyenMinor)) return undefined;
  if (iso >= adyen) return adyenMinor * scale(iso - adyen);
  const factor = scale(iso - adyen);
  return adyenMinor % factor === 0 ? adyenMinor / factor : undefined;
}
