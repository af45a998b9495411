/**
 * Phone adaptation of docs/api.md#billing-and-shipping-fields: a combined international number (`+31 20 123 4567`,
 * `0031201234567`) given in a `…PhoneNumber` field without its `…PhoneCountry` is split
 * into the ITU-T E.164 country calling code and the subscriber section (the national
 * significant number), using libphonenumber-js's numbering-plan data.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';

export interface SplitPhoneNumber {
  /** ITU-T E.164 country calling code, e.g. `31`. */
  countryCallingCode: string;
  /** Subscriber section (national significant number, no trunk prefix), e.g. `201234567`. */
  subscriberNumber: string;
}

/**
 * Splits a number written in international form: `+` or the `00` international call
 * prefix, then the country calling code. Anything else (a national number, an unknown
 * calling code, text) is not split and is left to the field's own validation.
 */
export function splitInternationalNumber(input: string): SplitPhoneNumber | undefined {
  const text = input.trim();
  let international: string;
  if (text.startsWith('+')) international = text;
  else if (text.startsWith('00')) international = '+' + text.slice(2);
  else return undefined;
  const parsed = parsePhoneNumberFromString(international, { extract: false });
  if (!parsed) return undefined;
  return { countryCallingCode: parsed.countryCallingCode, subscriberNumber: parsed.nationalNumber };
}
