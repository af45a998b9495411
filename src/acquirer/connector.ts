/**
 * The acquirer port: every acquirer sits behind this one interface (docs/architecture.md#ports-and-adapters). Each call carries an idempotency key, so a retried call (after a timeout, a
 * crash, a double submit) is answered with the first call's result instead of acting twice.
 * Calls are network calls: never made inside a store unit of work.
 */
import type { CardBrand } from '../ground/card-brand.ts';
import type { PaymentMethod, RedirectMethod } from '../ground/payment-method.ts';
import type { Mode } from '../store/schema.ts';
import type { BrowserInfo } from '../ground/browser-info.ts';

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
  /** A card taken from the vault: how the acquirer knows it (docs/vault.md "Paying off-session"). */
  stored?: StoredCardReference;
}

/** A stored card as the acquirer knows it: never card data. */
export interface StoredCardReference {
  /** One per merchant and stored card (vault/vault.ts `shopperReferenceOf`). */
  shopperReference: string;
  /** The scheme's reference of the card's first customer-present authorisation, once an acquirer answered one. */
  networkReference?: string;
}

/**
 * How a payment uses a stored card (docs/vault.md "Paying off-session"): the cardholder stores it
 * or pays with it on Kassa's page (`cardholder`, card on file), or the merchant charges it without
 * the cardholder under their earlier consent (`merchant`: a subscription's fixed schedule, or
 * unscheduled), naming the network reference of the first customer-present payment.
 */
export interface StoredCardUse extends StoredCardReference {
  initiator: 'cardholder' | 'merchant';
  agreement: 'card-on-file' | 'subscription' | 'unscheduled';
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

/** A postal address as the merchant gave it (docs/api.md#billing-and-shipping-fields), each part valid. */
export interface ShopperAddress {
  /** The address line: the street, with the house number when the merchant gave none apart. */
  street: string;
  /** The house number and its extension, when given apart from the line. */
  houseNumber?: string;
  postalCode: string;
  city: string;
  /** ISO 3166-2 subdivision part (`NH` of `NL-NH`). */
  state?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

/**
 * What the merchant told of the shopper and the order (payments/card/shopper.ts), for the acquirer's
 * risk checks and the issuer: each part only when the merchant gave it and it is valid, never
 * made up. An address lacks a part the acquirer needs → the address is left out whole.
 */
export interface Shopper {
  billingAddress?: ShopperAddress;
  deliveryAddress?: ShopperAddress;
  email?: string;
  /** ITU-T E.164: the country calling code and the subscriber number, digits only. */
  phone?: { countryCode: string; number: string };
  /** The cardholder's name as the merchant knows it (billing name): both parts, or none. */
  name?: { firstName: string; lastName: string };
  /** The customer's browser's IP address as the merchant saw it (browserInfo). */
  ipAddress?: string;
  /** The payment's language as ISO 639-1 (`nl`), with the billing country when known (`nl-NL`). */
  locale?: string;
  /** The merchant's own reference of the order (merchantOrderReference). */
  merchantOrderReference?: string;
}

/** What every authorisation says besides what pays: when it is captured, in whose name, and who the shopper is. */
export interface AuthorisationTerms extends PaymentAmount {
  /** sale: authorise and capture at once; authorise: hold the amount until capture or reversal. */
  captureNow: boolean;
  merchantName: string;
  /** Absent: nothing told (a connector sends nothing of the shopper). */
  shopper?: Shopper;
}

/**
 * What pays (docs/acquirers.md "The acquirer port"): a card — typed in Kassa's page, taken from
 * the vault, or a wallet's device card, whose cryptogram is its authentication — with the
 * cardholder authentication Kassa did; or a method the customer completes on a page elsewhere
 * (their bank's, the method's own sign-in), with what the merchant said of it.
 */
export type PaymentInstrument =
  | { kind: 'card'; card: CardData; authentication?: AuthenticationData }
  | {
      kind: 'redirect';
      method: RedirectMethod;
      /** The customer's bank the merchant named (a BIC), if the method takes one. */
      issuer?: string;
      /** What was sold, for a method that invoices it (docs/payment-methods.md). */
      invoice?: readonly InvoiceLine[];
      /** Kassa's own page of this payment: the customer comes back to `<paymentPageUrl>/return`. */
      paymentPageUrl: string;
    };

/** One line of what was sold, as a pay-later method invoices it: its total in the payment's minor units, negative for what is taken off. */
export interface InvoiceLine {
  name: string;
  /** The merchant's own code of the item. */
  code?: string;
  /** As the merchant gave it: whole, or a measure (1.5 kg). */
  quantity: number;
  totalMinor: number;
  /** Percent (21 for 21 %), when the merchant gave it. */
  vatRate?: number;
}

export interface AuthoriseRequest extends AuthorisationTerms {
  instrument: PaymentInstrument;
  /** A payment that stores a card or pays with a stored one (docs/vault.md "Paying off-session"). */
  storedCard?: StoredCardUse;
}

export type DeclineCode = 'card_refused' | 'insufficient_funds' | 'fraud_detected' | 'rejected' | 'processing_error' | 'cancelled';

/**
 * What the merchant may do with a refused card (docs/api.md#the-details-object): the issuer's
 * advice (Mastercard's merchant advice code), else what the refusal reason says of the card.
 */
export const retryAdvices = ['do not retry', 'retry later', 'update card details', 'no advice'] as const;
export type RetryAdvice = (typeof retryAdvices)[number];

/** Why the acquirer refused an authorisation, in its own words, kept on the payment (`details.acquirerRefusal`). */
export interface AcquirerRefusal {
  /** The acquirer's reason (Adyen's `refusalReason`, or an error's message). */
  reason?: string;
  /** The acquirer's code of the reason (Adyen's `refusalReasonCode`, or an error's `errorCode`). */
  code?: string;
  /** Mastercard's merchant advice code as the acquirer passed it on. */
  merchantAdviceCode?: string;
  retry: RetryAdvice;
}

export type AuthoriseResult =
  | {
      outcome: 'authorised';
      acquirerReference: string;
      authorisationCode: string;
      /** The scheme's transaction reference, kept with a card stored or paid on file for its merchant-initiated payments (docs/vault.md "Paying off-session"). */
      networkReference?: string;
    }
  | { outcome: 'declined'; failureCode: DeclineCode; acquirerReference?: string; refusal?: AcquirerRefusal }
  /**
   * The customer must take a step elsewhere first (`url`); the outcome comes when they are back, or
   * by notification. `form`: the step is reached by a POST of these fields to `url` (the page's
   * auto-submitting form); absent, by a GET of `url`.
   */
  | { outcome: 'redirect'; url: string; acquirerReference?: string; form?: Readonly<Record<string, string>> }
  /**
   * Taken, not decided: the acquirer says later, by notification (a bank transfer waiting for the
   * money, a method's answer still on its way). A bank transfer carries what the customer must
   * quote and pay into.
   */
  | { outcome: 'pending'; acquirerReference?: string; transfer?: TransferInstructions }
  /** No answer in time: the authorisation may or may not exist (→ manualintervention). */
  | { outcome: 'unknown'; reason: string };

/** Where a customer pays a bank transfer, as the acquirer told it (docs/payment-methods.md "Bank transfer"). */
export interface TransferInstructions {
  beneficiary: string;
  iban: string;
  bic?: string;
  /** What the customer must quote, for the acquirer to match the money to the payment. */
  reference: string;
}

/** A customer back from a method's step elsewhere, with what the acquirer put in the address they came back to. */
export interface RedirectReturn {
  reference: string;
  /** The parameters of the return (Adyen: `redirectResult`), by name. */
  details: Record<string, string>;
}

/**
 * What an acquirer's answer says it is about, as the acquirer said it: checked against the payment
 * asked about before its outcome is applied (docs/acquirers.md "The acquirer's word checked").
 */
export interface SaidAbout {
  /** Kassa's reference of the payment, as the acquirer echoes it (Adyen's `merchantReference`). */
  reference: string | undefined;
  /** The acquirer's reference of the payment; undefined: not said, or not comparable (a capture's own). */
  acquirerReference: string | undefined;
  /** In Kassa's minor units (ISO 4217) of `currency`; undefined: not said, or not expressible in them. */
  amountMinor: number | undefined;
  /** ISO 4217, any case. */
  currency: string | undefined;
}

/**
 * The outcome of a customer's return, and what the acquirer's answer says it is about; `about`
 * undefined: the acquirer was not asked or gave no outcome (its notification will), so the
 * outcome is no decision (`pending`, or `unknown` for no answer in time).
 */
export interface RedirectOutcome {
  result: AuthoriseResult;
  about?: SaidAbout;
}

/** A change asked of the acquirer to a payment it took (a capture, a refund, a reversal, a cancel-or-refund): which one, and how much. */
export interface ModificationRequest {
  reference: string;
  acquirerReference: string;
  amountMinor: number;
  currency: string;
}

export type ModificationResult =
  | { outcome: 'done'; acquirerReference: string }
  /** Taken, to be done: the acquirer says later, by notification, whether it was (Adyen's `[…-received]`). */
  | { outcome: 'received'; acquirerReference: string }
  | { outcome: 'refused'; reason: string }
  /** No answer that can be trusted: the acquirer may or may not have taken it; a retry with the same key is safe. */
  | { outcome: 'unknown'; reason: string };

/**
 * An authorisation the acquirer authenticates itself (its own 3DS Server, e.g. Adyen's native
 * 3DS2): Kassa's page collected the browser, and runs the issuer's 3DS method and challenge.
 */
export interface AuthenticatingRequest extends AuthorisationTerms {
  card: CardData;
  /** The browser as the AReq sees it: the merchant's browserInfo, else what Kassa's page collected. */
  browser: Partial<BrowserInfo>;
  javascriptEnabled: boolean;
  /** EMVCo threeDSRequestorChallengeInd (01–04), chosen as for Kassa's own AReq. */
  challengeIndicator: string;
  /** Where the issuer's ACS posts the CRes: Kassa's page. */
  notificationUrl: string;
  /** A customer-present payment that stores a card or pays with a stored one (docs/vault.md "Paying off-session"). */
  storedCard?: StoredCardUse;
}

/** The next call of an authorisation the acquirer authenticates: after the 3DS method, or after the challenge. */
export interface AuthenticationContinuation extends PaymentAmount {
  /** The acquirer's token of the authentication (Adyen's threeDS2Token). */
  token: string;
  captureNow: boolean;
  /**
   * EMVCo threeDSCompInd after the 3DS method (Y done, N not in time, U the issuer has none);
   * transStatus of the CRes after the challenge; the issuer's PaRes after a 3-D Secure 1 redirect.
   */
  after: { step: 'method'; completed: 'Y' | 'N' | 'U' } | { step: 'challenge'; transStatus: string } | { step: 'redirect'; paRes: string };
}

/** Where an authorisation the acquirer authenticates stands: decided, or waiting for the customer's browser. */
export type AuthenticationStep =
  | { step: 'done'; result: AuthoriseResult }
  /** The issuer wants its 3DS method (device data) run in a hidden frame, then the acquirer is told whether it ran. */
  | { step: 'method'; token: string; threeDSServerTransID: string; methodUrl: string }
  /** The issuer challenges the cardholder: the CReq goes to acsUrl in the challenge window. */
  | { step: 'challenge'; token: string; threeDSServerTransID: string; acsTransID: string; acsUrl: string; messageVersion: string }
  /**
   * A card whose issuer authenticates with 3-D Secure 1 only: the browser posts `paRequest` and
   * `md` to the issuer's `issuerUrl`, whose PaRes comes back to Kassa's page; `md` is the token of
   * the next call.
   */
  | { step: 'redirect'; issuerUrl: string; md: string; paRequest: string };

/**
 * The optional capability of a connector whose acquirer authenticates the cardholder itself:
 * its final answer IS the authorisation (no separate authorise call after it). Each call
 * carries an idempotency key like every other.
 */
export interface AcquirerAuthentication {
  authorise(request: AuthenticatingRequest, idempotencyKey: string): Promise<AuthenticationStep>;
  continue(request: AuthenticationContinuation, idempotencyKey: string): Promise<AuthenticationStep>;
}

/** What a connector takes (docs/acquirers.md "The acquirer port"): its methods, and the currencies it takes them in. */
export interface Served {
  methods: readonly PaymentMethod[];
  /** ISO 4217 alphabetic codes, lower case; `all`: every currency Kassa knows. */
  currencies: 'all' | readonly string[];
  /** Whether the acquirer's own units carry the amount (ISO 4217 minor units) exactly; absent: every amount. */
  expresses?: (amountMinor: number, currency: string) => boolean;
}

/** Whether a connector takes the method in the currency. */
export const takes = (served: Served, method: PaymentMethod, currency: string): boolean =>
  served.methods.includes(method) && (served.currencies === 'all' || served.currencies.includes(currency));

/** Whether a connector can be asked for the amount (in the currency's ISO 4217 minor units) at all. */
export const expresses = (served: Served, amountMinor: number, currency: string): boolean => served.expresses?.(amountMinor, currency) ?? true;

export interface AcquirerConnector {
  readonly name: string;
  readonly serves: Served;
  /** Present when the acquirer authenticates the cardholder itself (docs/acquirers.md "3-D Secure through Adyen"). */
  readonly authentication?: AcquirerAuthentication;
  authorise(request: AuthoriseRequest, idempotencyKey: string): Promise<AuthoriseResult>;
  capture(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult>;
  refund(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult>;
  /**
   * Asks the outcome of a method paid elsewhere once the customer is back (Adyen's
   * `/payments/details`). Optional: without it the outcome comes by notification, or from the
   * simulator's page.
   */
  completeRedirect?(request: RedirectReturn, idempotencyKey: string): Promise<RedirectOutcome>;
  /** Releases an authorisation that was not captured. */
  reversal(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult>;
  /**
   * Gives back whatever an authorisation did, named by the acquirer's reference: the hold released
   * if it was not captured, the money refunded if it was (Adyen's cancel-or-refund). For money a
   * shopper paid after Kassa ended the payment (docs/acquirers.md "Money paid after Kassa gave up").
   */
  cancelOrRefund(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult>;
  /**
   * Cancels whatever an authorisation with no known outcome did, named by Kassa's own reference
   * (the acquirer's is unknown): nothing if it was never made, the hold released or the money
   * given back if it was. Optional: a connector without it leaves such payments to an operator.
   */
  technicalCancel?(request: TechnicalCancelRequest, idempotencyKey: string): Promise<ModificationResult>;
}

export interface TechnicalCancelRequest {
  /** Kassa's reference of the payment, as its authorisation named it. */
  reference: string;
}
