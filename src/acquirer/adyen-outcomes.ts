/**
 * What Adyen's answers mean for Kassa (docs/acquirers.md "Adyen"), as data: `resultCode` of an
 * authorisation (PaymentResult, Payment API v68) and, for a refusal, its `refusalReason`
 * (Adyen's "Refusal reasons") mapped to Kassa's `failureCode`, with what the merchant may do
 * about it (the merchant advice code, else the reason); and an error answer (a 4xx) as the
 * refusal it is. Pure.
 */
import type { AcquirerRefusal, AuthoriseResult, DeclineCode, RetryAdvice } from './connector.ts';

export interface AdyenPaymentResult {
  resultCode?: string;
  pspReference?: string;
  authCode?: string;
  refusalReason?: string;
  /** Not in v68's PaymentResult (Checkout's PaymentResponse has it): read when an answer carries it. */
  refusalReasonCode?: string;
  additionalData?: Record<string, string>;
}

/** `resultCode` → what it is for Kassa; codes not listed leave the outcome unknown (→ manualintervention). */
export const resultCodes: Record<string, 'authorised' | 'refused' | DeclineCode | 'unknown'> = {
  Authorised: 'authorised',
  Refused: 'refused',
  Error: 'processing_error',
  // Adyen: cancelled by the shopper or the merchant before it was processed; nothing was refused.
  Cancelled: 'cancelled',
  // Kassa sends its own authentication (mpiData): Adyen asking to authenticate again is a refusal, not a step.
  IdentifyShopper: 'rejected',
  ChallengeShopper: 'rejected',
  RedirectShopper: 'rejected',
  // Adyen decides later: the payment waits for the AUTHORISATION notification or an operator.
  Received: 'unknown',
  Pending: 'unknown',
  PresentToShopper: 'unknown',
};

/** `refusalReason` → `failureCode`; any other reason is `card_refused`. */
export const refusalReasons: Record<string, DeclineCode> = {
  'Not enough balance': 'insufficient_funds',
  'Withdrawal amount exceeded': 'insufficient_funds',
  'Withdrawal count exceeded': 'insufficient_funds',
  FRAUD: 'fraud_detected',
  'FRAUD-CANCELLED': 'fraud_detected',
  'Acquirer Fraud': 'fraud_detected',
  'Issuer Suspected Fraud': 'fraud_detected',
  'Acquirer Error': 'processing_error',
  'Issuer Unavailable': 'processing_error',
  '3D Not Authenticated': 'rejected',
  'Authentication required': 'rejected',
  '3DS Authentication Error': 'rejected',
};

/** A refusal's reason (a `Refused` answer's `refusalReason`, a failed AUTHORISATION notification's `reason`) in Kassa's words. */
export const failureCodeOfRefusal = (reason: string | undefined): DeclineCode => refusalReasons[reason ?? ''] ?? 'card_refused';

/**
 * Mastercard's merchant advice codes (Adyen passes them on as `additionalData.merchantAdviceCode`,
 * the code first: `"03: Do not try again"`; Adyen's "Raw acquirer responses"): what the issuer
 * tells the merchant to do after a refusal. A code not listed gives no advice.
 */
export const merchantAdvice: Record<string, RetryAdvice> = {
  '01': 'update card details',
  '02': 'retry later',
  '03': 'do not retry',
  '04': 'do not retry',
  '21': 'do not retry',
  '24': 'retry later',
  '25': 'retry later',
  '26': 'retry later',
  '27': 'retry later',
  '28': 'retry later',
  '29': 'retry later',
  '30': 'retry later',
  '40': 'do not retry',
  '41': 'do not retry',
};

/**
 * Without an advice code, the refusal reasons that say the card itself will not be approved
 * (the schemes' "never approve" refusals), and those that say it may be later.
 */
export const retryOfReason: Record<string, RetryAdvice> = {
  'Blocked Card': 'do not retry',
  'Expired Card': 'update card details',
  'Invalid Card Number': 'update card details',
  'Restricted Card': 'do not retry',
  'Revocation Of Auth': 'do not retry',
  'Transaction Not Permitted': 'do not retry',
  'Not Supported': 'do not retry',
  FRAUD: 'do not retry',
  'FRAUD-CANCELLED': 'do not retry',
  'Issuer Suspected Fraud': 'do not retry',
  'Acquirer Fraud': 'do not retry',
  'Not enough balance': 'retry later',
  'Withdrawal amount exceeded': 'retry later',
  'Withdrawal count exceeded': 'retry later',
  'Issuer Unavailable': 'retry later',
  'Acquirer Error': 'retry later',
};

/** The advice of a refusal: the merchant advice code's when the issuer gave one, else the reason's. */
export function retryAdvice(reason: string | undefined, merchantAdviceCode: string | undefined): RetryAdvice {
  const code = /^\s*(\d{2})/.exec(merchantAdviceCode ?? '')?.[1];
  return (code && merchantAdvice[code]) || retryOfReason[reason ?? ''] || 'no advice';
}

/** What a refused or failed answer says of why, as it is kept on the payment; undefined when it says nothing. */
export function refusalOf(result: AdyenPaymentResult): AcquirerRefusal | undefined {
  const data = result.additionalData ?? {};
  const code = result.refusalReasonCode ?? data.refusalReasonCode;
  const merchantAdviceCode = data.merchantAdviceCode;
  if (!result.refusalReason && !code && !merchantAdviceCode) return undefined;
  return {
    ...(result.refusalReason ? { reason: result.refusalReason } : {}),
    ...(code ? { code } : {}),
    ...(merchantAdviceCode ? { merchantAdviceCode } : {}),
    retry: retryAdvice(result.refusalReason, merchantAdviceCode),
  };
}

export function authoriseResultOf(result: AdyenPaymentResult): AuthoriseResult {
  const meaning = result.resultCode === undefined ? undefined : resultCodes[result.resultCode];
  if (meaning === 'authorised' && result.pspReference) return { outcome: 'authorised', acquirerReference: result.pspReference, authorisationCode: result.authCode ?? '' };
  if (meaning === undefined || meaning === 'unknown' || meaning === 'authorised')
    return { outcome: 'unknown', reason: `Adyen resultCode ${result.resultCode ?? 'missing'}` };
  const failureCode = meaning === 'refused' ? failureCodeOfRefusal(result.refusalReason) : meaning;
  const refusal = refusalOf(result);
  return {
    outcome: 'declined',
    failureCode,
    ...(result.pspReference ? { acquirerReference: result.pspReference } : {}),
    ...(refusal ? { refusal } : {}),
  };
}

/** Adyen's ServiceError: the answer to a request it did not take (a 4xx). */
export interface AdyenServiceError {
  status?: number;
  errorCode?: string;
  message?: string;
  errorType?: string;
  pspReference?: string;
}

/**
 * A 4xx answer to an authorisation: Adyen did not take the request (its ServiceError: `905`
 * Payment details are not supported, `702` a request that breaks the API, `010` not allowed,
 * a refused key), so no authorisation exists and none will — the payment failed
 * (`processing_error`), unlike a timeout or a 5xx, whose outcome is unknown. The same request
 * is refused again (422: 'do not retry'); a key or permission (401, 403) is the merchant's
 * setting, not the card's ('no advice').
 */
export function refusedRequestResult(status: number, error: AdyenServiceError): AuthoriseResult {
  const reason = error.message || `Adyen answered ${status}`;
  return {
    outcome: 'declined',
    failureCode: 'processing_error',
    ...(error.pspReference ? { acquirerReference: error.pspReference } : {}),
    refusal: { reason, ...(error.errorCode ? { code: error.errorCode } : {}), retry: status === 422 ? 'do not retry' : 'no advice' },
  };
}
