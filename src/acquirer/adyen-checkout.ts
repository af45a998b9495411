/**
 * Adyen's Checkout API v71 (`CheckoutService-v71.json`, docs/acquirers.md "Methods paid elsewhere
 * through Adyen"): the methods the customer completes on a page elsewhere — iDEAL, PayPal, Klarna,
 * bank transfer — which the Classic API has not. `/payments` names the method and Kassa's page to
 * come back to; Adyen answers with the `action` that sends the customer on (a redirect, or a bank
 * transfer's instructions); `/payments/details` with what the customer came back with gives the
 * outcome, and the `AUTHORISATION` notification is the final word. Modifications of every payment
 * go through `/payments/{pspReference}/…` once the Checkout API is connected. What the requests
 * hold and what the answers mean is here, pure; adyen.ts sends them.
 */
import type { RedirectMethod } from '../ground/payment-method.ts';
import type { AuthorisationTerms, AuthoriseResult, ModificationRequest, ModificationResult, InvoiceLine, PaymentInstrument, TransferInstructions } from './connector.ts';
import { authoriseResultOf, type AdyenPaymentResult } from './adyen-outcomes.ts';
import { toAdyenMinor } from './adyen-amounts.ts';

/** Each method paid elsewhere as Checkout's `paymentMethod` names it (IdealDetails, PayPalDetails, KlarnaDetails, PaymentDetails). */
export const checkoutPaymentMethods = {
  ideal: { type: 'ideal' },
  paypal: { type: 'paypal', subtype: 'redirect' },
  // Klarna's "pay later" (invoice); its other products are `klarna_paynow` and `klarna_account`.
  klarna: { type: 'klarna' },
  banktransfer: { type: 'bankTransfer_IBAN' },
} as const satisfies Record<RedirectMethod, { type: string; subtype?: string }>;

type RedirectInstrument = Extract<PaymentInstrument, { kind: 'redirect' }>;

/**
 * Klarna's invoice as Checkout's `lineItems`: a line's price per item including tax, in Adyen's
 * minor units, with its quantity; a line whose total does not divide by its quantity (or whose
 * quantity is not whole) goes as one item of its total, so the lines still add up to the amount
 * exactly, as Klarna requires. `taxPercentage` is in hundredths of a percent (2100 for 21 %).
 * Undefined when Adyen's units cannot carry a line.
 */
export function lineItemsOf(invoice: readonly InvoiceLine[], currency: string): Record<string, unknown>[] | undefined {
  const items: Record<string, unknown>[] = [];
  for (const line of invoice) {
    const whole = Number.isInteger(line.quantity) && line.quantity > 0 && line.totalMinor % line.quantity === 0;
    const quantity = whole ? line.quantity : 1;
    const each = toAdyenMinor(Math.abs(line.totalMinor / quantity), currency);
    if (each === undefined) return undefined;
    items.push({
      ...(line.code ? { id: line.code } : {}),
      description: line.name,
      quantity,
      amountIncludingTax: line.totalMinor < 0 ? -each : each,
      ...(line.vatRate === undefined ? {} : { taxPercentage: Math.round(line.vatRate * 100) }),
    });
  }
  return items;
}

/**
 * `/payments` for a method paid elsewhere: which payment and how much, when it is captured (a sale
 * at once; an authorisation when Kassa captures it), the method, where the customer comes back
 * (`<payment page>/return`), the shopper (Klarna needs the billing address, e-mail and name) and,
 * for Klarna, the invoice. Undefined for an amount Adyen's units cannot carry.
 */
export function checkoutPaymentRequest(
  merchantAccount: string,
  request: AuthorisationTerms,
  instrument: RedirectInstrument,
  shopperFields: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const value = toAdyenMinor(request.amountMinor, request.currency);
  if (value === undefined) return undefined;
  const lineItems = instrument.invoice ? lineItemsOf(instrument.invoice, request.currency) : undefined;
  if (instrument.invoice && !lineItems) return undefined;
  const country = request.shopper?.billingAddress?.country;
  return {
    merchantAccount,
    reference: request.reference,
    amount: { value, currency: request.currency.toUpperCase() },
    paymentMethod: checkoutPaymentMethods[instrument.method],
    returnUrl: `${instrument.paymentPageUrl}/return`,
    channel: 'Web',
    ...(request.captureNow ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
    ...(country ? { countryCode: country } : {}),
    ...shopperFields,
    ...(lineItems ? { lineItems } : {}),
  };
}

/** Checkout's answer to `/payments` or `/payments/details` (PaymentResponse, PaymentDetailsResponse): the parts Kassa reads. */
export interface CheckoutPaymentResult extends AdyenPaymentResult {
  action?: {
    type?: string;
    url?: string;
    method?: string;
    /** A POST redirect's fields (Checkout's `RedirectAction.data`). */
    data?: Record<string, unknown>;
    beneficiary?: string;
    iban?: string;
    bic?: string;
    reference?: string;
  };
}

/** A bank transfer's instructions, when the action gives what the customer needs: an account and a reference. */
function transferOf(action: NonNullable<CheckoutPaymentResult['action']>): TransferInstructions | undefined {
  if (!action.iban || !action.reference) return undefined;
  return { beneficiary: action.beneficiary ?? '', iban: action.iban, ...(action.bic ? { bic: action.bic } : {}), reference: action.reference };
}

/** A redirect action's way to the method's page: a GET of its address, or a POST of its `data` (text fields only); undefined for any other. */
function redirectOf(action: NonNullable<CheckoutPaymentResult['action']>): { url: string; form?: Record<string, string> } | undefined {
  if (action.type !== 'redirect' || !action.url) return undefined;
  const method = (action.method ?? 'GET').toUpperCase();
  if (method === 'GET') return { url: action.url };
  const fields = Object.entries(action.data ?? {});
  if (method !== 'POST' || !fields.every(([, value]) => typeof value === 'string')) return undefined;
  return { url: action.url, form: Object.fromEntries(fields) as Record<string, string> };
}

/**
 * What a Checkout answer means for a payment paid elsewhere: a redirect to the method's page (a
 * GET, or a POST of the action's `data` that the page's form makes), a bank transfer's instructions,
 * an outcome still to come by notification (`Pending`, `Received`), else the outcome table of
 * cards (adyen-outcomes.ts: `Authorised`, `Refused`, `Cancelled`, `Error`), a plain refusal
 * being `rejected` rather than `card_refused`.
 */
export function checkoutResultOf(result: CheckoutPaymentResult): AuthoriseResult {
  const acquirerReference = result.pspReference ? { acquirerReference: result.pspReference } : {};
  const { action } = result;
  const redirect = action && redirectOf(action);
  if (redirect) return { outcome: 'redirect', ...redirect, ...acquirerReference };
  if (action?.type === 'bankTransfer') {
    const transfer = transferOf(action);
    if (transfer) return { outcome: 'pending', ...acquirerReference, transfer };
  }
  if (!action && (result.resultCode === 'Pending' || result.resultCode === 'Received')) return { outcome: 'pending', ...acquirerReference };
  const decided = authoriseResultOf(result);
  // No card was refused: the bank or the method's own checkout turned the payment down.
  return decided.outcome === 'declined' && decided.failureCode === 'card_refused' ? { ...decided, failureCode: 'rejected' } : decided;
}

/**
 * The parameters of the address a customer came back to that `/payments/details` takes
 * (PaymentCompletionDetails): the redirect's result, or what a method posts back instead.
 */
export const completionDetailNames = ['redirectResult', 'payload', 'MD', 'PaRes', 'resultCode', 'paymentStatus', 'orderID', 'payerID', 'paymentID'] as const;

/** `/payments/{pspReference}/captures|refunds|cancels`: the modification, its amount where it has one. Undefined for an amount Adyen's units cannot carry. */
export function checkoutModification(merchantAccount: string, request: ModificationRequest, withAmount: boolean): Record<string, unknown> | undefined {
  if (!withAmount) return { merchantAccount, reference: request.reference };
  const value = toAdyenMinor(request.amountMinor, request.currency);
  return value === undefined ? undefined : { merchantAccount, reference: request.reference, amount: { value, currency: request.currency.toUpperCase() } };
}

/** A modification Checkout took (201, `status: received`) is done later, by notification; anything else it refused. */
export function checkoutModificationResult(status: number, body: Record<string, unknown>): ModificationResult {
  const { status: state, pspReference, message, errorCode } = body as { status?: string; pspReference?: string; message?: string; errorCode?: string };
  if ((status === 200 || status === 201) && state === 'received' && typeof pspReference === 'string') return { outcome: 'received', acquirerReference: pspReference };
  return { outcome: 'refused', reason: `Adyen answered ${status}${errorCode ? ` ${errorCode}` : ''}${message ? `: ${message}` : ''}` };
}
