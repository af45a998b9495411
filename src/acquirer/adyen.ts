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
  FollowUpRequest,
  FollowUpResult,
  Served,
} from './connector.ts';
import type { AcquirerAuthentication, AuthenticatingRequest, AuthenticationContinuation, PaymentAmount } from './connector.ts';
import type { TechnicalCancelRequest } from './connector.ts';
import { authoriseResultOf, type AdyenPaymentResult } from './adyen-outcomes.ts';
import { authenticatingFields, authenticationStepOf, continuationFields, type AdyenAuthenticationResult } from './adyen-3ds2.ts';
import { findCurrency } from '../ground/amount.ts';

export interface AdyenSettings {
  /** The Payment API base, e.g. `https://pal-test.adyen.com/pal/servlet/Payment/v68`, or a live endpoint with its prefix. */
  endpoint: string;
  merchantAccount: string;
  apiKey: string;
  /** How long an answer may take; beyond it the outcome is unknown. */
  timeoutMs: number;
}

/** Adyen amounts are in minor units with an upper-case currency (Amount schema). */
const amountOf = (amountMinor: number, currency: string) => ({ value: amountMinor, currency: currency.toUpperCase() });

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

/** What a call came to: Adyen's JSON answer, or no answer that can be trusted (a timeout, a 5xx, a network error). */
type Answer = { status: number; body: Record<string, unknown> } | { status: 'unknown'; reason: string };

export class AdyenConnector implements AcquirerConnector {
  readonly name = 'adyen';
  /** The Classic API takes card data only: cards typed or stored, and the wallet's device cards (docs/acquirers.md#adyen). */
  readonly serves: Served = { methods: ['card', 'walletpay'], currencies: 'all' };

  constructor(private readonly settings: AdyenSettings) {}

  async authorise(request: AuthoriseRequest, idempotencyKey: string): Promise<AuthoriseResult> {
    const { instrument } = request;
    // `serves` keeps every other method away from this connector (payments/ports.ts).
    if (instrument.kind !== 'card') throw new Error(`the Adyen Classic API takes cards only, not ${instrument.method}`);
    const { card, authentication } = instrument;
    const body: Record<string, unknown> = {
      ...cardAuthorisation(this.settings.merchantAccount, request, card),
      ...(authentication ? { mpiData: mpiDataOf(authentication) } : {}),
    };
    const answer = await this.post('/authorise', body, idempotencyKey);
    if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
    if (answer.status !== 200) return { outcome: 'unknown', reason: `Adyen answered ${answer.status}: ${String(answer.body.errorCode ?? '')}` };
    return authoriseResultOf(answer.body as AdyenPaymentResult);
  }

  capture(request: FollowUpRequest, idempotencyKey: string): Promise<FollowUpResult> {
    return this.modify('/capture', request, idempotencyKey, true);
  }

  reversal(request: FollowUpRequest, idempotencyKey: string): Promise<FollowUpResult> {
    return this.modify('/cancel', request, idempotencyKey, false);
  }

  refund(request: FollowUpRequest, idempotencyKey: string): Promise<FollowUpResult> {
    return this.modify('/refund', request, idempotencyKey, true);
  }

  /** A modification of an authorisation: Adyen takes it (`[…-received]`) and says later, by notification, whether it was done. */
  private async modify(path: string, request: FollowUpRequest, idempotencyKey: string, withAmount: boolean): Promise<FollowUpResult> {
    const currency = findCurrency(request.currency);
    const body: Record<string, unknown> = {
      merchantAccount: this.settings.merchantAccount,
      originalReference: request.acquirerReference,
      reference: request.reference,
      ...(withAmount && currency ? { modificationAmount: amountOf(request.amountMinor, request.currency) } : {}),
    };
    return this.modificationResult(await this.post(path, body, idempotencyKey));
  }

  // ---- Unknown outcomes (docs/acquirers.md "Unknown outcomes") ----

  /**
   * `/technicalCancel`: cancels an authorisation by Kassa's reference (`originalMerchantReference`),
   * for one whose answer never came; Adyen takes it (`[technical-cancel-received]`) and cancels or
   * refunds whatever the authorisation did.
   */
  async technicalCancel(request: TechnicalCancelRequest, idempotencyKey: string): Promise<FollowUpResult> {
    const body = { merchantAccount: this.settings.merchantAccount, originalMerchantReference: request.reference, reference: request.reference };
    return this.modificationResult(await this.post('/technicalCancel', body, idempotencyKey));
  }

  // ---- end of unknown outcomes ----

  private modificationResult(answer: Answer): FollowUpResult {
    if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
    const { response, pspReference, message, errorCode } = answer.body as { response?: string; pspReference?: string; message?: string; errorCode?: string };
    if (answer.status === 200 && typeof response === 'string' && response.endsWith('-received]') && typeof pspReference === 'string') {
      return { outcome: 'received', acquirerReference: pspReference };
    }
    return { outcome: 'refused', reason: `Adyen answered ${answer.status}${errorCode ? ` ${errorCode}` : ''}${message ? `: ${message}` : ''}` };
  }

  private async post(path: string, body: Record<string, unknown>, idempotencyKey: string): Promise<Answer> {
    try {
      const response = await fetch(`${this.settings.endpoint}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': this.settings.apiKey, 'idempotency-key': idempotencyKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      const text = await response.text();
      if (response.status >= 500) return { status: 'unknown', reason: `Adyen answered ${response.status}` };
      return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    } catch (error) {
      return { status: 'unknown', reason: error instanceof Error ? error.name : 'network error' };
    }
  }

  /**
   * Adyen's native 3-D Secure 2 (adyen-3ds2.ts): `/authorise` with the browser and
   * `threeDS2RequestData`, then `/authorise3ds2` after the issuer's 3DS method or challenge.
   * Adyen's final answer is the authorisation.
   */
  readonly authentication: AcquirerAuthentication = {
    authorise: async (request: AuthenticatingRequest, idempotencyKey: string) => {
      const body = cardAuthorisation(this.settings.merchantAccount, request, request.card, { allow3DS2: 'true' });
      const step = this.authenticationStep(await this.post('/authorise', { ...body, ...authenticatingFields(request) }, idempotencyKey));
      if (step.step !== 'method' || step.methodUrl !== undefined) return step;
      // The issuer has no 3DS method: Adyen is told at once that none ran (EMVCo threeDSCompInd U).
      const after = { step: 'method', completed: 'U' } as const;
      return this.authentication.continue({ ...request, token: step.token, after }, `${idempotencyKey}:method`);
    },
    continue: async (request: AuthenticationContinuation, idempotencyKey: string) => {
      const step = this.authenticationStep(
        await this.post('/authorise3ds2', { ...paymentOf(this.settings.merchantAccount, request), ...continuationFields(request) }, idempotencyKey),
      );
      // A second IdentifyShopper without a method URL has nothing left to run: the table's answer for it.
      return step.step === 'method' && step.methodUrl === undefined ? { step: 'done', result: authoriseResultOf({ resultCode: 'IdentifyShopper' }) } : step;
    },
  };

  private authenticationStep(answer: Answer): ReturnType<typeof authenticationStepOf> {
    if (answer.status === 'unknown') return { step: 'done', result: { outcome: 'unknown', reason: answer.reason } };
    if (answer.status !== 200) return { step: 'done', result: { outcome: 'unknown', reason: `Adyen answered ${answer.status}: ${String(answer.body.errorCode ?? '')}` } };
    return authenticationStepOf(answer.body as AdyenAuthenticationResult);
  }
}

/** Which payment, how much, and when it is captured: a sale at once, an authorisation when Kassa captures it (Adyen: manual capture). */
function paymentOf(merchantAccount: string, request: PaymentAmount & { captureNow: boolean }, additionalData: Record<string, string> = {}): Record<string, unknown> {
  const data = request.captureNow ? additionalData : { ...additionalData, manualCapture: 'true' };
  return {
    merchantAccount,
    reference: request.reference,
    amount: amountOf(request.amountMinor, request.currency),
    ...(request.captureNow ? { captureDelayHours: 0 } : {}),
    ...(Object.keys(data).length > 0 ? { additionalData: data } : {}),
  };
}

/** A card authorisation as `/authorise` takes it: the payment and the card, typed by the customer in Kassa's page. */
function cardAuthorisation(merchantAccount: string, request: AuthorisationTerms, card: CardData, additionalData?: Record<string, string>): Record<string, unknown> {
  return {
    ...paymentOf(merchantAccount, request, additionalData),
    card: {
      number: card.pan,
      expiryMonth: String(card.expiryMonth).padStart(2, '0'),
      expiryYear: String(card.expiryYear),
      // A wallet's device card carries no name (Adyen refuses an empty one); Adyen takes at most 50 characters.
      ...(card.holderName ? { holderName: [...card.holderName].slice(0, 50).join('') } : {}),
      ...(card.cvc === undefined ? {} : { cvc: card.cvc }),
    },
    shopperInteraction: 'Ecommerce',
  };
}
