/**
 * EMVCo 3-D Secure 2.2.0 code tables as data: each enum value of the API (docs/api.md#3-d-secure-2-data) → the
 * AReq/CReq code it stands for. `satisfies Record<…>` makes the compiler check that
 * every spec value has exactly one code.
 */
import type {
  accountAgeIndicators,
  accountChangeIndicators,
  authenticationMethods,
  challengeIndicators,
  deliveryTimeframes,
  passwordChangeIndicators,
  paymentAccountIndicators,
  preOrderPurchaseIndicators,
  reorderItemsIndicators,
  shippingAddressUsageIndicators,
  shippingIndicators,
  shippingNameIndicators,
  suspiciousAccountActivities,
  transactionTypes,
} from './fields.ts';
import type { challengeWindowSizes, screenColorDepths } from '../ground/browser-info.ts';

type Codes<T extends readonly string[]> = Readonly<Record<T[number], string>>;

/** threeDSRequestorChallengeInd */
export const challengeIndicatorCodes = {
  NO_PREFERENCE: '01',
  NO_CHALLENGE: '02',
  REQUEST_BY_MERCHANT_PREFERENCE: '03',
  REQUEST_FOR_MANDATE: '04',
} as const satisfies Codes<typeof challengeIndicators>;

/** transType (ISO 8583 processing codes) */
export const transactionTypeCodes = {
  GOODS_AND_SERVICES_PURCHASE: '01',
  CHECK_ACCEPTANCE: '03',
  ACCOUNT_FUNDING: '10',
  QUASI_CASH_TRANSACTION: '11',
  PREPAID_ACTIVATION_AND_LOAD: '28',
} as const satisfies Codes<typeof transactionTypes>;

/** acctInfo.chAccAgeInd */
export const accountAgeIndicatorCodes = {
  NO_ACCOUNT: '01',
  CREATED_DURING_TRANSACTION: '02',
  LESS_THAN_30_DAYS: '03',
  '30_TO_60_DAYS': '04',
  MORE_THAN_60_DAYS: '05',
} as const satisfies Codes<typeof accountAgeIndicators>;

/** acctInfo.chAccChangeInd */
export const accountChangeIndicatorCodes = {
  CHANGED_DURING_TRANSACTION: '01',
  LESS_THAN_30_DAYS: '02',
  '30_TO_60_DAYS': '03',
  MORE_THAN_60_DAYS: '04',
} as const satisfies Codes<typeof accountChangeIndicators>;

/** acctInfo.chAccPwChangeInd */
export const passwordChangeIndicatorCodes = {
  NO_CHANGE: '01',
  CHANGED_DURING_TRANSACTION: '02',
  LESS_THAN_30_DAYS: '03',
  '30_TO_60_DAYS': '04',
  MORE_THAN_60_DAYS: '05',
} as const satisfies Codes<typeof passwordChangeIndicators>;

/** acctInfo.paymentAccInd */
export const paymentAccountIndicatorCodes = {
  NO_ACCOUNT: '01',
  DURING_TRANSACTION: '02',
  LESS_THAN_30_DAYS: '03',
  '30_TO_60_DAYS': '04',
  MORE_THAN_60_DAYS: '05',
} as const satisfies Codes<typeof paymentAccountIndicators>;

/** acctInfo.shipAddressUsageInd */
export const shippingAddressUsageIndicatorCodes = {
  THIS_TRANSACTION: '01',
  LESS_THAN_30_DAYS: '02',
  '30_TO_60_DAYS': '03',
  MORE_THAN_60_DAYS: '04',
} as const satisfies Codes<typeof shippingAddressUsageIndicators>;

/** acctInfo.shipNameIndicator */
export const shippingNameIndicatorCodes = {
  IDENTICAL: '01',
  DIFFERENT: '02',
} as const satisfies Codes<typeof shippingNameIndicators>;

/** acctInfo.suspiciousAccActivity */
export const suspiciousAccountActivityCodes = {
  NOT_SUSPICIOUS: '01',
  SUSPICIOUS: '02',
} as const satisfies Codes<typeof suspiciousAccountActivities>;

/** threeDSRequestorAuthenticationInfo.threeDSReqAuthMethod */
export const authenticationMethodCodes = {
  NO_LOGIN: '01',
  OWN_CREDENTIALS: '02',
  FEDERATED_ID: '03',
  ISSUER_CREDENTIALS: '04',
  THIRD_PARTY_AUTH: '05',
  FIDO_AUTH: '06',
} as const satisfies Codes<typeof authenticationMethods>;

/** merchantRiskIndicator.deliveryTimeframe */
export const deliveryTimeframeCodes = {
  ELECTRONIC: '01',
  SAME_DAY: '02',
  OVERNIGHT: '03',
  TWO_DAY_OR_MORE: '04',
} as const satisfies Codes<typeof deliveryTimeframes>;

/** merchantRiskIndicator.preOrderPurchaseInd */
export const preOrderPurchaseIndicatorCodes = {
  AVAILABLE: '01',
  FUTURE_AVAILABILITY: '02',
} as const satisfies Codes<typeof preOrderPurchaseIndicators>;

/** merchantRiskIndicator.reorderItemsInd */
export const reorderItemsIndicatorCodes = {
  FIRST_TIME: '01',
  REORDERED: '02',
} as const satisfies Codes<typeof reorderItemsIndicators>;

/** merchantRiskIndicator.shipIndicator */
export const shippingIndicatorCodes = {
  BILLING_ADDRESS: '01',
  VERIFIED_ADDRESS: '02',
  NOT_BILLING_ADDRESS: '03',
  LOCAL_STORE_PICKUP: '04',
  DIGITIAL_GOODS: '05',
  TRAVEL_AND_EVENT_TICKETS: '06',
  OTHER: '07',
} as const satisfies Codes<typeof shippingIndicators>;

/**
 * browserColorDepth. EMVCo accepts 1, 4, 8, 15, 16, 24, 32 and 48 bits; a depth it does
 * not list (64) is sent as the closest accepted lower value.
 */
export const screenColorDepthCodes = {
  '1': '1',
  '4': '4',
  '8': '8',
  '15': '15',
  '16': '16',
  '24': '24',
  '32': '32',
  '48': '48',
  '64': '48',
} as const satisfies Codes<typeof screenColorDepths>;

/** CReq challengeWindowSize */
export const challengeWindowSizeCodes = {
  W250H400: '01',
  W390H400: '02',
  W500H600: '03',
  W600H400: '04',
  FULL_SCREEN: '05',
} as const satisfies Codes<typeof challengeWindowSizes>;

/** threeDSRequestorAuthenticationInd: why the cardholder is being authenticated. */
export const authenticationIndicatorCodes = {
  payment: '01',
  recurring: '02',
  instalment: '03',
  addCard: '04',
} as const;

/** messageCategory */
export const messageCategoryCodes = {
  paymentAuthentication: '01',
  nonPaymentAuthentication: '02',
} as const;
