/**
 * The flows as data (docs/architecture.md#flows-are-data). A flow is one way a customer pays or
 * stores a card: the kinds docs/api.md#the-service names (card, landing page, wallet, vault payment, vault
 * enrollment), with the wallet split by how the merchant integrates it (docs/api.md#create-a-payment: hosted,
 * direct with the merchant's own token, hybrid on the merchant's own checkout page). Each
 * entry says:
 * - how a request is recognised as it (docs/api.md#create-a-payment, docs/api.md#the-details-object): a create-payment request by its `method`
 *   and, where a method has several flows, by one of the `details` fields that mark one; the
 *   enrollment by its own request's `dataType` (docs/api.md#vault-enrollment);
 * - what its request must and must not carry: the `details` fields it requires and forbids,
 *   whether `returnUrl` is required (every flow that sends the customer to a Kassa page
 *   brings them back there, docs/api.md#the-service), the transaction types it allows (the first is the
 *   default), whether `brand` and `storeInVault: yes` are accepted, and the context its
 *   3-D Secure 2 data is validated in (docs/api.md#3-d-secure-2-data; docs/api.md#vault-enrollment for the enrollment);
 * - what creating it needs besides storing the row, what the customer sees at `payUrl`,
 *   whether it puts a card in the vault, what its `details` show, and which addresses its
 *   payment object carries (docs/api.md#the-payment-object; `cardDataUrl` receives the hybrid flow's token, docs/api.md#post-a-wallet-token).
 * The request tables of request.ts and vault/enroll.ts, the payment object (serialize.ts),
 * creation and the pages read this table instead of comparing flow names.
 */
import { methods, redirectMethods, type PaymentMethod, type RedirectMethod } from '../ground/payment-method.ts';
import type { ThreeDSContext } from '../threeds/validate.ts';

/** The card and wallet flows, the landing page, the enrollment, and one flow per method paid elsewhere (named as the method). */
export type Flow = 'card' | 'vault-mit' | 'vault' | 'landingpage' | 'walletpay-hosted' | 'walletpay-direct' | 'walletpay-hybrid' | 'enrollment' | RedirectMethod;

/** The flows of a create-payment request (docs/api.md#create-a-payment): all but the enrollment. */
export type PaymentFlow = Exclude<Flow, 'enrollment'>;

/** The `details` fields a create-payment request may carry (docs/api.md#the-details-object, and `expirationDuration` of docs/decisions.md#states). */
export type DetailsField = 'vaultAccessToken' | 'walletPayEncryptedToken' | 'walletPayValidationUrl' | 'walletPayDomainName' | 'expirationDuration';

export type TransactionType = 'sale' | 'authorise' | 'token';

/** A details field the flow refuses (`not_allowed`) when any of `fields` holds a valid value; reported at `reportedAt`. */
export interface Forbidden {
  fields: readonly DetailsField[];
  reportedAt: DetailsField;
  message: string;
}

/** What GET payUrl shows while the payment is pending. */
export type Page =
  | 'card-form'
  | 'stored-card'
  /** The landing page: the customer picks a method, then sees that method's page (docs/api.md#the-service). */
  | 'method-choice'
  | 'wallet-sheet'
  /** The customer is sent to the method's own step elsewhere (its bank, its sign-in), and comes back to Kassa (docs/payment-methods.md). */
  | 'redirect'
  /** The merchant's own checkout takes the payment (docs/api.md#create-a-payment, docs/api.md#hybrid-wallet-checkout): payUrl only shows its status. */
  | 'none';

/** The work creating the payment needs before its row is stored (docs/api.md#create-a-payment). */
export type Creation =
  | 'plain'
  /** Read the caller's stored card named by `details.vaultAccessToken`: its brand and masked number show from creation on (docs/api.md#the-payment-object, docs/api.md#the-details-object). */
  | 'vault-card'
  /** Verify and decrypt `details.walletPayEncryptedToken` now (a bad token is a 422), and pay with it after answering. */
  | 'wallet-token'
  /** Obtain the merchant session from `details.walletPayValidationUrl`: it is answered as `details.walletPayPaymentSession`. */
  | 'wallet-session';

export interface FlowSpec {
  /** The payment object's `method` (docs/api.md#the-payment-object). */
  method: PaymentMethod | 'vault';
  /** How error messages name the flow. */
  title: string;
  /**
   * A create-payment request with `method` and one of these `details` fields sent (none: the
   * method's plain flow), and where given, `sequenceInfo.source` (docs/api.md#sequence-information);
   * or the enrollment request (docs/api.md#vault-enrollment).
   */
  recognisedBy: { detailsSent: readonly DetailsField[]; sequenceSource?: 'MIT' } | { dataType: 'card' };
  /** `details` fields the request must send (`conditional_required`). */
  requires: readonly DetailsField[];
  forbids: readonly Forbidden[];
  requiresReturnUrl: boolean;
  /** The `type`s a request may ask for with `type`/`transactionType`; the first is the default. */
  transactionTypes: readonly TransactionType[];
  /** Whether `brand` (a card brand to preselect, docs/api.md#create-a-payment) is accepted. */
  brand: boolean;
  /** Whether `storeInVault: yes` is accepted (docs/api.md#the-details-object). */
  storeInVault: boolean;
  /** The context validateThreeDS checks the 3-D Secure 2 fields in; `operation` is also the kind of the authentication (enrollment: adding a card). */
  threeDS: ThreeDSContext;
  page: Page;
  creation: Creation;
  /** Whether a card entered for it is put in the vault: always (enrollment), when the request asked (`storeInVault: yes`), or never. */
  storesCard: 'always' | 'if-asked' | 'never';
  /** Whether the request must carry `orderLines` adding up to its amount (its method's entry; absent: no). */
  orderLinesRequired?: boolean;
  /** Whether the request may name the customer's bank (`issuer`; absent: no). */
  issuer?: boolean;
  /** Whether its `details` show `expirationDuration` (docs/api.md#the-details-object: landing page). */
  expiryInDetails: boolean;
  /** The addresses its payment object carries (docs/api.md#the-payment-object). */
  answer: { payUrl: boolean; cancelUrl: boolean; cardDataUrl: boolean };
  /**
   * Who starts the payment: absent, the customer on Kassa's page; `merchant`, the merchant's
   * server with a stored card and no customer present, authorised while the create request is
   * answered (docs/vault.md "Paying off-session").
   */
  initiator?: 'merchant';
}

/** A vault access token pays with a stored card: a card payment (docs/api.md#the-service). */
const vaultTokenOnlyWithCard = { fields: ['vaultAccessToken'], reportedAt: 'vaultAccessToken', message: 'is only allowed with method card' } as const;

const cardEntry = { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: false } as const;
/** The merchant captured the card data (the wallet token) in its own checkout: browserInfo is then required (docs/api.md#billing-and-shipping-fields, docs/api.md#browser-data). */
const merchantCheckout = { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: true } as const;

/** A create-payment flow recognised by its method alone. */
interface RedirectFlowSpec extends FlowSpec {
  method: RedirectMethod;
  recognisedBy: { detailsSent: readonly [] };
}

/** The flow of a method paid on a page elsewhere: its method's entry says what its request takes. */
function redirectFlow(method: RedirectMethod): RedirectFlowSpec {
  const spec = methods[method];
  return {
    method,
    title: method,
    recognisedBy: { detailsSent: [] },
    requires: [],
    forbids: [vaultTokenOnlyWithCard],
    requiresReturnUrl: true,
    transactionTypes: spec.transactionTypes,
    brand: false,
    storeInVault: false,
    threeDS: cardEntry,
    page: 'redirect',
    creation: 'plain',
    storesCard: 'never',
    orderLinesRequired: spec.orderLinesRequired,
    issuer: spec.issuer,
    expiryInDetails: false,
    // docs/api.md#cancel: the merchant may cancel a payment the customer has not finished elsewhere.
    answer: { payUrl: true, cancelUrl: true, cardDataUrl: false },
  };
}

const ownFlows = {
  card: {
    method: 'card',
    title: 'card',
    recognisedBy: { detailsSent: [] },
    requires: [],
    forbids: [],
    requiresReturnUrl: true,
    transactionTypes: ['sale', 'authorise'],
    brand: true,
    storeInVault: true,
    threeDS: cardEntry,
    page: 'card-form',
    creation: 'plain',
    storesCard: 'if-asked',
    expiryInDetails: false,
    answer: { payUrl: true, cancelUrl: true, cardDataUrl: false },
  },
  // Before `vault`: the same token marks both, and the sequence source picks this one (request.ts recogniseFlow).
  'vault-mit': {
    method: 'card',
    title: 'off-session vault',
    recognisedBy: { detailsSent: ['vaultAccessToken'], sequenceSource: 'MIT' },
    requires: ['vaultAccessToken'],
    forbids: [],
    // No customer is sent anywhere: the create answer carries the outcome (docs/vault.md "Paying off-session").
    requiresReturnUrl: false,
    transactionTypes: ['sale', 'authorise'],
    brand: false,
    storeInVault: false,
    threeDS: { operation: 'payment', usesVaultToken: true, merchantCapturesCardData: false },
    page: 'none',
    creation: 'vault-card',
    storesCard: 'never',
    expiryInDetails: false,
    answer: { payUrl: false, cancelUrl: false, cardDataUrl: false },
    initiator: 'merchant',
  },
  vault: {
    method: 'card',
    title: 'vault',
    recognisedBy: { detailsSent: ['vaultAccessToken'] },
    requires: ['vaultAccessToken'],
    forbids: [],
    requiresReturnUrl: true,
    transactionTypes: ['sale', 'authorise'],
    brand: true,
    // Accepted as on any card payment; the card is in the vault already.
    storeInVault: true,
    // docs/api.md#sequence-information: a stored card's payment needs no sequenceInfo.initialTransactionId.
    threeDS: { operation: 'payment', usesVaultToken: true, merchantCapturesCardData: false },
    page: 'stored-card',
    creation: 'vault-card',
    storesCard: 'never',
    expiryInDetails: false,
    answer: { payUrl: true, cancelUrl: true, cardDataUrl: false },
  },
  landingpage: {
    method: 'landingpage',
    title: 'landing page',
    recognisedBy: { detailsSent: [] },
    requires: [],
    forbids: [vaultTokenOnlyWithCard],
    requiresReturnUrl: true,
    transactionTypes: ['sale'],
    // The card form the customer may choose shows it preselected.
    brand: true,
    storeInVault: false,
    threeDS: cardEntry,
    page: 'method-choice',
    creation: 'plain',
    storesCard: 'never',
    expiryInDetails: true,
    answer: { payUrl: true, cancelUrl: false, cardDataUrl: false },
  },
  'walletpay-hosted': {
    method: 'walletpay',
    title: 'hosted wallet',
    recognisedBy: { detailsSent: [] },
    requires: [],
    forbids: [vaultTokenOnlyWithCard],
    requiresReturnUrl: true,
    // docs/api.md#the-service: the wallet supports sale and refund only.
    transactionTypes: ['sale'],
    brand: false,
    storeInVault: false,
    threeDS: cardEntry,
    page: 'wallet-sheet',
    creation: 'plain',
    storesCard: 'never',
    expiryInDetails: false,
    answer: { payUrl: true, cancelUrl: false, cardDataUrl: false },
  },
  'walletpay-direct': {
    method: 'walletpay',
    title: 'direct wallet',
    // Sent with the hybrid fields too, the token wins and the hybrid fields are refused.
    recognisedBy: { detailsSent: ['walletPayEncryptedToken'] },
    requires: ['walletPayEncryptedToken'],
    forbids: [
      vaultTokenOnlyWithCard,
      {
        fields: ['walletPayValidationUrl', 'walletPayDomainName'],
        reportedAt: 'walletPayEncryptedToken',
        message: 'cannot be combined with walletPayValidationUrl/walletPayDomainName',
      },
    ],
    requiresReturnUrl: false,
    transactionTypes: ['sale'],
    brand: false,
    storeInVault: false,
    threeDS: merchantCheckout,
    page: 'none',
    creation: 'wallet-token',
    storesCard: 'never',
    expiryInDetails: false,
    answer: { payUrl: true, cancelUrl: false, cardDataUrl: false },
  },
  'walletpay-hybrid': {
    method: 'walletpay',
    title: 'hybrid wallet',
    // Either field marks the flow, so the other one missing is reported as such (docs/api.md#create-a-payment: both are required).
    recognisedBy: { detailsSent: ['walletPayValidationUrl', 'walletPayDomainName'] },
    requires: ['walletPayValidationUrl', 'walletPayDomainName'],
    forbids: [vaultTokenOnlyWithCard],
    requiresReturnUrl: false,
    transactionTypes: ['sale'],
    brand: false,
    storeInVault: false,
    threeDS: merchantCheckout,
    page: 'none',
    creation: 'wallet-session',
    storesCard: 'never',
    expiryInDetails: false,
    // docs/api.md#create-a-payment: the merchant posts the token to cardDataUrl (docs/api.md#post-a-wallet-token) and calls cancelUrl when the customer cancels (docs/api.md#cancel).
    answer: { payUrl: true, cancelUrl: true, cardDataUrl: true },
  },
  enrollment: {
    method: 'vault',
    title: 'vault enrollment',
    recognisedBy: { dataType: 'card' },
    requires: [],
    forbids: [],
    requiresReturnUrl: true,
    transactionTypes: ['token'],
    // Its request (docs/api.md#vault-enrollment) has neither field: sent, they are ignored as unknown fields (docs/api.md#existing-clients).
    brand: false,
    storeInVault: false,
    threeDS: { operation: 'enrollment', usesVaultToken: false, merchantCapturesCardData: false },
    page: 'card-form',
    creation: 'plain',
    storesCard: 'always',
    expiryInDetails: false,
    answer: { payUrl: true, cancelUrl: false, cardDataUrl: false },
  },
} as const satisfies Record<Exclude<Flow, RedirectMethod>, FlowSpec>;

export const flows: typeof ownFlows & Readonly<Record<RedirectMethod, RedirectFlowSpec>> = {
  ...ownFlows,
  ...(Object.fromEntries(redirectMethods.map((method) => [method, redirectFlow(method)])) as Record<RedirectMethod, RedirectFlowSpec>),
};

export const flowNames = Object.keys(flows) as Flow[];

/** The entry of a stored transaction's flow: the `flow` column only ever holds a key of `flows`. */
export function flowOf(name: string): FlowSpec {
  if (!Object.hasOwn(flows, name)) throw new Error(`Unknown flow ${name}`);
  return flows[name as Flow];
}

/** A follow-up of a payment (a refund, a capture: payments/follow-ups/follow-up.ts) is made by the merchant, not paid by a customer: it has no customer addresses, whatever its payment's flow. */
const followUpAddresses: FlowSpec['answer'] = { payUrl: false, cancelUrl: false, cardDataUrl: false };

/** The customer addresses a transaction's payment object carries and its capability token opens (docs/api.md#the-payment-object, docs/api.md#post-a-wallet-token, docs/api.md#cancel). */
export function addressesOf(row: { flow: string; parent_reference: string | null }): FlowSpec['answer'] {
  return row.parent_reference === null ? flowOf(row.flow).answer : followUpAddresses;
}
