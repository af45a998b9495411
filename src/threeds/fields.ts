/**
 * The 3-D Secure 2 request fields of docs/api.md#3-d-secure-2-data as data: one definition per field
 * (type, size, format, allowed values, requirement rule), in the spec's table order,
 * plus the compatibility fields existing clients send (docs/api.md#existing-clients: billingEmail,
 * billingFirstName/LastName, shippingEmail/FirstName/LastName, `browser`).
 * validate.ts compiles these tables onto the one field engine (ground/field-engine.ts); the
 * OpenAPI document reads them too (contract/request-schemas.ts). Over 400 lines for a reason: this
 * is the spec's field list itself (allowed values, the normalized data's types, the tables), kept
 * in one file so each field's row sits beside its type and values; no logic lives here.
 */
import { challengeWindowSizes, screenColorDepths, type BrowserInfo } from '../ground/browser-info.ts';

// ── Allowed values, spelled exactly as the spec gives them ────────────────────────────

export const scaReadyValues = ['yes', 'no'] as const;
/** Older plugins send `scaReady` as `"1"`/`"0"` or a JSON boolean (docs/interop.md): read as yes/no. */
export const scaReadyAliases: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [true, 'yes'],
  [false, 'no'],
  ['1', 'yes'],
  ['0', 'no'],
]);

/** docs/api.md#sequence-information */
export const sequenceTypes = ['EXPRESS_CHECKOUT', 'RECURRING', 'INSTALMENT', 'UNSCHEDULED'] as const;
export const sequenceModes = ['INITIAL', 'SUBSEQUENT'] as const;
export const sequenceSources = ['CIT', 'MIT'] as const;
export const industryPractices = ['INCREMENTAL', 'DELAYED_CHARGES', 'NO_SHOW', 'REAUTHORIZATION', 'RESUBMISSION'] as const;

/** docs/api.md#account-information */
export const accountAgeIndicators = ['NO_ACCOUNT', 'CREATED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS'] as const;
export const accountChangeIndicators = ['CHANGED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS'] as const;
export const passwordChangeIndicators = ['NO_CHANGE', 'CHANGED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS'] as const;
export const paymentAccountIndicators = ['NO_ACCOUNT', 'DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS'] as const;
export const shippingAddressUsageIndicators = ['THIS_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS'] as const;
export const shippingNameIndicators = ['IDENTICAL', 'DIFFERENT'] as const;
export const suspiciousAccountActivities = ['NOT_SUSPICIOUS', 'SUSPICIOUS'] as const;
export const authenticationMethods = ['NO_LOGIN', 'OWN_CREDENTIALS', 'FEDERATED_ID', 'ISSUER_CREDENTIALS', 'THIRD_PARTY_AUTH', 'FIDO_AUTH'] as const;

/** docs/api.md#challenge-preference */
export const challengeIndicators = ['NO_PREFERENCE', 'NO_CHALLENGE', 'REQUEST_BY_MERCHANT_PREFERENCE', 'REQUEST_FOR_MANDATE'] as const;
export const transactionTypes = ['GOODS_AND_SERVICES_PURCHASE', 'CHECK_ACCEPTANCE', 'ACCOUNT_FUNDING', 'QUASI_CASH_TRANSACTION', 'PREPAID_ACTIVATION_AND_LOAD'] as const;

/** docs/api.md#merchant-risk (`DIGITIAL_GOODS` spelled as given) */
export const deliveryTimeframes = ['ELECTRONIC', 'SAME_DAY', 'OVERNIGHT', 'TWO_DAY_OR_MORE'] as const;
export const preOrderPurchaseIndicators = ['AVAILABLE', 'FUTURE_AVAILABILITY'] as const;
export const reorderItemsIndicators = ['FIRST_TIME', 'REORDERED'] as const;
export const shippingIndicators = [
  'BILLING_ADDRESS',
  'VERIFIED_ADDRESS',
  'NOT_BILLING_ADDRESS',
  'LOCAL_STORE_PICKUP',
  'DIGITIAL_GOODS',
  'TRAVEL_AND_EVENT_TICKETS',
  'OTHER',
] as const;

type OneOf<T extends readonly string[]> = T[number];

// ── The normalized data the validator returns (only the fields that were given) ───────

/** docs/api.md#sequence-information; the integer fields are normalized to numbers whether they came as numbers or strings. */
export interface SequenceInfo {
  type: OneOf<typeof sequenceTypes>;
  instalmentMaxAuthorisations?: number;
  recurringExpiry?: string;
  recurringFrequency?: number;
  mode?: OneOf<typeof sequenceModes>;
  source?: OneOf<typeof sequenceSources>;
  initialTransactionId?: string;
  industryPractice?: OneOf<typeof industryPractices>;
}

/** docs/api.md#account-information */
export interface AccountInfo {
  accountIdentifier?: string;
  accountAgeIndicator?: OneOf<typeof accountAgeIndicators>;
  accountCreationDate?: string;
  accountChangeIndicator?: OneOf<typeof accountChangeIndicators>;
  accountChangedDate?: string;
  passwordChangeIndicator?: OneOf<typeof passwordChangeIndicators>;
  passwordChangeDate?: string;
  purchasesLast6Months?: string;
  attemptsToAddLastDay?: string;
  transactionLastDay?: string;
  transactionLastYear?: string;
  paymentAccountDate?: string;
  paymentAccountIndicator?: OneOf<typeof paymentAccountIndicators>;
  shippingAddressFirstUsage?: string;
  shippingAddressUsageIndicator?: OneOf<typeof shippingAddressUsageIndicators>;
  shippingNameIndicator?: OneOf<typeof shippingNameIndicators>;
  suspiciousAccountActivity?: OneOf<typeof suspiciousAccountActivities>;
  email?: string;
  workPhoneNumber?: string;
  workPhoneCountry?: string;
  homePhoneNumber?: string;
  homePhoneCountry?: string;
  mobilePhoneNumber?: string;
  mobilePhoneCountry?: string;
  authenticationMethod?: OneOf<typeof authenticationMethods>;
  authenticationTimestamp?: string;
  dateOfBirth?: string;
}

/** docs/api.md#challenge-preference; on vault enrollment only `transactionType` is kept (docs/api.md#vault-enrollment). */
export interface ThreeDS2RequestInfo {
  challengeIndicator?: OneOf<typeof challengeIndicators>;
  transactionType?: OneOf<typeof transactionTypes>;
}

/** docs/api.md#merchant-risk, with `passwordChangeIndicator` as request samples carry it. */
export interface MerchantRiskIndicator {
  deliveryEmailAddress?: string;
  deliveryTimeframe?: OneOf<typeof deliveryTimeframes>;
  giftCardAmount?: string;
  giftCardCount?: string;
  giftCardCurrency?: string;
  preOrderDate?: string;
  preOrderPurchaseIndicator?: OneOf<typeof preOrderPurchaseIndicators>;
  reorderItemsIndicator?: OneOf<typeof reorderItemsIndicators>;
  shippingIndicator?: OneOf<typeof shippingIndicators>;
  passwordChangeIndicator?: OneOf<typeof passwordChangeIndicators>;
}

/** The top-level strings of docs/api.md#billing-and-shipping-fields plus the compatibility name and e-mail fields. */
export interface BillingAndShipping {
  billingAddress?: string;
  billingCity?: string;
  billingState?: string;
  billingPostalCode?: string;
  billingCountry?: string;
  billingHouseNumber?: string;
  billingHouseExtension?: string;
  billingPhoneNumber?: string;
  billingPhoneCountry?: string;
  shippingAddress?: string;
  shippingCity?: string;
  shippingState?: string;
  shippingPostalCode?: string;
  shippingCountry?: string;
  shippingHouseNumber?: string;
  shippingHouseExtension?: string;
  billingEmail?: string;
  billingFirstName?: string;
  billingLastName?: string;
  shippingEmail?: string;
  shippingFirstName?: string;
  shippingLastName?: string;
}

/**
 * A given field that does not fit its format, left out of the 3-D Secure data rather than
 * refused (docs/threeds.md "With and without scaReady"): the error it would have been with `scaReady: yes`,
 * and the value as sent, kept for the merchant.
 */
export interface LeftOutField {
  field: string;
  code: string;
  message: string;
  value: unknown;
}

export interface ThreeDSData extends BillingAndShipping {
  /** Always present: `no` when not given (docs/api.md#billing-and-shipping-fields). */
  scaReady: OneOf<typeof scaReadyValues>;
  /** The fields left out, in table order; none of their values is in the data above. */
  leftOut?: LeftOutField[];
  sequenceInfo?: SequenceInfo;
  accountInfo?: AccountInfo;
  threeds2RequestInfo?: ThreeDS2RequestInfo;
  merchantRiskIndicator?: MerchantRiskIndicator;
  /** Partial only when a field was left out for its format (without scaReady yes). */
  browserInfo?: Partial<BrowserInfo>;
  /** Older partial form of `browserInfo` (docs/api.md#existing-clients), kept as given. */
  browser?: Partial<BrowserInfo>;
}

// ── Field definitions ─────────────────────────────────────────────────────────────────

export type FieldType = 'string' | 'integer' | 'boolean';

export type Format =
  | 'digits'
  | 'date'
  | 'timestamp'
  | 'country'
  | 'subdivision'
  | 'callingCode'
  | 'email'
  | 'languageTag'
  | 'ipAddress'
  | 'currencyNumeric'
  | 'minutesOffset';

/** A conditional requirement (docs/api.md#sequence-information): every listed sibling field has one of the listed values. */
export interface Condition {
  when: Readonly<Record<string, readonly string[]>>;
  /** …and the request carries no `details.vaultAccessToken`. */
  unlessVaultToken?: true;
}

export interface ThreeDSFieldSpec {
  type: FieldType;
  /** Sizes in characters (digits for an integer); "1-3" is min 1, max 3; a single number is a max. */
  min?: number;
  max?: number;
  format?: Format;
  enum?: readonly string[];
  /** Smallest value of an integer field. */
  minValue?: number;
  /** `always`: whenever the enclosing object is given; `sca`: the spec's "S" (required if scaReady = yes). */
  required?: 'always' | 'sca' | Condition;
  /** For `subdivision`: the sibling field with the country it must belong to. */
  countryField?: string;
  /** Only validated and kept for this operation (docs/api.md#vault-enrollment: enrollment ignores challengeIndicator). */
  onlyFor?: 'payment';
  /** Other spellings real clients send, read as the value they stand for before any check. */
  aliases?: ReadonlyMap<unknown, string>;
  /** The value is a raw request header of the customer's browser: the one value is taken from it before any check (an address without its port). */
  fromHeader?: 'acceptLanguage' | 'forwardedFor';
  /** A longer value is cut to `max` characters, not refused. */
  cutToMax?: true;
  /** A value of the right size that breaks its format is left out (kept for the merchant), not refused, even with `scaReady: yes`. */
  leftOutEvenIfScaReady?: true;
  /** Checked as strictly without `scaReady: yes`: the switch itself. */
  alwaysStrict?: true;
}

/**
 * What would break Kassa itself is refused with or without `scaReady` (docs/threeds.md): a text
 * longer than this many times its field's size, and never less than `HARD_LIMIT_FLOOR`, is no
 * customer's data but a mistake or an attack, and would only burden storage and every answer.
 */
const HARD_LIMIT_FACTOR = 4;
const HARD_LIMIT_FLOOR = 256;

/** The longest text a field takes without `scaReady: yes`. */
export function hardLimitOf(spec: ThreeDSFieldSpec): number {
  return Math.max(HARD_LIMIT_FLOOR, HARD_LIMIT_FACTOR * (spec.max ?? 0));
}

/** A `…PhoneNumber` / `…PhoneCountry` pair that the phone adaptation of docs/api.md#billing-and-shipping-fields may fill from one combined number. */
export interface PhonePair {
  number: string;
  country: string;
}

export interface ThreeDSObjectSpec {
  /** JSON pointer of the object from the body root ('' for the body itself). */
  pointer: string;
  fields: Readonly<Record<string, ThreeDSFieldSpec>>;
  phonePairs?: readonly PhonePair[];
  /** docs/api.md#browser-data: if any field is given, all must be. */
  allOrNothing?: true;
}

type Table<T> = { readonly [K in keyof Required<T>]: ThreeDSFieldSpec };

const text = (max: number, required?: ThreeDSFieldSpec['required']): ThreeDSFieldSpec => ({ type: 'string', min: 1, max, required });
const oneOf = (values: readonly string[]): ThreeDSFieldSpec => ({ type: 'string', enum: values });
const date: ThreeDSFieldSpec = { type: 'string', max: 8, format: 'date' };
const count = (min: number, max: number): ThreeDSFieldSpec => ({ type: 'string', min, max, format: 'digits' });
/** ISO 3166-1 alpha-2 or alpha-3, any case, stored as alpha-2 (docs/interop.md: the official client sends `NLD`). */
const country = (required?: ThreeDSFieldSpec['required']): ThreeDSFieldSpec => ({ type: 'string', min: 1, max: 3, format: 'country', required });
/**
 * docs/api.md#readings-of-unclear-lines: the ISO 3166-2 subdivision part; a shop's own region code (up to the 50 characters of
 * an address line) is kept for the merchant and left out of the AReq, also with `scaReady: yes`
 * (docs/interop.md).
 */
const state = (countryField: string, required?: ThreeDSFieldSpec['required']): ThreeDSFieldSpec => ({
  type: 'string',
  min: 1,
  max: 50,
  format: 'subdivision',
  countryField,
  leftOutEvenIfScaReady: true,
  required,
});
const email: ThreeDSFieldSpec = { type: 'string', min: 1, max: 254, format: 'email' };
/** docs/api.md#readings-of-unclear-lines: a subscriber section is 1 to 15 digits, whatever the field's printed size. */
const phoneNumber = (required?: ThreeDSFieldSpec['required']): ThreeDSFieldSpec => ({ type: 'string', min: 1, max: 15, format: 'digits', required });
const phoneCountry = (required?: ThreeDSFieldSpec['required']): ThreeDSFieldSpec => ({ type: 'string', min: 1, max: 3, format: 'callingCode', required });
/** The integers of "size 3" (docs/api.md#sequence-information): a number or a digit string, at least 1. */
const integer3: ThreeDSFieldSpec = { type: 'integer', max: 3, minValue: 1 };

/** The fields of docs/api.md#billing-and-shipping-fields plus the compatibility fields. Names of existing clients are limited to 100 characters. */
export const topLevelFields = {
  scaReady: { ...oneOf(scaReadyValues), aliases: scaReadyAliases, alwaysStrict: true },
  billingAddress: text(50, 'sca'),
  billingCity: text(50, 'sca'),
  billingState: state('billingCountry', 'sca'),
  billingPostalCode: text(16, 'sca'),
  billingCountry: country('sca'),
  billingHouseNumber: text(10),
  billingHouseExtension: text(10),
  billingPhoneNumber: phoneNumber('sca'),
  billingPhoneCountry: phoneCountry('sca'),
  shippingAddress: text(50),
  shippingCity: text(50),
  shippingState: state('shippingCountry'),
  shippingPostalCode: text(16),
  shippingCountry: country(),
  shippingHouseNumber: text(10),
  shippingHouseExtension: text(10),
  billingEmail: email,
  billingFirstName: text(100),
  billingLastName: text(100),
  shippingEmail: email,
  shippingFirstName: text(100),
  shippingLastName: text(100),
} as const satisfies Table<BillingAndShipping & { scaReady: string }>;

const recurringOrInstalmentOrUnscheduled = ['RECURRING', 'INSTALMENT', 'UNSCHEDULED'] as const;

export const sequenceInfoFields = {
  type: { ...oneOf(sequenceTypes), required: 'always' },
  instalmentMaxAuthorisations: { ...integer3, required: { when: { type: ['INSTALMENT'], mode: ['INITIAL'] } } },
  recurringExpiry: { ...date, required: { when: { type: ['RECURRING'], mode: ['INITIAL'] } } },
  recurringFrequency: { ...integer3, required: { when: { type: ['RECURRING'], mode: ['INITIAL'] } } },
  mode: { ...oneOf(sequenceModes), required: { when: { type: recurringOrInstalmentOrUnscheduled } } },
  source: { ...oneOf(sequenceSources), required: { when: { type: recurringOrInstalmentOrUnscheduled } } },
  initialTransactionId: text(20, { when: { type: recurringOrInstalmentOrUnscheduled }, unlessVaultToken: true }),
  industryPractice: oneOf(industryPractices),
} as const satisfies Table<SequenceInfo>;

export const accountInfoFields = {
  accountIdentifier: text(64),
  accountAgeIndicator: oneOf(accountAgeIndicators),
  accountCreationDate: date,
  accountChangeIndicator: oneOf(accountChangeIndicators),
  accountChangedDate: date,
  passwordChangeIndicator: oneOf(passwordChangeIndicators),
  passwordChangeDate: date,
  purchasesLast6Months: count(1, 4),
  attemptsToAddLastDay: count(1, 3),
  transactionLastDay: count(1, 2),
  transactionLastYear: count(1, 3),
  paymentAccountDate: date,
  paymentAccountIndicator: oneOf(paymentAccountIndicators),
  shippingAddressFirstUsage: date,
  shippingAddressUsageIndicator: oneOf(shippingAddressUsageIndicators),
  shippingNameIndicator: oneOf(shippingNameIndicators),
  suspiciousAccountActivity: oneOf(suspiciousAccountActivities),
  email,
  workPhoneNumber: phoneNumber(),
  workPhoneCountry: phoneCountry(),
  homePhoneNumber: phoneNumber(),
  homePhoneCountry: phoneCountry(),
  mobilePhoneNumber: phoneNumber(),
  mobilePhoneCountry: phoneCountry(),
  authenticationMethod: oneOf(authenticationMethods),
  authenticationTimestamp: { type: 'string', max: 12, format: 'timestamp' },
  dateOfBirth: date,
} as const satisfies Table<AccountInfo>;

export const threeds2RequestInfoFields = {
  challengeIndicator: { ...oneOf(challengeIndicators), onlyFor: 'payment' },
  transactionType: oneOf(transactionTypes),
} as const satisfies Table<ThreeDS2RequestInfo>;

export const merchantRiskIndicatorFields = {
  deliveryEmailAddress: email,
  deliveryTimeframe: oneOf(deliveryTimeframes),
  giftCardAmount: count(1, 15),
  giftCardCount: count(1, 15),
  giftCardCurrency: { type: 'string', min: 1, max: 3, format: 'currencyNumeric' },
  preOrderDate: date,
  preOrderPurchaseIndicator: oneOf(preOrderPurchaseIndicators),
  reorderItemsIndicator: oneOf(reorderItemsIndicators),
  shippingIndicator: oneOf(shippingIndicators),
  passwordChangeIndicator: oneOf(passwordChangeIndicators),
} as const satisfies Table<MerchantRiskIndicator>;

export const browserInfoFields = {
  javaEnabled: { type: 'boolean' },
  acceptHeaders: text(2048),
  ipAddress: { type: 'string', min: 1, max: 45, format: 'ipAddress' },
  language: { type: 'string', min: 1, max: 8, format: 'languageTag' },
  screenColorDepth: { type: 'string', min: 1, max: 2, enum: screenColorDepths },
  screenHeight: count(1, 6),
  screenWidth: count(1, 6),
  timeZone: { type: 'string', min: 1, max: 5, format: 'minutesOffset' },
  userAgent: text(2048),
  challengeWindowSize: oneOf(challengeWindowSizes),
} as const satisfies Table<BrowserInfo>;

/**
 * The older partial `browser` object (docs/api.md#existing-clients) as the official client's `setBrowserFromServer()`
 * fills it from the shop's own request: the raw Accept-Language header, REMOTE_ADDR or a proxy
 * list, the raw Accept and User-Agent headers. `browserInfo` (docs/api.md#browser-data) stays strict.
 */
export const legacyBrowserFields = {
  ...browserInfoFields,
  acceptHeaders: { ...browserInfoFields.acceptHeaders, cutToMax: true },
  ipAddress: { ...browserInfoFields.ipAddress, fromHeader: 'forwardedFor' },
  language: { ...browserInfoFields.language, fromHeader: 'acceptLanguage' },
  userAgent: { ...browserInfoFields.userAgent, cutToMax: true },
} as const satisfies Table<BrowserInfo>;

/** The objects this module validates, keyed by their top-level request field (in spec order). */
export const objectSpecs = {
  sequenceInfo: { pointer: '/sequenceInfo', fields: sequenceInfoFields },
  accountInfo: {
    pointer: '/accountInfo',
    fields: accountInfoFields,
    phonePairs: [
      { number: 'workPhoneNumber', country: 'workPhoneCountry' },
      { number: 'homePhoneNumber', country: 'homePhoneCountry' },
      { number: 'mobilePhoneNumber', country: 'mobilePhoneCountry' },
    ],
  },
  threeds2RequestInfo: { pointer: '/threeds2RequestInfo', fields: threeds2RequestInfoFields },
  merchantRiskIndicator: { pointer: '/merchantRiskIndicator', fields: merchantRiskIndicatorFields },
  browserInfo: { pointer: '/browserInfo', fields: browserInfoFields, allOrNothing: true },
  browser: { pointer: '/browser', fields: legacyBrowserFields },
} as const satisfies Record<string, ThreeDSObjectSpec>;

export const topLevelSpec: ThreeDSObjectSpec = {
  pointer: '',
  fields: topLevelFields,
  phonePairs: [{ number: 'billingPhoneNumber', country: 'billingPhoneCountry' }],
};
