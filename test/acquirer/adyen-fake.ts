/**
 * A stateful stand-in for Adyen's Payment API v68 on 127.0.0.1, for the connector's tests:
 * every request is validated against Adyen's own OpenAPI document
 * (`PaymentService-v68.json` of `/work/shared/acquirers/adyen`, JSON Schema 2020-12) and a request
 * that breaks it is answered 422 and recorded as a violation, so a test fails on it. Outcomes
 * are chosen by the amount's cents, like the simulator's (README "Test mode"): .21 Refused,
 * .22 Not enough balance, .23 FRAUD, .31 no answer in time; anything else Authorised.
 * Modifications are answered `[…-received]`; the test sends the notifications.
 */
import Fastify from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Adyen's material (ADYEN_CONTRACT_DIR; default: the copy kept in /work/shared/acquirers/adyen, as the PHP client's in test/support/php.ts). */
const contractDir = process.env.ADYEN_CONTRACT_DIR ?? '/work/shared/acquirers/adyen';
export const ADYEN_CONTRACT = path.join(contractDir, 'PaymentService-v68.json');

export interface FakeAdyen {
  url: string;
  apiKey: string;
  requests: { path: string; body: Record<string, unknown>; idempotencyKey: string | undefined }[];
  violations: string[];
  /** How long an answer to a `.31` authorisation takes. */
  slowMs: number;
  close(): Promise<void>;
  /** What "Adyen" holds by merchant reference: each authorisation made, and whether a technical cancel undid it. */
  authorisations: Map<string, HeldAuthorisation>;
  /** Runs once an authorisation is made at "Adyen" and before it is answered (a test kills Kassa here). */
  beforeAnswer?: (body: Record<string, unknown>) => void | Promise<void>;
}

/** A validator per Payment API path, compiled from the document's request body schemas. */
function contractValidators() {
  const document = JSON.parse(fs.readFileSync(ADYEN_CONTRACT, 'utf8')) as {
    paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
    components: { schemas: Record<string, unknown> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const schemas = JSON.parse(JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', 'adyen.json#/$defs/')) as Record<string, unknown>;
  ajv.addSchema({ $id: 'adyen.json', $defs: schemas });
  return Object.fromEntries(
    Object.entries(document.paths).map(([route, item]) => {
      const ref = item.post.requestBody.content['application/json'].schema.$ref.replace('#/components/schemas/', 'adyen.json#/$defs/');
      return [route, ajv.compile({ $ref: ref })];
    }),
  );
}

const pspReference = () =>
  randomBytes(12)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'X')
    .slice(0, 16)
    .toUpperCase();

export async function startFakeAdyen(): Promise<FakeAdyen> {
  const validators = contractValidators();
  const app = Fastify();
  const answers = new Map<string, unknown>();
  const fake: FakeAdyen = {
    url: '',
    apiKey: `AQE${randomBytes(16).toString('hex')}`,
    requests: [],
    violations: [],
    slowMs: 0,
    close: () => app.close(),
    authorisations: new Map(),
  };
  app.post<{ Params: { route: string }; Body: Record<string, unknown> }>('/pal/servlet/Payment/v68/:route', async (request, reply) => {
    const route = `/${request.params.route}`;
    const body = request.body;
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    fake.requests.push({ path: route, body, idempotencyKey });
    if (request.headers['x-api-key'] !== fake.apiKey)
      return reply.code(401).send({ status: 401, errorCode: '000', message: 'HTTP Status Response - Unauthorized', errorType: 'security' });
    const validate = validators[route];
    if (!validate) return reply.code(404).send({ status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' });
    if (!validate(body)) {
      fake.violations.push(`${route}: ${JSON.stringify(validate.errors)}`);
      return reply.code(422).send({ status: 422, errorCode: '702', message: 'Structure of the request is invalid', errorType: 'validation' });
    }
    const key = `${route}:${idempotencyKey}`;
    if (idempotencyKey && answers.has(key)) return answers.get(key);
    const answer =
      route === '/authorise'
        ? await authorise(body)
        : { pspReference: pspReference(), response: `[${route.slice(1).replace('technicalCancel', 'technical-cancel')}-received]` };
    if (idempotencyKey) answers.set(key, answer);
    if (route === '/technicalCancel') technicalCancel(fake, body);
    return answer;
  });
  async function authorise(body: Record<string, unknown>) {
    const cents = (body.amount as { value: number }).value % 100;
    if (cents === 31) await new Promise((resolve) => setTimeout(resolve, fake.slowMs));
    const refusal = { 21: 'Refused', 22: 'Not enough balance', 23: 'FRAUD' }[cents];
    if (refusal) return { pspReference: pspReference(), resultCode: 'Refused', refusalReason: refusal };
    const authorised = { pspReference: pspReference(), resultCode: 'Authorised', authCode: '123456' };
    await made(fake, body, authorised.pspReference);
    return authorised;
  }
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  fake.url = `${address}/pal/servlet/Payment/v68`;
  return fake;
}

// ---- Unknown outcomes: what "Adyen" holds, and a technical cancel of it ----

export interface HeldAuthorisation {
  pspReference: string;
  amount: { value: number; currency: string };
  state: 'authorised' | 'cancelled';
}

/** An authorisation made: held under its merchant reference, then `beforeAnswer` (where a test may kill Kassa). */
async function made(fake: FakeAdyen, body: Record<string, unknown>, psp: string) {
  fake.authorisations.set(body.reference as string, { pspReference: psp, amount: body.amount as HeldAuthorisation['amount'], state: 'authorised' });
  await fake.beforeAnswer?.(body);
}

/** `/technicalCancel` undoes the authorisation its `originalMerchantReference` names, if one was made. */
function technicalCancel(fake: FakeAdyen, body: Record<string, unknown>) {
  const held = fake.authorisations.get(body.originalMerchantReference as string);
  if (held) held.state = 'cancelled';
}
