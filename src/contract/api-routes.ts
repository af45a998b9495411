/**
 * The merchant API's routes as its OpenAPI document (document.ts) describes them: one entry per
 * route, with its body's schema, its answer, the problems it may answer and how it is authorised.
 */
import { TransactionQuery } from './queries.ts';
import { ref, type Schema } from './payment-schema.ts';

/** Where the document is served, under `{base_url}`. */
export const OPENAPI_PATH = '/openapi.json';

export interface Route {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** The body's schema (a component name); none for a body-less POST. */
  body?: string;
  bodyExample?: unknown;
  /** The 200 answer's schema. */
  answer: Schema;
  answerDescription?: string;
  /** Shows the pending card payment of `examplePayment`. */
  answersExample?: true;
  /** The statuses of the problems it may answer besides those of every route. */
  problems: readonly number[];
  /** An operation of the runner: takes an Idempotency-Reference. */
  idempotent?: true;
  /** Authorised by the capability token in its address; a key, if sent, must be the payment's merchant's. */
  capability?: true;
  /** Needs no key at all. */
  open?: true;
  parameters?: Schema[];
}

/** What every route of the API may answer: a request that is not HTTP, the rate limit, an error inside, a stopping process. */
export const everyRoute = [400, 414, 429, 500, 503];

const tokenParameter = { name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The capability token of the payment’s address.' };

const transactionParameters = Object.entries(TransactionQuery.properties).map(([name, schema]) => {
  const { description, ...rest } = schema as Schema;
  return { name, in: 'query', required: false, description, schema: rest };
});

export const routes: readonly Route[] = [
  {
    method: 'post',
    path: '/payment',
    operationId: 'createPayment',
    summary: 'Create a payment',
    description:
      'The `method` and the `details` sent pick the flow: card (or a vault payment with `details.vaultAccessToken`), landing page, or wallet (hosted; direct with `details.walletPayEncryptedToken`; hybrid with `details.walletPayValidationUrl` and `walletPayDomainName`). Send the customer to `payUrl`; learn the outcome from the webhook and by reading the transaction.',
    tag: 'Payments',
    body: 'PaymentRequest',
    bodyExample: { amount: '10.50', currency: 'EUR', method: 'card', returnUrl: 'https://shop.example/return?order=1001', merchantOrderReference: 'order-1001' },
    answer: ref('Payment'),
    answersExample: true,
    problems: [401, 409, 413, 422, 502],
    idempotent: true,
  },
  {
    method: 'get',
    path: '/transaction',
    operationId: 'readTransaction',
    summary: 'Read a transaction',
    description: 'Any transaction of the key’s merchant and mode, by `reference`; or several at once by `references`.',
    tag: 'Payments',
    answer: {
      oneOf: [
        { title: 'one payment', ...ref('Payment') },
        { title: 'a list of payments', type: 'array', items: ref('Payment') },
      ],
    },
    answerDescription: 'The transaction; an array of them for `references`.',
    problems: [401, 404, 422],
    parameters: transactionParameters,
  },
  {
    method: 'get',
    path: '/method',
    operationId: 'listMethods',
    summary: 'Payment methods',
    description: 'The methods enabled for the key’s merchant.',
    tag: 'Payments',
    answer: ref('PaymentMethods'),
    answerDescription: 'The methods.',
    problems: [401],
  },
  {
    method: 'post',
    path: '/token',
    operationId: 'enrolCard',
    summary: 'Vault enrollment',
    description: 'The customer enters a card at `payUrl` (with 3-D Secure 2); on success the transaction shows `details.vaultAccessToken`.',
    tag: 'Vault',
    body: 'EnrollmentRequest',
    bodyExample: { dataType: 'card', returnUrl: 'https://shop.example/cards' },
    answer: ref('Payment'),
    problems: [401, 409, 413, 422],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/refund',
    operationId: 'refund',
    summary: 'Refund a payment',
    description:
      'A refund is its own transaction (`type: credit`, `parentReference` the payment). Without `amount`, whatever is not refunded yet. Refused (422 at `/reference`): `not_paid`, `not_captured`, `is_refund`, `not_payment`, `fully_refunded`, `refund_window_passed`, `charged_back` (what open or standing disputes hold is not refundable); at `/amount`: `exceeds_refundable`, `range`, `format`, `decimals`.',
    tag: 'Refunds and captures',
    body: 'RefundRequest',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD', amount: '4.00', description: 'one item returned' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/capture',
    operationId: 'capture',
    summary: 'Capture an authorisation',
    description: 'Completes a card payment created with `transactionType: "authorise"`; without `amount`, all of it.',
    tag: 'Refunds and captures',
    body: 'CaptureRequest',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD', amount: '8.00' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/reversal',
    operationId: 'reverse',
    summary: 'Reverse an authorisation',
    description: 'Releases the whole amount of an authorisation not captured yet.',
    tag: 'Refunds and captures',
    body: 'ReversalRequest',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/test/complete',
    operationId: 'completeTestPayment',
    summary: 'Complete a test payment',
    description:
      'Test keys only (404 with a live key): completes a pending transaction without a browser, with the same state change and webhook as a real outcome; 409 when it is not pending.',
    tag: 'Test helpers',
    body: 'TestCompletion',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD', outcome: 'failed', failureCode: 'card_refused' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/dispute/accept',
    operationId: 'acceptDispute',
    summary: 'Accept a dispute',
    description:
      'Names a dispute (`type: chargeback`); its acquirer is asked to accept it (Adyen’s Disputes API), then it moves to `accepted` (`status: success`: the chargeback stands), with its webhook. 409 once it has ended or can no longer be accepted; 422 `Refused by the acquirer`; 503 when the connection names no Disputes API, or without an answer (nothing recorded).',
    tag: 'Disputes',
    body: 'ReversalRequest',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422, 503],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/dispute/defend',
    operationId: 'defendDispute',
    summary: 'Defend a dispute',
    description:
      'Defends a dispute with one of the defense reasons its acquirer takes for it (its material supplied at the acquirer); the stage stays until the issuer answers through the acquirer. 422 at `/defenseReasonCode` (`not_applicable`, with the reasons it takes) or `Refused by the acquirer`; 409 once it has ended; 503 as for accepting.',
    tag: 'Disputes',
    body: 'DisputeDefense',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD', defenseReasonCode: 'SupplyDefenseMaterial' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422, 503],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/test/dispute',
    operationId: 'raiseTestDispute',
    summary: 'Raise or move a test dispute',
    description:
      'Test keys only (404 with a live key): naming a paid test payment, raises a dispute on it (a `chargeback` transaction, at `stage` `notification` or `chargeback`); naming a test dispute, moves it to `stage` (docs/disputes.md "Stages"). Each stage sends its webhook, as an acquirer’s would. Refused: 422 `not_paid` at `/reference`; 422 `exceeds_disputable` for a dispute that would hold more than is left of the payment, its refunds and other disputes counted (at `/amount` raising, at `/stage` moving; docs/disputes.md "What is left of a payment"); 409 for a stage the dispute cannot move to, or a dispute its acquirer told of.',
    tag: 'Test helpers',
    body: 'TestDispute',
    bodyExample: { reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD', stage: 'chargeback', amount: '10.00', reasonCode: '10.4', reason: 'Fraud, card absent' },
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422],
    idempotent: true,
  },
  {
    method: 'post',
    path: '/cancel/{token}',
    operationId: 'cancel',
    summary: 'Cancel a pending payment',
    description: '`POST` the payment’s `cancelUrl` with an empty body. Idempotent: a pending payment becomes failed/cancelled; a final one is answered as it is.',
    tag: 'Customer addresses',
    answer: ref('Payment'),
    problems: [401, 404, 409, 413],
    capability: true,
    parameters: [tokenParameter],
  },
  {
    method: 'post',
    path: '/card-data/{token}',
    operationId: 'sendWalletToken',
    summary: 'Send the wallet token (hybrid flow)',
    description: '`POST` the wallet token to the payment’s `cardDataUrl`. 200 means accepted: the payment is still pending; read it for the outcome.',
    tag: 'Customer addresses',
    body: 'WalletTokenIntake',
    answer: ref('Payment'),
    problems: [401, 404, 409, 413, 422, 503],
    capability: true,
    parameters: [tokenParameter],
  },
  {
    method: 'get',
    path: OPENAPI_PATH,
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of this Kassa’s merchant API; the reference page at `PUBLIC_URL/docs` shows it.',
    tag: 'Contract',
    answer: { type: 'object' },
    answerDescription: 'The OpenAPI document.',
    problems: [],
    open: true,
  },
];
