/**
 * What the merchant told of the shopper and the order, as the acquirer is told it on every
 * authorisation (docs/acquirers.md "What Kassa sends on an authorisation"): built from the
 * payment's row — its merchantOrderReference and language columns, and the billing, shipping,
 * e-mail, phone, name and browser fields of its stored request (serialize.ts `storedRequestOf`).
 * Those were validated at creation; a field left out there for its format never comes back
 * (docs/threeds.md), so what is here is valid. A part with a piece missing is left out whole,
 * never completed with a guess. Pure.
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { Shopper, ShopperAddress } from '../../acquirer/connector.ts';
import type { ThreeDSData } from '../../threeds/fields.ts';
import { twoLetterLanguage } from '../../ground/language.ts';
import { storedRequestOf } from '../serialize.ts';

type Side = 'billing' | 'shipping';

/** An address with every part the acquirer needs (line, postal code, city, country), or undefined. */
function addressOf(data: ThreeDSData, side: Side): ShopperAddress | undefined {
  const street = data[`${side}Address`];
  const postalCode = data[`${side}PostalCode`];
  const city = data[`${side}City`];
  const country = data[`${side}Country`];
  if (!street || !postalCode || !city || !country) return undefined;
  const number = data[`${side}HouseNumber`];
  const extension = data[`${side}HouseExtension`];
  const state = data[`${side}State`];
  return {
    street,
    ...(number ? { houseNumber: extension ? `${number} ${extension}` : number } : {}),
    postalCode,
    city,
    ...(state ? { state } : {}),
    country: country.toUpperCase(),
  };
}

/** The payment's language with the billing country, as a locale (`nl-NL`); the language alone without a country. */
function localeOf(language: string, country: string | undefined): string | undefined {
  const twoLetter = twoLetterLanguage(language);
  if (!twoLetter) return undefined;
  return country ? `${twoLetter}-${country.toUpperCase()}` : twoLetter;
}

export function shopperOf(row: Pick<TransactionRow, 'request' | 'echo' | 'language' | 'merchant_order_reference'>): Shopper {
  const data: ThreeDSData = storedRequestOf(row).threeDS ?? { scaReady: 'no' };
  const billingAddress = addressOf(data, 'billing');
  const deliveryAddress = addressOf(data, 'shipping');
  const email = data.billingEmail ?? data.accountInfo?.email;
  const { billingPhoneNumber: number, billingPhoneCountry: countryCode, billingFirstName: firstName, billingLastName: lastName } = data;
  const ipAddress = data.browserInfo?.ipAddress ?? data.browser?.ipAddress;
  const locale = localeOf(row.language, data.billingCountry);
  return {
    ...(billingAddress ? { billingAddress } : {}),
    ...(deliveryAddress ? { deliveryAddress } : {}),
    ...(email ? { email } : {}),
    ...(number && countryCode ? { phone: { countryCode, number } } : {}),
    ...(firstName && lastName ? { name: { firstName, lastName } } : {}),
    ...(ipAddress ? { ipAddress } : {}),
    ...(locale ? { locale } : {}),
    ...(row.merchant_order_reference ? { merchantOrderReference: row.merchant_order_reference } : {}),
  };
}
