/**
 * The Adyen connector (docs/acquirers.md#adyen): Adyen's Classic Payment API v68, whose contract
 * is Adyen's own `PaymentService-v68.json` (docs/testing.md#adyens-api-contract). Card data in (from the hosted page, the vault or a
 * decrypted wallet token), with the cardholder authentication Kassa did as `mpiData`; an
 * authorisation out. Capture, cancel and refund are answered `[…-received]` at once and
 * finished by a signed notification (adyen-notifications.ts). Every call carries Adyen's
 * `Idempotency-Key`, derived from Kassa's own operation, so a retry never charges twice.
 * What Adyen answers is mapped to Kassa's outcomes by one table (adyen-outcomes.ts).
 */
import type {
  AcquirerConnector,
  AuthenticationData,
  AuthorisationTerms,
  AuthoriseRequest,
  AuthoriseResult,
  CardData,
  StoredCardUse,
  ModificationRequest,
  ModificationResult,
  Served,
} from './connector.ts';
import type { AcquirerAuthentication, AuthenticatingRequest, AuthenticationContinuation, PaymentAmount } from './connector.ts';
import type { Shopper, ShopperAddress, TechnicalCancelRequest } from './connector.ts';
import { authoriseResultOf, refusedRequestResult, type AdyenPaymentResult, type AdyenServiceError } from './adyen-outcomes.ts';
import { authenticatingFields, authenticationStepOf, continuationFields, type AdyenAuthenticationResult } from './adyen-3ds2.ts';
import { adyenCurrencies, fromAdyenMinor, toAdyenMinor } from './adyen-amounts.ts';
import { callAdyen, type AdyenAnswer } from './adyen-http.ts';
import { checkoutModification, checkoutModificationResult, checkoutPaymentRequest, checkoutResultOf, completionDetailNames } from './adyen-checkout.ts';
import type { CheckoutPaymentResult } from './adyen-checkout.ts';
import type { RedirectOutcome, RedirectReturn } from './connector.ts';
import { redirectMethods } from '../ground/payment-method.ts';

export interface AdyenSettings {
  /** The Payment API base, e.g. `https://pal-test.adyen.com/pal/servlet/Payment/v68`, or a live endpoint with its prefix. */
  endpoint: string;
  /**
   * The Checkout API base, e.g. `https://checkout-test.adyen.com/v71`, or a live one with its
   * prefix: with it the connector takes the methods paid elsewhere, and modifies every payment through it.
   */
  checkoutEndpoint?: string;
  merchantAccount: string;
  apiKey: string;
  /** How long an answer may take; beyond it the outcome is unknown. */
  timeoutMs: number;
}

/**
 * Adyen amounts are in Adyen's own minor units with an upper-case currency (Amount schema;
 * adyen-amounts.ts), or undefined for an amount those units cannot carry exactly.
 */
function amountOf(amountMinor: number, currency: string): { value: number; currency: string } | undefined {
  const value = toAdyenMinor(amountMinor, currency);
  return value === undefined ? undefined : { value, currency: currency.toUpperCase() };
}

/** Refused before Adyen is asked: an amount its units cannot carry (a creation refuses such payments, docs/acquirers.md "Amounts"). */
const notExpressible = (amountMinor: number, currency: string) => `${amountMinor} minor units of ${currency.toUpperCase()} cannot be expressed exactly in Adyen's units`;

/** Kassa's authentication as Adyen's `ThreeDSecureData` (3-D Secure done by Kassa, or a wallet's cryptogram). */
function mpiDataOf(authentication: AuthenticationData): Record<string, string> {
  // A wallet's device authentication (its cryptogram and ECI, pay-by-wallet.ts) has no 3-D Secure version: an authenticated MPI result.
  if (authentication.protocolVersion.startsWith('wallet-')) return walletMpiData(authentication);
  const mpiData: Record<string, string> = { directoryResponse: authentication.transStatus, threeDSVersion: authentication.protocolVersion };
  if (authentication.transStatus !== 'Y' && authentication.transStatus !== 'C') mpiData.authenticationResponse = authentication.transStatus;
  if (authentication.eci) mpiData.eci = authentication.eci;
  if (authentication.authenticationValue) mpiData.cavv = authentication.authenticationValue;
  if (authentication.dsTransID) mpiData.dsTransID = authentication.dsTransID;
  return mpiData;
}

function walletMpiData({ eci, authenticationValue }: AuthenticationData): Record<string, string> {
  return { directoryResponse: 'Y', authenticationResponse: 'Y', ...(eci ? { eci } : {}), ...(authenticationValue ? { cavv: authenticationValue } : {}) };
}

type Answer = AdyenAnswer;

export class AdyenConnector implements AcquirerConnector {
  readonly name = 'adyen';
  /**
   * The Classic API takes card data: cards typed or stored, and the wallet's device cards; with the
   * Checkout API connected, the methods paid elsewhere too (docs/acquirers.md#adyen).
   */
  readonly serves: Served;

  constructor(private readonly settings: AdyenSettings) {
    this.serves = {
      methods: settings.checkoutEndpoint ? ['card', 'walletpay', ...redirectMethods] : ['card', 'walletpay'],
      currencies: adyenCurrencies,
      expresses: (amountMinor, currency) => toAdyenMinor(amountMinor, currency) !== undefined,
    };
  }

  async authorise(request: AuthoriseRequest, idempotencyKey: string): Promise<AuthoriseResult> {
    const { instrument } = request;
    if (instrument.kind === 'redirect') {
      // `serves` keeps these methods away from a connection without the Checkout API (payments/ports.ts).
      const { checkoutEndpoint } = this.settings;
      if (!checkoutEndpoint) throw new Error(`${instrument.method} needs the Adyen Checkout API, and this connection names none`);
      const body = checkoutPaymentRequest(this.settings.merchantAccount, request, instrument, shopperFields(request.shopper ?? {}));
      if (!body) return refusedRequestResult(422, { message: notExpressible(request.amountMinor, request.currency) });
      return checkoutAnswer(await this.post(`${checkoutEndpoint}/payments`, body, idempotencyKey));
    }
    const { card, authentication } = instrument;
    const payment = cardAuthorisation(this.settings.merchantAccount, request, card);
    if (!payment) return refusedRequestResult(422, { message: notExpressible(request.amountMinor, request.currency) });
    const body: Record<string, unknown> = { ...payment, ...(authentication ? { mpiData: mpiDataOf(authentication) } : {}) };
    return authorisationResult(await this.post(`${this.settings.endpoint}/authorise`, withStoredCard(body, request.storedCard), idempotencyKey));
  }

  /**
   * `/payments/details` with what the customer came back with: the outcome with what the answer
   * says it is about (its `merchantReference`, `pspReference` and `amount`, which payments/acquirer-word.ts
   * checks: the address may carry another payment's `redirectResult`), or that it comes by notification.
   */
  async completeRedirect(request: RedirectReturn, idempotencyKey: string): Promise<RedirectOutcome> {
    const { checkoutEndpoint } = this.settings;
    const details = Object.fromEntries(completionDetailNames.filter((name) => request.details[name] !== undefined).map((name) => [name, request.details[name]!]));
    // Back without what Adyen reads (the address opened by hand): the outcome comes by notification.
    if (!checkoutEndpoint || Object.keys(details).length === 0) return { result: { outcome: 'pending' } };
    const answer = await this.post(`${checkoutEndpoint}/payments/details`, { details }, idempotencyKey);
    if (answer.status === 'unknown') return { result: { outcome: 'unknown', reason: answer.reason } };
    const result = answer.status === 200 ? checkoutResultOf(answer.body as CheckoutPaymentResult) : undefined;
    // Not taken (a `redirectResult` Adyen does not know: a 4xx), or no outcome Kassa knows: nothing is decided, the notification decides.
    if (!result || result.outcome === 'unknown') return { result: { outcome: 'pending' } };
    const { merchantReference, pspReference, amount } = answer.body as {
      merchantReference?: unknown;
      pspReference?: unknown;
      amount?: { value?: unknown; currency?: unknown };
    };
    const currency = typeof amount?.currency === 'string' ? amount.currency : undefined;
    const about = {
      reference: typeof merchantReference === 'string' ? merchantReference : undefined,
      acquirerReference: typeof pspReference === 'string' ? pspReference : undefined,
      amountMinor: currency !== undefined && typeof amount?.value === 'number' ? fromAdyenMinor(amount.value, currency) : undefined,
      currency,
    };
    return { result, about };
  }

  capture(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.modify({ classic: '/capture', checkout: 'captures' }, request, idempotencyKey, true);
  }

  reversal(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.modify({ classic: '/cancel', checkout: 'cancels' }, request, idempotencyKey, false);
  }

  refund(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.modify({ classic: '/refund', checkout: 'refunds' }, request, idempotencyKey, true);
  }

  /** Classic `/cancelOrRefund`, Checkout's `/reversals`: Adyen cancels or refunds as the payment stands, and says which by `CANCEL_OR_REFUND`. */
  cancelOrRefund(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.modify({ classic: '/cancelOrRefund', checkout: 'reversals' }, request, idempotencyKey, false);
  }

  /**
   * A modification of an authorisation: Adyen takes it (`[…-received]`, Checkout's `received`) and
   * says later, by notification, whether it was done. Through the Checkout API when it is
   * connected (it modifies payments made through either API), else the Classic one.
   */
  private async modify(
    paths: { classic: string; checkout: string },
    request: ModificationRequest,
    idempotencyKey: string,
    withAmount: boolean,
  ): Promise<ModificationResult> {
    const { checkoutEndpoint, merchantAccount } = this.settings;
    if (checkoutEndpoint) {
      const body = checkoutModification(merchantAccount, request, withAmount);
      if (!body) return { outcome: 'refused', reason: notExpressible(request.amountMinor, request.currency) };
      const url = `${checkoutEndpoint}/payments/${encodeURIComponent(request.acquirerReference)}/${paths.checkout}`;
      const answer = await this.post(url, body, idempotencyKey);
      return answer.status === 'unknown' ? { outcome: 'unknown', reason: answer.reason } : checkoutModificationResult(answer.status, answer.body);
    }
    const modificationAmount = withAmount ? amountOf(request.amountMinor, request.currency) : undefined;
    if (withAmount && !modificationAmount) return { outcome: 'refused', reason: notExpressible(request.amountMinor, request.currency) };
    const body: Record<string, unknown> = {
      merchantAccount: this.settings.merchantAccount,
      originalReference: request.acquirerReference,
      reference: request.reference,
      ...(modificationAmount ? { modificationAmount } : {}),
    };
    return this.modificationResult(await this.post(`${this.settings.endpoint}${paths.classic}`, body, idempotencyKey));
  }

  // ---- Unknown outcomes (docs/acquirers.md "Unknown outcomes") ----

  /**
   * `/technicalCancel`: cancels an authorisation by Kassa's reference (`originalMerchantReference`),
   * for one whose answer never came; Adyen takes it (`[technical-cancel-received]`) and cancels or
   * refunds whatever the authorisation did.
   */
  async technicalCancel(request: TechnicalCancelRequest, idempotencyKey: string): Promise<ModificationResult> {
    const body = { merchantAccount: this.settings.merchantAccount, originalMerchantReference: request.reference, reference: request.reference };
    return this.modificationResult(await this.post(`${this.settings.endpoint}/technicalCancel`, body, idempotencyKey));
  }

  // ---- end of unknown outcomes ----

  private modificationResult(answer: Answer): ModificationResult {
    if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
    const { response, pspReference, message, errorCode } = answer.body as { response?: string; pspReference?: string; message?: string; errorCode?: string };
    if (answer.status === 200 && typeof response === 'string' && response.endsWith('-received]') && typeof pspReference === 'string') {
      return { outcome: 'received', acquirerReference: pspReference };
    }
    return { outcome: 'refused', reason: `Adyen answered ${answer.status}${errorCode ? ` ${errorCode}` : ''}${message ? `: ${message}` : ''}` };
  }

  private post(url: string, body: Record<string, unknown>, idempotencyKey: string): Promise<Answer> {
    return callAdyen(url, body, { apiKey: this.settings.apiKey, timeoutMs: this.settings.timeoutMs, idempotencyKey });
  }

  /**
   * Adyen's native 3-D Secure 2 (adyen-3ds2.ts): `/authorise` with the browser and
   * `threeDS2RequestData`, then `/authorise3ds2` after the issuer's 3DS method or challenge.
   * Adyen's final answer is the authorisation.
   */
  readonly authentication: AcquirerAuthentication = {
    authorise: async (request: AuthenticatingRequest, idempotencyKey: string) => {
      const body = cardAuthorisation(this.settings.merchantAccount, request, request.card, { allow3DS2: 'true' });
      if (!body) return { step: 'done', result: refusedRequestResult(422, { message: notExpressible(request.amountMinor, request.currency) }) };
      const step = this.authenticationStep(
        await this.post(`${this.settings.endpoint}/authorise`, withStoredCard({ ...body, ...authenticatingFields(request) }, request.storedCard), idempotencyKey),
      );
      if (step.step !== 'method' || step.methodUrl !== undefined) return step;
      // The issuer has no 3DS method: Adyen is told at once that none ran (EMVCo threeDSCompInd U).
      const after = { step: 'method', completed: 'U' } as const;
      return this.authentication.continue({ ...request, token: step.token, after }, `${idempotencyKey}:method`);
    },
    continue: async (request: AuthenticationContinuation, idempotencyKey: string) => {
      if (request.after.step === 'redirect') {
        // The issuer's PaRes after 3-D Secure 1: `/authorise3d` with Adyen's md is the authorisation.
        const body = { merchantAccount: this.settings.merchantAccount, md: request.token, paResponse: request.after.paRes };
        return { step: 'done', result: authorisationResult(await this.post(`${this.settings.endpoint}/authorise3d`, body, idempotencyKey)) };
      }
      const payment = paymentOf(this.settings.merchantAccount, request);
      if (!payment) return { step: 'done', result: refusedRequestResult(422, { message: notExpressible(request.amountMinor, request.currency) }) };
      const step = this.authenticationStep(await this.post(`${this.settings.endpoint}/authorise3ds2`, { ...payment, ...continuationFields(request) }, idempotencyKey));
      // A second IdentifyShopper without a method URL has nothing left to run: the table's answer for it.
      return step.step === 'method' && step.methodUrl === undefined ? { step: 'done', result: authoriseResultOf({ resultCode: 'IdentifyShopper' }) } : step;
    },
  };

  private authenticationStep(answer: Answer): ReturnType<typeof authenticationStepOf> {
    if (answer.status !== 200) return { step: 'done', result: authorisationResult(answer) };
    const step = authenticationStepOf(answer.body as AdyenAuthenticationResult);
    return step.step === 'done' ? { ...step, result: withNetworkReference(step.result, answer.body) } : step;
  }
}

/**
 * What an authorising call came to (docs/acquirers.md "What Adyen answers"): no answer that can
 * be trusted (a timeout, a 5xx, a network error) leaves the outcome unknown; a 4xx is a request
 * Adyen did not take, so nothing was authorised: a failure, with Adyen's error kept; a 200 goes
 * through the outcome table.
 */
function authorisationResult(answer: Answer): AuthoriseResult {
  if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
  if (answer.status !== 200) return refusedRequestResult(answer.status, answer.body as AdyenServiceError);
  return withNetworkReference(authoriseResultOf(answer.body as AdyenPaymentResult), answer.body);
}

/** What a Checkout `/payments` or `/payments/details` call came to: as an authorisation's answer, a 200 read by adyen-checkout.ts. */
function checkoutAnswer(answer: Answer): AuthoriseResult {
  if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
  if (answer.status !== 200) return refusedRequestResult(answer.status, answer.body as AdyenServiceError);
  return checkoutResultOf(answer.body as CheckoutPaymentResult);
}

/**
 * Which payment, how much, and when it is captured: a sale at once, an authorisation when Kassa
 * captures it (Adyen: manual capture). Undefined for an amount Adyen's units cannot carry.
 */
function paymentOf(
  merchantAccount: string,
  request: PaymentAmount & { captureNow: boolean },
  additionalData: Record<string, string> = {},
): Record<string, unknown> | undefined {
  const amount = amountOf(request.amountMinor, request.currency);
  if (!amount) return undefined;
  const data = request.captureNow ? additionalData : { ...additionalData, manualCapture: 'true' };
  return {
    merchantAccount,
    reference: request.reference,
    amount,
    ...(request.captureNow ? { captureDelayHours: 0 } : {}),
    ...(Object.keys(data).length > 0 ? { additionalData: data } : {}),
  };
}

/** A card authorisation as `/authorise` takes it: the payment, the card, what pays with it, and the shopper. Undefined for an amount Adyen's units cannot carry. */
function cardAuthorisation(
  merchantAccount: string,
  request: AuthorisationTerms,
  card: CardData,
  additionalData?: Record<string, string>,
): Record<string, unknown> | undefined {
  const payment = paymentOf(merchantAccount, request, additionalData);
  if (!payment) return undefined;
  return {
    ...payment,
    ...cardFields(card),
    ...selectedBrandOf(card),
    shopperInteraction: 'Ecommerce',
    ...shopperFields(request.shopper ?? {}),
  };
}

/** The card as `/authorise` takes it (its `card` object). */
function cardFields(card: CardData): Record<string, unknown> {
  return {
    card: {
      number: card.pan,
      expiryMonth: String(card.expiryMonth).padStart(2, '0'),
      expiryYear: String(card.expiryYear),
      // A wallet's device card carries no name (Adyen refuses an empty one); Adyen takes at most 50 characters.
      ...(card.holderName ? { holderName: [...card.holderName].slice(0, 50).join('') } : {}),
      ...(card.cvc === undefined ? {} : { cvc: card.cvc }),
    },
  };
}

/** A Bancontact card is processed as Maestro unless Adyen is told it is one (`selectedBrand`, PaymentRequest v68). */
const selectedBrandOf = (card: CardData): Record<string, string> => (card.brand === 'bcmc' ? { selectedBrand: 'bcmc' } : {});

// ---- The shopper (docs/acquirers.md "What Kassa sends on an authorisation") ----

/** Adyen's `Name` takes at most 80 characters a part: a longer name is left out, not cut. */
const MAX_NAME = 80;
/** Adyen's postal code: at most ten characters outside the US, five digits (ZIP) or ZIP+4 there. */
const MAX_POSTAL_CODE = 10;
/** Adyen's `telephoneNumber`: a plus, the country code (1–3 digits) and 4 to 15 digits; else Adyen drops it. */
const SUBSCRIBER_DIGITS = /^\d{4,15}$/;

/** Adyen's `Address`, all of whose parts but the state are required: the house number inside the line leaves `houseNumberOrName` empty rather than guessed. */
function adyenAddress(address: ShopperAddress | undefined): Record<string, string> | undefined {
  if (!address || address.postalCode.length > MAX_POSTAL_CODE) return undefined;
  return {
    street: address.street,
    houseNumberOrName: address.houseNumber ?? '',
    postalCode: address.postalCode,
    city: address.city,
    ...(address.state ? { stateOrProvince: address.state } : {}),
    country: address.country,
  };
}

/** What Kassa was told of the shopper, in Adyen's PaymentRequest fields; each one only when there is a valid value. */
export function shopperFields(shopper: Shopper): Record<string, unknown> {
  const { name, phone } = shopper;
  const billingAddress = adyenAddress(shopper.billingAddress);
  const deliveryAddress = adyenAddress(shopper.deliveryAddress);
  return {
    ...(billingAddress ? { billingAddress } : {}),
    ...(deliveryAddress ? { deliveryAddress } : {}),
    ...(shopper.email ? { shopperEmail: shopper.email } : {}),
    ...(phone && SUBSCRIBER_DIGITS.test(phone.number) ? { telephoneNumber: `+${phone.countryCode}${phone.number}` } : {}),
    ...(name && name.firstName.length <= MAX_NAME && name.lastName.length <= MAX_NAME ? { shopperName: { firstName: name.firstName, lastName: name.lastName } } : {}),
    ...(shopper.ipAddress ? { shopperIP: shopper.ipAddress } : {}),
    ...(shopper.locale ? { shopperLocale: shopper.locale } : {}),
    ...(shopper.merchantOrderReference ? { merchantOrderReference: shopper.merchantOrderReference } : {}),
  };
}

// ---- Stored cards (docs/vault.md "Paying off-session") ----

/** Adyen's recurringProcessingModel of each agreement a stored card is used under. */
const recurringProcessingModels = {
  'card-on-file': 'CardOnFile',
  subscription: 'Subscription',
  unscheduled: 'UnscheduledCardOnFile',
} as const satisfies Record<StoredCardUse['agreement'], string>;

/**
 * An authorisation that stores a card or pays with a stored one, as Adyen classifies it: the
 * cardholder present (`Ecommerce`, card on file) or the merchant charging without them
 * (`ContAuth` with `Subscription` or `UnscheduledCardOnFile`, which Adyen needs to treat it as
 * merchant-initiated), the merchant's `shopperReference` of the card, and for a merchant-initiated
 * payment `additionalData.networkTxReference`, the scheme's reference of the first
 * customer-present payment, as Kassa keeps the card itself and Adyen does not tokenise it.
 */
function withStoredCard(body: Record<string, unknown>, use: StoredCardUse | undefined): Record<string, unknown> {
  if (!use) return body;
  const networkReference = use.initiator === 'merchant' && use.networkReference ? { networkTxReference: use.networkReference } : undefined;
  return {
    ...body,
    shopperInteraction: use.initiator === 'merchant' ? 'ContAuth' : 'Ecommerce',
    recurringProcessingModel: recurringProcessingModels[use.agreement],
    shopperReference: use.shopperReference,
    ...(networkReference ? { additionalData: { ...(body.additionalData as Record<string, string> | undefined), ...networkReference } } : {}),
  };
}

/** The scheme's reference Adyen answers with an authorisation (`additionalData.networkTxReference`), kept with a stored card. */
function withNetworkReference(result: AuthoriseResult, body: Record<string, unknown>): AuthoriseResult {
  const reference = (body.additionalData as Record<string, unknown> | undefined)?.networkTxReference;
  return result.outcome === 'authorised' && typeof reference === 'string' && reference !== '' ? { ...result, networkReference: reference } : result;
}
