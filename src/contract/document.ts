/**
 * The merchant API's OpenAPI 3.1 document, built from what Kassa runs: the request bodies from
 * the tables that validate them (request-schemas.ts), the query of the transaction read from
 * its route's schema (queries.ts), the enums of the payment object from ground/ and the flows
 * table, the problem types from problems.ts. Served at `{base_url}/openapi.json` and shown at
 * `PUBLIC_URL/docs` (routes.ts); the test suite checks every answer it receives against it.
 */
import fs from 'node:fs';
import { cardBrands } from '../ground/card-brand.ts';
import { retryAdvices } from '../acquirer/connector.ts';
import { isOffered, paymentMethods } from '../ground/payment-method.ts';
import { failureCodes, statuses } from '../ground/states.ts';
import { disputeStages } from '../ground/dispute-stages.ts';
import { DOCS_PATH, Problem, problemAnchor, problemTypeUri } from '../ground/problem.ts';
import { answeredProblemTypes } from '../ground/problem-types.ts';
import { flows } from '../payments/flows.ts';
import { refundTable } from '../payments/follow-ups/refunds.ts';
import { paymentTable } from '../payments/requests/payment-request.ts';
import { captureTable } from '../payments/operations/capture.ts';
import { completionTable } from '../payments/operations/complete-test-payment.ts';
import { testDisputeTable } from '../payments/operations/raise-test-dispute.ts';
import { defenseTable } from '../payments/operations/defend-dispute.ts';
import { referenceTable } from '../payments/requests/fields.ts';
import { TransactionQuery } from './queries.ts';
import { echoedFieldSchemas, enrollmentRequestSchema, paymentRequestSchema, tableSchema } from './request-schemas.ts';

type Schema = Record<string, unknown>;

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const OPENAPI_PATH = '/openapi.json';
export { DOCS_PATH };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ── The answers ──────────────────────────────────────────────────────────────────────────

/** The `type` of a transaction: those of the flows, a refund's `credit` and a dispute's `chargeback` (docs/api.md#the-payment-object). */
const transactionTypes = [...new Set([...Object.values(flows).flatMap((flow) => flow.transactionTypes), 'credit', 'chargeback'])];
const transactionMethods = [...new Set(Object.values(flows).map((flow) => flow.method))];

const uri = { type: 'string', format: 'uri' };

/** The payment object of docs/api.md#the-payment-object as payments/serialize.ts writes it. */
const paymentSchema: Schema = {
  type: 'object',
  description: 'A transaction: a payment, a refund (`type: credit`), a dispute (`type: chargeback`, docs/disputes.md) or a vault enrollment (`type: token`).',
  required: ['reference', 'created', 'lastUpdate', 'method', 'type', 'status', 'amount', 'currency', 'language', 'paidout', 'entryMode', 'details'],
  properties: {
    reference: { type: 'string', description: 'Kassa’s reference of the transaction.' },
    created: { type: 'integer', description: 'Epoch milliseconds.' },
    lastUpdate: { type: 'integer', description: 'Epoch milliseconds.' },
    method: { type: 'string', enum: transactionMethods },
    type: { type: 'string', enum: transactionTypes },
    status: { type: 'string', enum: [...statuses] },
    failureCode: { type: 'string', enum: [...failureCodes], description: 'Only when `status` is failed.' },
    amount: { type: 'number', description: 'Major units (`10.5` for EUR 10.50); 0 for an enrollment.' },
    currency: { type: 'string', pattern: '^[a-z]{3}$', description: 'ISO 4217 code, lower case.' },
    language: { type: 'string', pattern: '^[a-z]{3}$' },
    returnUrl: { type: 'string' },
    payUrl: { ...uri, description: 'Where the customer pays (a capability: do not log it).' },
    cancelUrl: { ...uri, description: '`POST` it to cancel the pending payment.' },
    cardDataUrl: { ...uri, description: '`POST` the wallet token here (hybrid wallet flow).' },
    merchantOrderReference: { type: 'string' },
    description: { type: 'string' },
    metadata: { type: 'string' },
    paidout: { type: 'string', enum: ['no'] },
    entryMode: { type: 'string', enum: ['ecom'] },
    brand: { type: 'string', enum: [...cardBrands] },
    parentReference: { type: 'string', description: 'The payment a refund, a capture or a dispute belongs to.' },
    details: {
      type: 'object',
      description: 'Method-specific data.',
      properties: {
        expirationDuration: { type: 'string', description: 'Landing pages: how long the payment may stay pending.' },
        refundedAmount: { type: 'number', description: 'What the successful refunds of this payment add up to.' },
        captureStatus: { type: 'string', description: 'Authorisations: `authorised`, `captured` or `reversed`.' },
        capturedAmount: { type: 'number' },
        acquirerOutcomeUnknown: {
          type: 'string',
          enum: ['reversal'],
          description:
            'Authorisations: the acquirer never answered their reversal; whether the amount is still held is unknown, so it is neither captured nor reversed until an operator or the acquirer settles it.',
        },
        undoneByAcquirer: {
          type: 'string',
          enum: ['capture_failed', 'refund_failed', 'refund_reversed'],
          description:
            "A capture or refund that is `success` but that the acquirer undid afterwards: nothing was taken (its authorisation is `authorised` again) or nothing was given back (the sale's `refundedAmount` leaves it out).",
        },
        disputes: {
          type: 'array',
          description: "Payments: the payment's disputes, oldest first, each as it stands now (its own transaction has the rest).",
          items: {
            type: 'object',
            required: ['reference', 'stage', 'status', 'amount'],
            properties: {
              reference: { type: 'string', description: 'The dispute’s own transaction (`type: chargeback`).' },
              stage: { type: 'string', enum: [...disputeStages] },
              status: {
                type: 'string',
                enum: [...statuses],
                description: 'Where the disputed money is: `success` taken back, `failed` with the merchant, `pending` undecided.',
              },
              amount: { type: 'number', description: 'The disputed amount, in major units of the payment’s currency.' },
            },
            additionalProperties: false,
          },
        },
        stage: {
          type: 'string',
          enum: [...disputeStages],
          description: 'Disputes (`type: chargeback`): where it stands (docs/disputes.md "Stages"); `status` follows it.',
        },
        reasonCode: { type: 'string', description: "Disputes: the card scheme's reason code." },
        reason: { type: 'string', description: "Disputes: the reason, in the acquirer's words." },
        schemeCode: { type: 'string', description: 'Disputes: the card scheme.' },
        defensePeriodEndsAt: { type: 'string', description: 'Disputes: until when it may be defended (ISO 8601, as the acquirer wrote it).' },
        defenseReasonCode: { type: 'string', description: 'Disputes: the reason the merchant defended it with (`POST /dispute/defend`).' },
        vaultAccessToken: { type: 'string', description: 'Enrollments on success: pays with the stored card (a secret of the merchant).' },
        maskedPan: { type: 'string' },
        cardholderFirstName: { type: 'string' },
        cardholderLastName: { type: 'string' },
        scaToken: { type: 'boolean', description: 'Whether the enrollment authenticated the cardholder (3-D Secure 2, Y).' },
        walletPayPaymentSession: { type: 'string', description: "Hybrid wallet flow: the wallet's merchant session (JSON text) to complete merchant validation with." },
        acquirerRefusal: {
          type: 'object',
          description: "A payment the acquirer refused (`failed`): why, in the acquirer's words, and whether the card may be tried again.",
          required: ['retry'],
          properties: {
            reason: { type: 'string', description: "The acquirer's reason (Adyen's `refusalReason`, or the message of a request it did not take)." },
            code: { type: 'string', description: "The acquirer's code of the reason (Adyen's `refusalReasonCode`, or its `errorCode`)." },
            merchantAdviceCode: { type: 'string', description: "Mastercard's merchant advice code, as the acquirer passed it on (`03: Do not try again`)." },
            retry: {
              type: 'string',
              enum: [...retryAdvices],
              description:
                '`do not retry`: this card will not be approved, do not send it again; `retry later`; `update card details`: ask the customer for new card data; `no advice`.',
            },
          },
          additionalProperties: false,
        },
        latePayment: {
          type: 'object',
          description:
            'A payment Kassa ended (`failed`: expired, cancelled) that the shopper paid after all, as the acquirer said later: Kassa gives the money back by itself (docs/acquirers.md "Money paid after Kassa gave up"). `returning`: asked of the acquirer; `returned`: the hold released or the money refunded; `not_returned`: the acquirer could not, an operator must look. Each change comes with a webhook.',
          required: ['status', 'amount'],
          properties: {
            status: { type: 'string', enum: ['returning', 'returned', 'not_returned'] },
            amount: { type: 'number', description: 'What the shopper paid, in major units of the payment’s currency.' },
          },
          additionalProperties: false,
        },
        paidWith: {
          type: 'string',
          enum: paymentMethods.filter(isOffered),
          description:
            'A landing page payment (`method: landingpage`): the method the customer chose on the page, which the payment is paid with; absent until the customer chooses. `method` stays `landingpage`.',
        },
        bankTransfer: {
          type: 'object',
          description:
            'A bank transfer through a live acquirer, while `pending`: the account the customer pays into and the reference they must quote (Kassa shows them on its page too).',
          required: ['beneficiary', 'iban', 'reference'],
          properties: {
            beneficiary: { type: 'string' },
            iban: { type: 'string' },
            bic: { type: 'string' },
            reference: { type: 'string', description: 'What the customer quotes, for the acquirer to match the money to the payment.' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: true,
    },
    ...echoedFieldSchemas,
  },
  additionalProperties: false,
};

const paymentMethodsSchema: Schema = {
  type: 'array',
  examples: [[{ method: 'card', options: [{ brand: 'visa' }, { brand: 'mastercard' }] }, { method: 'landingpage' }, { method: 'walletpay' }]],
  description: "The methods enabled for the key's merchant; card lists its brands as options.",
  items: {
    type: 'object',
    required: ['method'],
    properties: {
      method: { type: 'string', enum: [...paymentMethods] },
      options: {
        type: 'array',
        items: { type: 'object', required: ['brand'], properties: { brand: { type: 'string', enum: [...cardBrands] } }, additionalProperties: false },
      },
    },
    additionalProperties: false,
  },
};

const problemSchema = (publicUrl: string): Schema => ({
  type: 'object',
  description: 'RFC 9457 problem details. `type` names the problem; each has a section under "Problem types".',
  required: ['type', 'title', 'status'],
  properties: {
    type: {
      type: 'string',
      format: 'uri',
      description: 'Where this Kassa explains the problem type: `PUBLIC_URL/docs#problem-<slug>`; the slug is the same on every Kassa.',
      enum: answeredProblemTypes.map((problem) => problemTypeUri(publicUrl, problem.slug)),
    },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: { type: 'array', items: ref('FieldError'), description: 'Every failing field at once (422).' },
    requestId: { type: 'string', description: "The request's id, as the `X-Request-Id` answer header and the log lines of the request carry it: quote it to support." },
  },
  additionalProperties: true,
});

const fieldErrorSchema: Schema = {
  type: 'object',
  required: ['field', 'code', 'message'],
  properties: {
    field: { type: 'string', description: 'JSON pointer into the request body (`/accountInfo/email`).' },
    code: { type: 'string', description: 'Stable machine code: `required`, `format`, `max_length`, …' },
    message: { type: 'string' },
  },
  additionalProperties: false,
};

// ── Examples ─────────────────────────────────────────────────────────────────────────────

const EXAMPLE_PAGE_TOKEN = '0RZ8mVgXq7Jc1oD4kTnW2bYh9sLpE6uAfMzR3vCxK5iGaQe8Hy';

const examplePayment = (publicUrl: string, baseUrl: string) => ({
  reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD',
  created: 1767225600000,
  lastUpdate: 1767225600000,
  method: 'card',
  type: 'sale',
  status: 'pending',
  amount: 10.5,
  currency: 'eur',
  language: 'eng',
  returnUrl: 'https://shop.example/return?order=1001',
  payUrl: `${publicUrl}/pay/${EXAMPLE_PAGE_TOKEN}`,
  cancelUrl: `${baseUrl}/cancel/${EXAMPLE_PAGE_TOKEN}`,
  merchantOrderReference: 'order-1001',
  paidout: 'no',
  entryMode: 'ecom',
  details: {},
});

const exampleValidationProblem = (publicUrl: string) => ({
  ...new Problem('validationFailed', {
    errors: [
      { field: '/amount', code: 'decimals', message: 'EUR allows 2 decimal places' },
      { field: '/returnUrl', code: 'required', message: 'is required: the customer returns there afterwards' },
    ],
  }).toBody(publicUrl),
  requestId: '7f0c3a52-4b1e-4d8a-9c61-2f5e8b0d9a47',
});

// ── Routes ───────────────────────────────────────────────────────────────────────────────

interface Route {
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
const everyRoute = [400, 414, 429, 500, 503];

const tokenParameter = { name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The capability token of the payment’s address.' };

const transactionParameters = Object.entries(TransactionQuery.properties).map(([name, schema]) => {
  const { description, ...rest } = schema as Schema;
  return { name, in: 'query', required: false, description, schema: rest };
});

const routes: readonly Route[] = [
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

const problemResponseName = (status: number) => `Problem${status}`;

const idempotencyParameter = {
  name: 'Idempotency-Reference',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to send again: the same reference with the same body answers the first outcome (`Idempotent-Replayed: true`); with another body 422; while the first still runs 409. Scoped to merchant, mode and route; kept at least 24 hours.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function operationOf(route: Route, urls: { publicUrl: string; baseUrl: string }): Schema {
  const headers: Schema = {};
  if (route.idempotent) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
  if (!route.capability && !route.open)
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) headers[name] = { $ref: `#/components/headers/${name}` };
  const statuses = [...new Set([...everyRoute, ...route.problems])].sort((a, b) => a - b);
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    ...(route.capability ? { security: [{}, { merchantKey: [] }] } : route.open ? { security: [] } : {}),
    parameters: [...(route.parameters ?? []), ...(route.idempotent ? [{ $ref: '#/components/parameters/IdempotencyReference' }] : [])],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(route.body), ...(route.bodyExample ? { example: route.bodyExample } : {}) } },
          },
        }
      : {}),
    responses: {
      200: {
        description: route.answerDescription ?? 'The transaction.',
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        content: { 'application/json': { schema: route.answer, ...(route.answersExample ? { example: examplePayment(urls.publicUrl, urls.baseUrl) } : {}) } },
      },
      ...Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/${problemResponseName(status)}` }])),
    },
  };
}

const problemStatuses = [...new Set([...everyRoute, ...routes.flatMap((route) => route.problems)])].sort((a, b) => a - b);

function problemResponse(status: number, publicUrl: string): Schema {
  const types = answeredProblemTypes.filter((problem) => problem.statuses.includes(status));
  const retryAfter = status === 409 || status === 429 || status === 503;
  return {
    description: types.map((problem) => problem.title).join('; ') || 'A problem',
    ...(retryAfter ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
    content: {
      'application/problem+json': {
        schema: ref('Problem'),
        example: status === 422 ? exampleValidationProblem(publicUrl) : { type: problemTypeUri(publicUrl, types[0]!.slug), title: types[0]!.title, status },
      },
    },
  };
}

// ── The page's text ──────────────────────────────────────────────────────────────────────

function introduction(publicUrl: string, baseUrl: string): string {
  const sections = answeredProblemTypes.map(
    (problem) => `## ${problem.title}\n\n<span id="${problemAnchor(problem.slug)}"></span>\`${problem.slug}\` · ${problem.statuses.join(', ')}\n\n${problem.meaning}`,
  );
  return [
    `Kassa's merchant API. The base address is \`${baseUrl}\`; requests and answers are JSON. This document is generated from the tables that validate the requests, and every answer of Kassa's own test suite is checked against it.`,
    '# Authentication',
    'HTTP Basic with the API key as user name and an empty password (`curl -u test_…:`). A `test_…` key works in test mode, a `live_…` key in live mode; a key sees only its own merchant’s transactions in its own mode. The customer addresses (`cancelUrl`, `cardDataUrl`) are capabilities: no key needed, and a key sent must be the payment’s merchant’s.',
    '# Fields',
    'Fields a request does not know are ignored. An optional field sent as `""` or `null` counts as absent (existing clients send them so). Amounts are JSON numbers or numeric strings in major units, parsed exactly; answers carry numbers. 3-D Secure 2 data is validated exactly with `scaReady: "yes"`, which also makes the fields marked so required; without it a field off its format is left out of what the issuer is sent and named in `threeDSFieldsLeftOut`, not refused.',
    '# Webhooks',
    'Every outcome is announced by a `POST` of `{"id": "<reference>"}` to the merchant’s (or the transaction’s) `webhookUrl`, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). Verify it, then read the transaction.',
    '# Problem types',
    `Every error is an RFC 9457 problem (\`application/problem+json\`). Its \`type\` is the address of its section below, \`${publicUrl}${DOCS_PATH}#problem-<slug>\`; the slug (\`ProblemSlug\`) is the same on every Kassa, so code that matches on a problem type matches on it.`,
    ...sections,
  ].join('\n\n');
}

// ── The document ─────────────────────────────────────────────────────────────────────────

/** `{base_url}` is PUBLIC_URL with the API's prefix (`/api/v1`). */
export function openApiDocument(publicUrl: string, apiPrefix: string): Schema {
  const baseUrl = publicUrl + apiPrefix;
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operationOf(route, { publicUrl, baseUrl });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kassa merchant API',
      version,
      description: introduction(publicUrl, baseUrl),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: baseUrl, description: 'This Kassa' }],
    security: [{ merchantKey: [] }],
    tags: [
      { name: 'Payments', description: 'Create payments, read transactions, list methods.' },
      { name: 'Refunds and captures', description: 'Money back, and completing authorisations.' },
      { name: 'Disputes', description: 'Accepting or defending a chargeback (docs/disputes.md).' },
      { name: 'Vault', description: 'Store a card for later payments.' },
      { name: 'Customer addresses', description: 'The capability addresses a payment object carries.' },
      { name: 'Test helpers', description: 'Test keys only.' },
      { name: 'Contract', description: 'This document.' },
    ],
    paths,
    components: {
      securitySchemes: { merchantKey: { type: 'http', scheme: 'basic', description: 'The API key as user name, an empty password.' } },
      parameters: { IdempotencyReference: idempotencyParameter },
      headers: {
        IdempotentReplayed: {
          description: '`true` when the answer is the recorded one of an earlier request with this Idempotency-Reference.',
          schema: { type: 'string', enum: ['true'] },
        },
        RetryAfter: { description: 'Seconds to wait before sending again.', schema: { type: 'string', pattern: '^[0-9]+$' } },
        'RateLimit-Limit': { description: 'Requests the key may send per window.', schema: { type: 'string' } },
        'RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'string' } },
        'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'string' } },
      },
      schemas: {
        PaymentRequest: { ...paymentRequestSchema(), description: 'The create-payment request, with the fields existing clients send.' },
        EnrollmentRequest: { ...enrollmentRequestSchema(), description: 'The vault-enrollment request.' },
        RefundRequest: tableSchema(refundTable),
        CaptureRequest: tableSchema(captureTable),
        ReversalRequest: tableSchema(referenceTable),
        TestCompletion: tableSchema(completionTable),
        TestDispute: tableSchema(testDisputeTable),
        DisputeDefense: tableSchema(defenseTable),
        WalletTokenIntake: {
          type: 'object',
          required: ['encryptedToken'],
          properties: { encryptedToken: detailsFieldSchema('walletPayEncryptedToken') },
          additionalProperties: true,
        },
        Payment: paymentSchema,
        PaymentMethods: paymentMethodsSchema,
        Problem: problemSchema(publicUrl),
        FieldError: fieldErrorSchema,
      },
      responses: Object.fromEntries(problemStatuses.map((status) => [problemResponseName(status), problemResponse(status, publicUrl)])),
    },
  };
}

/** The schema of one details field of the payment table: the hybrid flow's token intake takes the same token. */
function detailsFieldSchema(name: string): Schema {
  const details = tableSchema(paymentTable).properties as Record<string, { properties: Record<string, Schema> }>;
  return details.details!.properties[name]!;
}
