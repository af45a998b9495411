/**
 * The merchant API's OpenAPI 3.1 document, built from what Kassa runs: the request bodies from
 * the tables that validate them (request-schemas.ts), the routes (api-routes.ts) with the query
 * of the transaction read from its route's schema (queries.ts), the payment object
 * (payment-schema.ts), the problem types from the registry (ground/problem-types.ts). Served at `{base_url}/openapi.json` and shown at
 * `PUBLIC_URL/docs` (routes.ts); the test suite checks every answer it receives against it.
 */
import fs from 'node:fs';
import { DOCS_PATH, Problem, problemAnchor, problemTypeUri } from '../ground/problem.ts';
import { answeredProblemTypes } from '../ground/problem-types.ts';
import { refundTable } from '../payments/follow-ups/refunds.ts';
import { captureTable } from '../payments/operations/capture.ts';
import { completionTable } from '../payments/operations/complete-test-payment.ts';
import { testDisputeTable } from '../payments/operations/raise-test-dispute.ts';
import { defenseTable } from '../payments/operations/defend-dispute.ts';
import { referenceTable } from '../payments/requests/fields.ts';
import { enrollmentRequestSchema, paymentRequestSchema, tableSchema } from './request-schemas.ts';
import { detailsFieldSchema, examplePayment, paymentMethodsSchema, paymentSchema, ref, type Schema } from './payment-schema.ts';
import { everyRoute, OPENAPI_PATH, routes, type Route } from './api-routes.ts';

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export { DOCS_PATH, OPENAPI_PATH };

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

const exampleValidationProblem = (publicUrl: string) => ({
  ...new Problem('validationFailed', {
    errors: [
      { field: '/amount', code: 'decimals', message: 'EUR allows 2 decimal places' },
      { field: '/returnUrl', code: 'required', message: 'is required: the customer returns there afterwards' },
    ],
  }).toBody(publicUrl),
  requestId: '7f0c3a52-4b1e-4d8a-9c61-2f5e8b0d9a47',
});

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
