/**
 * The payment methods as data (docs/architecture.md#payment-methods-are-data): the `method` values of
 * docs/api.md#the-payment-object (`walletpay` is the provider's wallet, renamed) and, for each,
 * what paying by it takes. Request validation, creation, the pages, the console, `GET /method`
 * and the OpenAPI document read this table; no other file writes a method's name out. The ways a
 * method is used (a card typed or stored, the wallet's three integrations) are the flows of
 * payments/flows.ts, each naming its method here; a method paid on a page elsewhere has one
 * flow, made from its entry.
 */

/** The test-mode page that stands in for a method's own step elsewhere (docs/payment-methods.md "Test mode"). */
export type SimulatorPage = 'bank-choice' | 'wallet-sign-in' | 'pay-later' | 'transfer-instructions';

export interface MethodSpec {
  /**
   * What the acquirer is given to authorise a payment of this method: a card (typed, stored, or
   * the wallet's device card with its cryptogram), the method itself with its details while the
   * customer takes a step elsewhere (`redirect`: the bank's or the method's own page, then back to
   * Kassa), or nothing of its own (the landing page: the method the customer chooses there is paid).
   */
  instrument: 'card' | 'redirect' | 'none';
  /** The transaction types a payment of it may be (docs/api.md#create-a-payment); the first is the default. */
  transactionTypes: readonly ('sale' | 'authorise')[];
  /** The currencies it takes (ISO 4217, lower case); `all`: every currency Kassa knows. */
  currencies: 'all' | readonly string[];
  /** Whether the request must carry `orderLines` adding up to its amount (a pay-later method's invoice, docs/payment-methods.md). */
  orderLinesRequired: boolean;
  /** Whether the request may name the customer's bank (`issuer`, a BIC). */
  issuer: boolean;
  /** Whether a payment of it can be refunded. */
  refundable: boolean;
  /** What `GET /method` lists with it (docs/api.md#payment-methods): the merchant's card brands as `options`, or the method alone. */
  listing: 'card-brands' | 'plain';
  /**
   * Whether, and when, a landing page offers it (docs/api.md#the-service): whenever its acquirer
   * takes it, only in test mode (the wallet: its test sheet; live hosted wallet payments are not
   * served yet, docs/wallet.md), or never (the landing page itself).
   */
  landing: 'when-served' | 'test-mode' | 'never';
  /** The page a landing page shows once the customer chose it (a redirect method's: the step elsewhere). */
  chosenPage?: 'card-form' | 'wallet-sheet' | 'redirect';
  /** The test-mode page standing in for its step elsewhere. */
  simulator?: SimulatorPage;
  /** Whether a merchant created now accepts it until an operator says otherwise; a method Kassa adds later is off until enabled (docs/payment-methods.md). */
  enabledForNewMerchants: boolean;
}

/** Common to the methods paid on a page elsewhere; each is off for a merchant until enabled. */
const elsewhere = {
  enabledForNewMerchants: false,
  instrument: 'redirect',
  orderLinesRequired: false,
  issuer: false,
  refundable: true,
  listing: 'plain',
  landing: 'when-served',
  chosenPage: 'redirect',
} as const;

export const methods = {
  card: {
    enabledForNewMerchants: true,
    instrument: 'card',
    transactionTypes: ['sale', 'authorise'],
    currencies: 'all',
    orderLinesRequired: false,
    issuer: false,
    refundable: true,
    listing: 'card-brands',
    landing: 'when-served',
    chosenPage: 'card-form',
  },
  landingpage: {
    enabledForNewMerchants: true,
    instrument: 'none',
    transactionTypes: ['sale'],
    currencies: 'all',
    orderLinesRequired: false,
    issuer: false,
    refundable: true,
    listing: 'plain',
    landing: 'never',
  },
  walletpay: {
    enabledForNewMerchants: true,
    instrument: 'card',
    transactionTypes: ['sale'],
    currencies: 'all',
    orderLinesRequired: false,
    issuer: false,
    refundable: true,
    listing: 'plain',
    landing: 'test-mode',
    chosenPage: 'wallet-sheet',
  },
  // iDEAL is a euro scheme; since iDEAL 2.0 the customer picks the bank on iDEAL's own page, so `issuer` is optional.
  ideal: { ...elsewhere, transactionTypes: ['sale'], currencies: ['eur'], issuer: true, simulator: 'bank-choice' },
  paypal: {
    ...elsewhere,
    transactionTypes: ['sale'],
    currencies: ['eur', 'gbp', 'usd', 'chf', 'sek', 'nok', 'dkk', 'pln', 'czk', 'huf', 'aud', 'cad', 'jpy'],
    simulator: 'wallet-sign-in',
  },
  // Pay later: authorised when the order is placed, captured (with its lines) when it ships.
  klarna: {
    ...elsewhere,
    transactionTypes: ['authorise'],
    currencies: ['eur', 'gbp', 'chf', 'sek', 'nok', 'dkk', 'pln', 'czk'],
    orderLinesRequired: true,
    simulator: 'pay-later',
  },
  // Pending until the money arrives (days): the customer is shown where to transfer it and what to quote.
  banktransfer: { ...elsewhere, transactionTypes: ['sale'], currencies: ['eur'], simulator: 'transfer-instructions' },
} as const satisfies Record<string, MethodSpec>;

export type PaymentMethod = keyof typeof methods;
export const paymentMethods = Object.keys(methods) as PaymentMethod[];

/** The methods a landing page may offer: each has its name and its mark on the pages (pages/messages/*.json, pages/marks.ts). */
export type OfferedMethod = { [M in PaymentMethod]: (typeof methods)[M]['landing'] extends 'never' ? never : M }[PaymentMethod];
export const isOffered = (method: PaymentMethod): method is OfferedMethod => methods[method].landing !== 'never';

/** The methods paid on a page elsewhere: each is a flow of its own (payments/flows.ts). */
export type RedirectMethod = { [M in PaymentMethod]: (typeof methods)[M]['instrument'] extends 'redirect' ? M : never }[PaymentMethod];
export const redirectMethods = paymentMethods.filter((method): method is RedirectMethod => methods[method].instrument === 'redirect');

/**
 * Methods their schemes have shut down, still sent by older shop plugins: refused with a
 * problem naming `/method` that says so (docs/payment-methods.md "Methods no longer offered").
 */
export const retiredMethods: Readonly<Record<string, string>> = {
  sofort: 'Sofort was shut down by Klarna in 2024; offer klarna or banktransfer instead',
  giropay: 'giropay was shut down by its scheme in 2024; offer card, paypal or banktransfer instead',
};

/** The entry of a stored payment's method: the `method` column holds a key of `methods` (or `vault` for an enrollment, which has none). */
export function methodOf(name: string): MethodSpec | undefined {
  return Object.hasOwn(methods, name) ? methods[name as PaymentMethod] : undefined;
}
