/**
 * What Adyen's answers mean for Kassa (docs/acquirers.md "Adyen"), as data: `resultCode` of an
 * authorisation (PaymentResult, Payment API v68) and, for a refusal, its `refusalReason`
 * (Adyen's "Refusal reasons") mapped to Kassa's `failureCode`. Pure.
 */
import type { AuthoriseResult, DeclineCode } from './connector.ts';

export interface AdyenPaymentResult {
  resultCode?: string;
  pspReference?: string;
  authCode?: string;
  refusalReason?: string;
}

/** `resultCode` → what it is for Kassa; codes not listed leave the outcome unknown (→ manualintervention). */
export const resultCodes: Record<string, 'authorised' | 'refused' | DeclineCode | 'unknown'> = {
  Authorised: 'authorised',
  Refused: 'refused',
  Error: 'processing_error',
  Cancelled: 'card_refused',
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

export function authoriseResultOf(result: AdyenPaymentResult): AuthoriseResult {
  const meaning = result.resultCode === undefined ? undefined : resultCodes[result.resultCode];
  if (meaning === 'authorised' && result.pspReference) return { outcome: 'authorised', acquirerReference: result.pspReference, authorisationCode: result.authCode ?? '' };
  if (meaning === undefined || meaning === 'unknown' || meaning === 'authorised')
    return { outcome: 'unknown', reason: `Adyen resultCode ${result.resultCode ?? 'missing'}` };
  const failureCode = meaning === 'refused' ? failureCodeOfRefusal(result.refusalReason) : meaning;
  return { outcome: 'declined', failureCode, ...(result.pspReference ? { acquirerReference: result.pspReference } : {}) };
}
