/**
 * The acquirer port: every acquirer sits behind this one interface (DESIGN §1 "ports with
 * adapters"). Each call carries an idempotency key, so a retried call (after a timeout, a
 * crash, a double submit) is answered with the first call's result instead of acting twice.
 * Calls are network calls: never made inside a store unit of work.
 */
import type { CardBrand } from '../ground/card-brand.ts';
import type { Mode } from '../store/schema.ts';

/** Card data for one authorisation. Held in memory for the call only; never logged or stored. */
export interface CardData {
  pan: string;
  expiryMonth: number;
  /** Four digits. */
  expiryYear: number;
  /** Absent for brands without a security code (bcmc). */
  cvc?: string;
  holderName: string;
  brand: CardBrand;
}

/** The cardholder authentication that goes with the authorisation (liability shift). */
export interface AuthenticationData {
  protocolVersion: string;
  transStatus: string;
  eci?: string;
  authenticationValue?: string;
  dsTransID?: string;
}

/** Which payment, and how much: what the acquirer and the 3-D Secure server both are told. */
export interface PaymentAmount {
  reference: string;
  mode: Mode;
  amountMinor: number;
  /** ISO 4217 alphabetic, lower case. */
  currency: string;
  /** Exponent of the currency, so a connector needs no currency table of its own. */
  exponent: number;
}

export interface AuthoriseRequest extends PaymentAmount {
  card: CardData;
  authentication?: AuthenticationData;
  /** sale: authorise and capture at once; authorise: hold the amount until capture or reversal. */
  captureNow: boolean;
  merchantName: string;
}

export type DeclineCode = 'card_refused' | 'insufficient_funds' | 'fraud_detected' | 'rejected' | 'processing_error';

export type AuthoriseResult =
  | { outcome: 'authorised'; acquirerReference: string; authorisationCode: string }
  | { outcome: 'declined'; failureCode: DeclineCode; acquirerReference?: string }
  /** No answer in time: the authorisation may or may not exist (→ manualintervention). */
  | { outcome: 'unknown'; reason: string };

export interface FollowUpRequest {
  reference: string;
  acquirerReference: string;
  amountMinor: number;
  currency: string;
}

export type FollowUpResult =
  | { outcome: 'done'; acquirerReference: string }
  /** Taken, to be done: the acquirer says later, by notification, whether it was (Adyen's `[…-received]`). */
  | { outcome: 'received'; acquirerReference: string }
  | { outcome: 'refused'; reason: string }
  /** No answer that can be trusted: the acquirer may or may not have taken it; a retry with the same key is safe. */
  | { outcome: 'unknown'; reason: string };

export interface AcquirerConnector {
  readonly name: string;
  authorise(request: AuthoriseRequest, idempotencyKey: string): Promise<AuthoriseResult>;
  capture(request: FollowUpRequest, idempotencyKey: string): Promise<FollowUpResult>;
  refund(request: FollowUpRequest, idempotencyKey: string): Promise<FollowUpResult>;
  /** Releases an authorisation that was not captured. */
  reversal(request: FollowUpRequest, idempotencyKey: string): Promise<FollowUpResult>;
  /**
   * Cancels whatever an authorisation with no known outcome did, named by Kassa's own reference
   * (the acquirer's is unknown): nothing if it was never made, the hold released or the money
   * given back if it was. Optional: a connector without it leaves such payments to an operator.
   */
  technicalCancel?(request: TechnicalCancelRequest, idempotencyKey: string): Promise<FollowUpResult>;
}

export interface TechnicalCancelRequest {
  /** Kassa's reference of the payment, as its authorisation named it. */
  reference: string;
}
