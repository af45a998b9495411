/**
 * EMVCo 3-D Secure 2.2.0 mapping: a stored payment or vault enrollment (with the
 * validated data of validate.ts, which holds no field left out for its format) → the fields
 * of the Authentication Request (AReq), and the CReq challenge-window size. Pure: the caller
 * passes the clock's time.
 */
import {
  accountAgeIndicatorCodes,
  accountChangeIndicatorCodes,
  authenticationIndicatorCodes,
  authenticationMethodCodes,
  challengeIndicatorCodes,
  challengeWindowSizeCodes,
  deliveryTimeframeCodes,
  messageCategoryCodes,
  passwordChangeIndicatorCodes,
  paymentAccountIndicatorCodes,
  preOrderPurchaseIndicatorCodes,
  reorderItemsIndicatorCodes,
  screenColorDepthCodes,
  shippingAddressUsageIndicatorCodes,
  shippingIndicatorCodes,
  shippingNameIndicatorCodes,
  suspiciousAccountActivityCodes,
  transactionTypeCodes,
} from './codes.ts';
import type { ThreeDSData } from './fields.ts';
import type { BrowserInfo } from '../ground/browser-info.ts';
import { currencyNumeric } from './formats.ts';
import { countryNumeric } from '../ground/country.ts';

export interface AReqInput {
  /** Amount in minor units of `currency` (a vault enrollment without amount: 0). */
  amountMinor: number;
  /** ISO 4217 alphabetic currency code, any case. */
  currency: string;
  kind: 'payment' | 'enrollment';
  /** The payment uses details.vaultAccessToken (one-click with a stored card). */
  usesVaultToken: boolean;
  /** The payment has storeInVault = yes. */
  storeInVault: boolean;
  /** The validated 3-D Secure 2 data stored with the payment. */
  data: ThreeDSData;
  /** Browser data collected by Kassa's page when the merchant gave no browserInfo. */
  collectedBrowserInfo?: Partial<BrowserInfo>;
  /** When the customer authorised the purchase (sent as UTC). */
  purchaseDate: Date;
  merchantName: string;
  /** Identifiers of the 3DS requestor, acquirer and card, copied into the AReq as given (EMVCo names). */
  requestor?: {
    threeDSServerTransID?: string;
    threeDSRequestorID?: string;
    threeDSRequestorName?: string;
    threeDSRequestorURL?: string;
    acquirerBIN?: string;
    acquirerMerchantID?: string;
    mcc?: string;
    notificationURL?: string;
    threeDSCompInd?: 'Y' | 'N' | 'U';
    acctNumber?: string;
    cardExpiryDate?: string;
  };
  /** ISO 3166-1 alpha-2 country of the merchant; sent as the numeric merchantCountryCode. */
  merchantCountry?: string;
}

type Fields = Record<string, unknown>;

/** Sets `key` only when there is a value: the AReq never carries empty fields. */
function put(target: Fields, key: string, value: unknown): void {
  if (value !== undefined && value !== '') target[key] = value;
}

function putObject(target: Fields, key: string, value: Fields): void {
  if (Object.keys(value).length > 0) target[key] = value;
}

function code<T extends string>(table: Readonly<Record<T, string>>, value: T | undefined): string | undefined {
  return value === undefined ? undefined : table[value];
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** YYYYMMDDHHMMSS in UTC (EMVCo purchaseDate). */
export function emvcoDateTime(date: Date): string {
  return (
    pad(date.getUTCFullYear(), 4) + pad(date.getUTCMonth() + 1) + pad(date.getUTCDate()) + pad(date.getUTCHours()) + pad(date.getUTCMinutes()) + pad(date.getUTCSeconds())
  );
}

/** CReq challengeWindowSize; absent means the full screen (`05`), the size that always fits. */
export function challengeWindowSizeCode(size: string | undefined): '01' | '02' | '03' | '04' | '05' {
  return size !== undefined && Object.hasOwn(challengeWindowSizeCodes, size) ? challengeWindowSizeCodes[size as keyof typeof challengeWindowSizeCodes] : '05';
}

/**
 * threeDSRequestorChallengeInd. Enrollment always asks for the merchant-preference
 * challenge (docs/api.md#challenge-preference: the merchant's indicator is ignored there); otherwise the merchant's
 * indicator wins, and without one the use-case table of docs/api.md#challenge-preference decides, strongest first:
 * first payment of a recurring or instalment sequence → mandate; card-on-file → merchant
 * preference; one-click with a vault token → no challenge; else no preference.
 */
export function challengeIndicatorCode(input: Pick<AReqInput, 'kind' | 'usesVaultToken' | 'storeInVault' | 'data'>): string {
  if (input.kind === 'enrollment') return challengeIndicatorCodes.REQUEST_BY_MERCHANT_PREFERENCE;
  const given = input.data.threeds2RequestInfo?.challengeIndicator;
  if (given !== undefined) return challengeIndicatorCodes[given];
  const sequence = input.data.sequenceInfo;
  if (sequence && (sequence.type === 'RECURRING' || sequence.type === 'INSTALMENT') && sequence.mode === 'INITIAL') {
    return challengeIndicatorCodes.REQUEST_FOR_MANDATE;
  }
  if (input.storeInVault) return challengeIndicatorCodes.REQUEST_BY_MERCHANT_PREFERENCE;
  if (input.usesVaultToken) return challengeIndicatorCodes.NO_CHALLENGE;
  return challengeIndicatorCodes.NO_PREFERENCE;
}

/** threeDSRequestorAuthenticationInd: add card for enrollment, else by sequence type. */
function authenticationIndicator(input: AReqInput): string {
  if (input.kind === 'enrollment') return authenticationIndicatorCodes.addCard;
  const type = input.data.sequenceInfo?.type;
  if (type === 'RECURRING') return authenticationIndicatorCodes.recurring;
  if (type === 'INSTALMENT') return authenticationIndicatorCodes.instalment;
  return authenticationIndicatorCodes.payment;
}

interface Address {
  address?: string;
  houseNumber?: string;
  houseExtension?: string;
  city?: string;
  postalCode?: string;
  country?: string;
  state?: string;
}

function addressOf(d: ThreeDSData, side: 'billing' | 'shipping'): Address {
  return {
    address: d[`${side}Address`],
    houseNumber: d[`${side}HouseNumber`],
    houseExtension: d[`${side}HouseExtension`],
    city: d[`${side}City`],
    postalCode: d[`${side}PostalCode`],
    country: d[`${side}Country`],
    state: d[`${side}State`],
  };
}

function hasAddress(a: Address): boolean {
  return Object.values(a).some((v) => v !== undefined);
}

const EMVCO_ADDRESS_LINE = 50;

/**
 * Address lines: the street with house number and extension on line 1 when it fits
 * EMVCo's 50 characters (issuers match on it), otherwise number and extension on line 2.
 */
function putAddress(areq: Fields, prefix: 'bill' | 'ship', a: Address): void {
  const house = [a.houseNumber, a.houseExtension].filter((v) => v !== undefined).join(' ');
  const combined = [a.address, house].filter((v) => v !== undefined && v !== '').join(' ');
  if (combined.length <= EMVCO_ADDRESS_LINE) {
    put(areq, `${prefix}AddrLine1`, combined);
  } else {
    put(areq, `${prefix}AddrLine1`, a.address);
    put(areq, `${prefix}AddrLine2`, house);
  }
  put(areq, `${prefix}AddrCity`, a.city);
  put(areq, `${prefix}AddrPostCode`, a.postalCode);
  put(areq, `${prefix}AddrCountry`, a.country === undefined ? undefined : countryNumeric(a.country));
  // The ISO 3166-2 subdivision part only (`NH`, docs/api.md#readings-of-unclear-lines): a shop's own region code is left out of the data by validate.ts.
  put(areq, `${prefix}AddrState`, a.state);
}

const comparable = (v: string | undefined): string => (v ?? '').trim().replace(/\s+/g, ' ').toLowerCase();

function sameAddress(a: Address, b: Address): boolean {
  return (Object.keys(a) as (keyof Address)[]).every((k) =>
    k === 'postalCode' ? comparable(a[k]).replace(/ /g, '') === comparable(b[k]).replace(/ /g, '') : comparable(a[k]) === comparable(b[k]),
  );
}

function phone(cc: string | undefined, subscriber: string | undefined): { cc: string; subscriber: string } | undefined {
  return cc !== undefined && subscriber !== undefined ? { cc, subscriber } : undefined;
}

/** EMVCo giftCardCount is two digits: larger counts are sent as 99. */
const EMVCO_MAX_GIFT_CARD_COUNT = 99;

/** EMVCo cardholderName is 2 to 45 characters. */
function cardholderName(d: ThreeDSData): string | undefined {
  const name = [d.billingFirstName, d.billingLastName]
    .filter((v) => v !== undefined)
    .join(' ')
    .trim();
  return name.length >= 2 && name.length <= 45 ? name : undefined;
}

function browserFields(areq: Fields, browser: Partial<BrowserInfo>): void {
  put(areq, 'browserAcceptHeader', browser.acceptHeaders);
  put(areq, 'browserIP', browser.ipAddress);
  put(areq, 'browserJavaEnabled', browser.javaEnabled);
  put(areq, 'browserLanguage', browser.language);
  put(areq, 'browserColorDepth', code(screenColorDepthCodes, browser.screenColorDepth));
  put(areq, 'browserScreenHeight', browser.screenHeight);
  put(areq, 'browserScreenWidth', browser.screenWidth);
  put(areq, 'browserTZ', browser.timeZone);
  put(areq, 'browserUserAgent', browser.userAgent);
  // The 3-D Secure browser flow runs on Kassa's page with scripting: the challenge is a scripted pop-up.
  if (Object.keys(browser).length > 0) areq.browserJavascriptEnabled = true;
}

/** The browser seen by the AReq (and by an acquirer that authenticates): the merchant's browserInfo, else Kassa's page data over the older `browser` fields. */
export function browserSeen(input: Pick<AReqInput, 'data' | 'collectedBrowserInfo'>): Partial<BrowserInfo> {
  if (input.data.browserInfo) return input.data.browserInfo;
  const merged: Partial<BrowserInfo> = { ...input.data.browser };
  for (const [key, value] of Object.entries(input.collectedBrowserInfo ?? {})) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/** A stored payment → the EMVCo 2.2.0 AReq fields (browser channel). */
export function buildAReq(input: AReqInput): Record<string, unknown> {
  const d = input.data;
  const currency = currencyNumeric(input.currency);
  if (!currency) throw new RangeError(`unknown ISO 4217 currency ${input.currency}`);
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor < 0) throw new RangeError('amountMinor must be a non-negative integer');

  // A vault enrollment without an amount only verifies the cardholder: a non-payment authentication.
  const nonPayment = input.kind === 'enrollment' && input.amountMinor === 0;
  const areq: Fields = {
    messageType: 'AReq',
    messageVersion: '2.2.0',
    deviceChannel: '02',
    messageCategory: nonPayment ? messageCategoryCodes.nonPaymentAuthentication : messageCategoryCodes.paymentAuthentication,
    threeDSRequestorAuthenticationInd: authenticationIndicator(input),
    threeDSRequestorChallengeInd: challengeIndicatorCode(input),
    transType: transactionTypeCodes[d.threeds2RequestInfo?.transactionType ?? 'GOODS_AND_SERVICES_PURCHASE'],
    merchantName: input.merchantName,
  };
  for (const [key, value] of Object.entries(input.requestor ?? {})) put(areq, key, value);
  put(areq, 'merchantCountryCode', input.merchantCountry === undefined ? undefined : countryNumeric(input.merchantCountry));

  // EMVCo: purchase fields are required for 01-PA and, for 02-NPA, only with recurring or instalment data.
  if (!nonPayment) {
    areq.purchaseAmount = String(input.amountMinor);
    areq.purchaseCurrency = currency.numeric;
    areq.purchaseExponent = String(currency.exponent);
    areq.purchaseDate = emvcoDateTime(input.purchaseDate);
  }

  const sequence = d.sequenceInfo;
  if (sequence) {
    put(areq, 'recurringExpiry', sequence.recurringExpiry);
    put(areq, 'recurringFrequency', sequence.recurringFrequency === undefined ? undefined : String(sequence.recurringFrequency));
    put(areq, 'purchaseInstalData', sequence.instalmentMaxAuthorisations === undefined ? undefined : String(sequence.instalmentMaxAuthorisations));
  }

  const billing = addressOf(d, 'billing');
  const shipping = addressOf(d, 'shipping');
  putAddress(areq, 'bill', billing);
  putAddress(areq, 'ship', shipping);
  if (hasAddress(billing) && hasAddress(shipping)) areq.addrMatch = sameAddress(billing, shipping) ? 'Y' : 'N';
  put(areq, 'cardholderName', cardholderName(d));

  const account = d.accountInfo ?? {};
  put(areq, 'email', account.email);
  put(areq, 'homePhone', phone(account.homePhoneCountry, account.homePhoneNumber) ?? phone(d.billingPhoneCountry, d.billingPhoneNumber));
  put(areq, 'mobilePhone', phone(account.mobilePhoneCountry, account.mobilePhoneNumber));
  put(areq, 'workPhone', phone(account.workPhoneCountry, account.workPhoneNumber));
  put(areq, 'acctID', account.accountIdentifier);

  const risk = d.merchantRiskIndicator ?? {};
  const acctInfo: Fields = {};
  put(acctInfo, 'chAccAgeInd', code(accountAgeIndicatorCodes, account.accountAgeIndicator));
  put(acctInfo, 'chAccDate', account.accountCreationDate);
  put(acctInfo, 'chAccChangeInd', code(accountChangeIndicatorCodes, account.accountChangeIndicator));
  put(acctInfo, 'chAccChange', account.accountChangedDate);
  // docs/api.md#merchant-risk: request samples carry passwordChangeIndicator in merchantRiskIndicator too.
  put(acctInfo, 'chAccPwChangeInd', code(passwordChangeIndicatorCodes, account.passwordChangeIndicator ?? risk.passwordChangeIndicator));
  put(acctInfo, 'chAccPwChange', account.passwordChangeDate);
  put(acctInfo, 'nbPurchaseAccount', account.purchasesLast6Months);
  put(acctInfo, 'provisionAttemptsDay', account.attemptsToAddLastDay);
  put(acctInfo, 'txnActivityDay', account.transactionLastDay);
  put(acctInfo, 'txnActivityYear', account.transactionLastYear);
  put(acctInfo, 'paymentAccAge', account.paymentAccountDate);
  put(acctInfo, 'paymentAccInd', code(paymentAccountIndicatorCodes, account.paymentAccountIndicator));
  put(acctInfo, 'shipAddressUsage', account.shippingAddressFirstUsage);
  put(acctInfo, 'shipAddressUsageInd', code(shippingAddressUsageIndicatorCodes, account.shippingAddressUsageIndicator));
  put(acctInfo, 'shipNameIndicator', code(shippingNameIndicatorCodes, account.shippingNameIndicator));
  put(acctInfo, 'suspiciousAccActivity', code(suspiciousAccountActivityCodes, account.suspiciousAccountActivity));
  putObject(areq, 'acctInfo', acctInfo);

  const authenticationInfo: Fields = {};
  put(authenticationInfo, 'threeDSReqAuthMethod', code(authenticationMethodCodes, account.authenticationMethod));
  put(authenticationInfo, 'threeDSReqAuthTimestamp', account.authenticationTimestamp);
  putObject(areq, 'threeDSRequestorAuthenticationInfo', authenticationInfo);

  const riskIndicator: Fields = {};
  put(riskIndicator, 'deliveryEmailAddress', risk.deliveryEmailAddress);
  put(riskIndicator, 'deliveryTimeframe', code(deliveryTimeframeCodes, risk.deliveryTimeframe));
  put(riskIndicator, 'giftCardAmount', risk.giftCardAmount);
  put(riskIndicator, 'giftCardCount', risk.giftCardCount === undefined ? undefined : pad(Math.min(Number(risk.giftCardCount), EMVCO_MAX_GIFT_CARD_COUNT)));
  put(riskIndicator, 'giftCardCurr', risk.giftCardCurrency);
  put(riskIndicator, 'preOrderDate', risk.preOrderDate);
  put(riskIndicator, 'preOrderPurchaseInd', code(preOrderPurchaseIndicatorCodes, risk.preOrderPurchaseIndicator));
  put(riskIndicator, 'reorderItemsInd', code(reorderItemsIndicatorCodes, risk.reorderItemsIndicator));
  put(riskIndicator, 'shipIndicator', code(shippingIndicatorCodes, risk.shippingIndicator));
  putObject(areq, 'merchantRiskIndicator', riskIndicator);

  browserFields(areq, browserSeen(input));
  return areq;
}
