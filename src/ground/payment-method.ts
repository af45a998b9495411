/**
 * The payment methods as data (docs/architecture.md#payment-methods-are-data): the `method` values of
 * docs/api.md#the-payment-object (`walletpay` is the provider's wallet, renamed) and, for each,
 * what paying by it takes. Request validation, creation, the pages, the console, `GET /method`
 * and the OpenAPI document read this table; no other file writes a method's name out. The ways a
 * method is used (a card typed or stored, the wallet's three integrations) are the flows of
 * payments/flows.ts, each naming its method here.
 */

export interface MethodSpec {
  /**
   * What the acquirer is given to authorise a payment of this method: a card (typed, stored, or
   * the wallet's device card with its cryptogram), the method itself with its details while the
   * customer takes a step elsewhere (`redirect`), or nothing of its own (the landing page: the
   * method the customer chooses there is paid).
   */
  instrument: 'card' | 'redirect' | 'none';
  /** What `GET /method` lists with it (docs/api.md#payment-methods): the merchant's card brands as `options`, or the method alone. */
  listing: 'card-brands' | 'plain';
  /**
   * Whether, and when, a landing page offers it (docs/api.md#the-service): whenever its acquirer takes it,
   * only in test mode (the wallet: its test sheet; live hosted wallet payments are not served yet,
   * docs/wallet.md), or never (the landing page itself).
   */
  landing: 'when-served' | 'test-mode' | 'never';
  /** The page a landing page shows once the customer chose it. */
  chosenPage?: 'card-form' | 'wallet-sheet';
}

export const methods = {
  card: { instrument: 'card', listing: 'card-brands', landing: 'when-served', chosenPage: 'card-form' },
  landingpage: { instrument: 'none', listing: 'plain', landing: 'never' },
  walletpay: { instrument: 'card', listing: 'plain', landing: 'test-mode', chosenPage: 'wallet-sheet' },
} as const satisfies Record<string, MethodSpec>;

export type PaymentMethod = keyof typeof methods;
export const paymentMethods = Object.keys(methods) as PaymentMethod[];

/** The entry of a stored payment's method: the `method` column holds a key of `methods` (or `vault` for an enrollment, which has none). */
export function methodOf(name: string): MethodSpec | undefined {
  return Object.hasOwn(methods, name) ? methods[name as PaymentMethod] : undefined;
}
