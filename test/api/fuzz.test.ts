/**
 * The outside attack run kept in the suite: a property-based fuzz (fast-check) of every POST
 * route of the merchant API and every form of the customer pages (the simulated issuer's
 * included), on SQLite and PostgreSQL. Bodies start from valid requests of every flow and are
 * mutated field by field (deleted, retyped, given hostile strings), or are raw text under any
 * content type; keys, Idempotency-References and capability tokens vary too. Whatever comes in,
 * Kassa never answers 5xx; every 4xx of the API is an RFC 9457 problem (docs/decisions.md#errors),
 * every page answers HTML.
 *
 * `npm test` sends KASSA_FUZZ_RUNS requests (default 10,000) shared by the backends, in batches
 * sent at once; `npm run fuzz` sends 100,000. A failure prints the request, Kassa's answer and
 * fast-check's seed: KASSA_FUZZ_SEED=<seed> generates the same requests again.
 *
 * Not generated, as other checks own them: JSON nested deeper than a few levels, bodies that
 * are not valid UTF-8, malformed or overlong request URLs and oversized headers (Fastify and
 * Node answer those themselves).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { backends, basic, cardPayment, suiteApp } from '../support/app.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { mintTestWalletToken, type WalletPaymentToken } from '../../src/wallet/index.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';
import { FORM, card, csrfOf, openPage, postForm } from '../pages/flow.ts';

const RUNS = Number(process.env.KASSA_FUZZ_RUNS ?? 10_000);
/** fast-check prints the seed of a failing run; given here, it generates that run's requests again. */
const SEED = process.env.KASSA_FUZZ_SEED === undefined ? undefined : Number(process.env.KASSA_FUZZ_SEED);
const VALIDATION_URL = 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession';
const { browserInfo, ...threeDS } = exampleThreeDSRequest();

/** Strings that broke parsers somewhere once: empty, blank, NUL, controls, huge, numeric edge cases, scripts, schemes, internal addresses, odd Unicode. */
const hostileStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  '\r\n',
  '\t',
  'x'.repeat(256),
  'x'.repeat(5000),
  '0',
  '-1',
  '-0',
  '1e3',
  '1e400',
  '0x10',
  '10.001',
  '10,00',
  '99999999999999999999',
  '0.0000001',
  'NaN',
  'Infinity',
  'null',
  'true',
  '٣',
  '１０',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'; DROP TABLE transactions; --",
  '../../../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'intent://x#Intent;end',
  'http://169.254.169.254/latest/meta-data/',
  'http://127.0.0.1:1/',
  'https://[::1]/',
  'https://shop.example/return',
  'mailto:a@b',
  '__proto__',
  'constructor',
  'prototype',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '🙂',
  'ﷺ',
  'e\u0301',
  'ǅ',
  'İ',
  '20301231',
  '000000',
  'tr_',
  'tr_0000000000000000000000',
];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...hostileStrings) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);
/** Any JSON value, shallow: deep nesting is another check's. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, true, false, null, [], {}) },
);

type Json = Record<string, unknown>;

/** Every path to a value in a template, nested objects included (at most 3 deep), and one past each object for unknown keys. */
function pathsOf(value: Json, prefix: string[] = []): string[][] {
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = [...prefix, key];
    const nested = inner !== null && typeof inner === 'object' && !Array.isArray(inner) && path.length < 3 ? pathsOf(inner as Json, path) : [];
    return [path, ...nested, ...(nested.length ? [[...path, 'unknownField']] : [])];
  });
}

type Edit = { path: string[]; to: { value: unknown } | 'deleted' };

function applyEdits(template: Json, edits: Edit[]): Json {
  const body = structuredClone(template);
  for (const { path, to } of edits) {
    let at: Json = body;
    for (const key of path.slice(0, -1)) {
      if (at[key] === null || typeof at[key] !== 'object' || Array.isArray(at[key])) at[key] = {};
      at = at[key] as Json;
    }
    const last = path[path.length - 1];
    if (to === 'deleted') delete at[last];
    // A copy: anyJson's constants ({} and []) are shared by every generated body, and a later edit
    // of this body may write into the object put here (an edit at a deeper path).
    else at[last] = structuredClone(to.value);
  }
  return body;
}

/** A valid template with up to 4 of its fields deleted or replaced, and perhaps an unknown one added. */
const mutated = (template: Json) => {
  const paths = [...pathsOf(template), ['unknownTopLevel']];
  const edit: fc.Arbitrary<Edit> = fc.record({
    path: fc.constantFrom(...paths),
    to: fc.oneof(
      fc.constant<'deleted'>('deleted'),
      anyJson.map((value) => ({ value })),
    ),
  });
  return fc.array(edit, { maxLength: 4 }).map((edits) => applyEdits(template, edits));
};

interface Pool {
  /** Capability tokens of each kind, grown as the fuzz creates payments. */
  pageTokens: string[];
  cancelTokens: string[];
  cardDataTokens: string[];
  references: string[];
  vaultAccessToken: string;
  walletTokens: WalletPaymentToken[];
  keys: { test: string; live: string; other: string };
  csrf: Map<string, string>;
  /** Capability tokens of live payments. */
  live: Set<string>;
}

type Caller = 'test' | 'live' | 'other' | 'none' | 'garbage';
const callers: Caller[] = ['test', 'test', 'test', 'test', 'live', 'other', 'none', 'garbage'];

type Inject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

/** What a request was, once sent: its answer, and whether it acted in live mode (a live key, or a live payment's token). */
interface Sent {
  response: LightMyRequestResponse;
  live: boolean;
}

/** One generated request, resolved against the pool when it is sent (the pool grows meanwhile); a failure report shows `describe`. */
interface FuzzRequest {
  api: boolean;
  describe: string;
  send(pool: Pool, inject: Inject): Promise<Sent>;
}
const fuzzRequest = (request: FuzzRequest): FuzzRequest => Object.assign(request, { [fc.toStringMethod]: () => request.describe });

function authorization(pool: Pool, caller: Caller): Record<string, string> {
  if (caller === 'none') return {};
  if (caller === 'garbage') return { authorization: 'Basic bm90LWEta2V5Og==' };
  return { authorization: basic(pool.keys[caller]) };
}

const pick = <T>(list: T[], index: number): T | undefined => (list.length === 0 ? undefined : list[index % list.length]);
/** A capability token: one of the pool's (most of the time) or made up. */
const tokenChoice = fc.oneof({ weight: 4, arbitrary: fc.nat().map((index) => ({ index })) }, { weight: 1, arbitrary: hostileString.map((made) => ({ made })) });
/** The token's path segment; a made-up one is cut to Fastify's longest path parameter (100): longer ones are answered by Fastify itself (left out, see above). */
function tokenOf(list: string[], choice: { index: number } | { made: string }): string {
  if (!('made' in choice)) return encodeURIComponent(pick(list, choice.index) ?? 'none');
  let made = [...Buffer.from(choice.made).toString()];
  while (encodeURIComponent(made.join('')).length > 100) made = made.slice(0, -1);
  const segment = encodeURIComponent(made.join(''));
  // `.` and `..` are path steps, not a token: a URL's shape, left out as above.
  return segment === '' || segment === '.' || segment === '..' ? 'x' : segment;
}

/** A body: mostly JSON (valid template mutated, or any value), sometimes raw text or another content type. */
function bodyOf(templates: fc.Arbitrary<Json>): fc.Arbitrary<{ contentType?: string; payload?: string }> {
  return fc.oneof(
    { weight: 12, arbitrary: templates.map((body) => ({ contentType: 'application/json', payload: JSON.stringify(body) })) },
    { weight: 1, arbitrary: anyJson.map((body) => ({ contentType: 'application/json', payload: JSON.stringify(body) ?? 'null' })) },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: fc.constantFrom(
          undefined,
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
        ),
        payload: fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom('', '{', '{"a":', 'null', '[]', '"x"', '1', '{"amount":1}garbage', '\ufeff{}', '{"__proto__":{"x":1}}'),
        ),
      }),
    },
  );
}

/** The merchant API's POST routes. */
function apiRequests(templates: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<FuzzRequest> {
  const common = fc.record({
    caller: fc.constantFrom(...callers),
    idempotency: fc.option(fc.oneof(fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.: ~'.split('')), maxLength: 20 }), fc.constant('x'.repeat(256))), {
      nil: undefined,
    }),
  });
  const route = (path: string, template: fc.Arbitrary<Json>) =>
    fc.tuple(common, bodyOf(template)).map(([{ caller, idempotency }, body]) =>
      fuzzRequest({
        api: true,
        describe: `POST /api/v1${path} as ${caller} ${idempotency === undefined ? '' : `Idempotency-Reference ${JSON.stringify(idempotency)} `}${body.contentType ?? '(no type)'} ${body.payload}`,
        send: async (pool, inject) => ({
          live: caller === 'live',
          response: await inject({
            method: 'POST',
            url: `/api/v1${path}`,
            headers: {
              ...authorization(pool, caller),
              ...(body.contentType ? { 'content-type': body.contentType } : {}),
              ...(idempotency === undefined ? {} : { 'idempotency-reference': idempotency }),
            },
            payload: body.payload,
          }),
        }),
      }),
    );
  const capability = (kind: 'cancelTokens' | 'cardDataTokens', path: string, template: fc.Arbitrary<Json>) =>
    fc.tuple(fc.constantFrom(...callers), tokenChoice, bodyOf(template)).map(([caller, choice, body]) =>
      fuzzRequest({
        api: true,
        describe: `POST /api/v1${path}/${JSON.stringify(choice)} as ${caller} ${body.contentType ?? '(no type)'} ${body.payload}`,
        send: async (pool, inject) => {
          const token = tokenOf(pool[kind], choice);
          return {
            live: caller === 'live' || pool.live.has(token),
            response: await inject({
              method: 'POST',
              url: `/api/v1${path}/${token}`,
              headers: { ...authorization(pool, caller), ...(body.contentType ? { 'content-type': body.contentType } : {}) },
              payload: body.payload,
            }),
          };
        },
      }),
    );
  return fc.oneof(
    { weight: 8, arbitrary: route('/payment', templates.payment) },
    { weight: 2, arbitrary: route('/token', templates.enrollment) },
    { weight: 2, arbitrary: route('/capture', templates.followUp) },
    { weight: 1, arbitrary: route('/reversal', templates.followUp) },
    { weight: 2, arbitrary: route('/test/complete', templates.testComplete) },
    { weight: 2, arbitrary: capability('cancelTokens', '/cancel', fc.constant({})) },
    { weight: 2, arbitrary: capability('cardDataTokens', '/card-data', templates.cardData) },
  );
}

/** The customer pages' forms and the simulated issuer's: urlencoded fields, repeated or not, with or without the page's CSRF token. */
function pageRequests(): fc.Arbitrary<FuzzRequest> {
  const forms: Record<string, string[]> = {
    card: Object.keys(card()).concat(['brand', 'screenWidth', 'screenHeight', 'colorDepth', 'timeZone', 'browserLanguage', 'windowWidth']),
    vault: ['cvc', 'js'],
    method: ['method'],
    cancel: [],
    wallet: [],
    '3ds/complete': ['session', 'sealedCard'],
    '3ds/notify': ['cres', 'threeDSSessionData'],
    '3ds1': ['PaRes', 'MD'],
  };
  const fieldValue = fc.oneof(
    { weight: 3, arbitrary: hostileString },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.constantFrom('4111 1111 1111 1111', '378282246310005', '12/34', '01/20', '123', '1234', 'card', 'walletpay', 'landingpage', '1', '0') },
  );
  const formBody = (names: string[]) =>
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...names, 'csrf', 'x'), fc.string({ maxLength: 8 })), fieldValue), { maxLength: 8 })
      .chain((pairs) => fc.record({ pairs: fc.constant(pairs), csrf: fc.constantFrom('valid', 'valid', 'valid', 'missing', 'wrong') }));
  const payForm = fc.constantFrom(...Object.keys(forms)).chain((form) =>
    fc.record({
      form: fc.constant(form),
      token: tokenChoice,
      body: formBody(forms[form].length ? forms[form] : ['x']),
      rawType: fc.constantFrom(FORM['content-type'], FORM['content-type'], FORM['content-type'], 'application/json', 'text/plain'),
      crossSite: fc.boolean(),
    }),
  );
  const pay = payForm.map(({ form, token, body, rawType, crossSite }) =>
    fuzzRequest({
      api: false,
      describe: `POST /pay/${JSON.stringify(token)}/${form} (${rawType}${crossSite ? ', cross-site' : ''}) csrf ${body.csrf} ${JSON.stringify(body.pairs)}`,
      send: async (pool, inject) => {
        const pageToken = tokenOf(pool.pageTokens, token);
        const csrf = body.csrf === 'valid' ? await csrfFor(pool, inject, pageToken) : body.csrf === 'wrong' ? 'x'.repeat(32) : undefined;
        const pairs: [string, unknown][] = [...(csrf === undefined ? [] : [['csrf', csrf] as [string, string]]), ...body.pairs];
        return {
          live: pool.live.has(pageToken),
          response: await inject({
            method: 'POST',
            url: `/pay/${pageToken}/${form}`,
            headers: { 'content-type': rawType, ...(crossSite ? { 'sec-fetch-site': 'cross-site' } : {}) },
            payload: rawType === 'application/json' ? JSON.stringify(Object.fromEntries(pairs)) : formOf(pairs),
          }),
        };
      },
    }),
  );
  const acs = fc
    .record({
      path: fc.constantFrom('challenge', 'challenge/answer', '3ds1', '3ds1/answer'),
      pairs: fc.array(
        fc.tuple(
          fc.constantFrom('creq', 'threeDSSessionData', 'acsTransID', 'token', 'code', 'cancel', 'PaReq', 'TermUrl', 'MD'),
          fc.oneof(hostileString, base64urlJson, anyJson),
        ),
        { maxLength: 6 },
      ),
      json: fc.boolean(),
    })
    .map(({ path, pairs, json }) =>
      fuzzRequest({
        api: false,
        describe: `POST /simulator/acs/${path} ${json ? 'JSON' : 'form'} ${JSON.stringify(pairs)}`,
        send: async (_pool, inject) => ({
          live: false,
          response: await inject({
            method: 'POST',
            url: `/simulator/acs/${path}`,
            headers: { 'content-type': json ? 'application/json' : FORM['content-type'] },
            payload: json ? JSON.stringify(Object.fromEntries(pairs)) : formOf(pairs),
          }),
        }),
      }),
    );
  return fc.oneof({ weight: 4, arbitrary: pay }, { weight: 1, arbitrary: acs });
}

/** Form fields as urlencoded text; a value that is not a string is sent as its JSON text (a JSON body carries it as it is). */
const formOf = (pairs: [string, unknown][]) =>
  new URLSearchParams(pairs.map(([name, value]) => [name, typeof value === 'string' ? value : (JSON.stringify(value) ?? '')])).toString();

/** A base64url JSON object, the shape of a CReq, PaReq, CRes or PaRes, with hostile members. */
const base64urlJson = fc
  .dictionary(fc.constantFrom('acsTransID', 'threeDSServerTransID', 'messageType', 'messageVersion', 'transStatus', 'xid'), anyJson, { maxKeys: 4 })
  .map((value) => Buffer.from(JSON.stringify(value)).toString('base64url'));

async function csrfFor(pool: Pool, inject: Inject, pageToken: string): Promise<string> {
  const known = pool.csrf.get(pageToken);
  if (known !== undefined) return known;
  const page = await inject({ method: 'GET', url: `/pay/${pageToken}` });
  const csrf = csrfOf(page.body);
  pool.csrf.set(pageToken, csrf);
  return csrf;
}

const unconfiguredTitles = ['No acquirer configured', 'Wallet not configured', 'No directory server configured'];

/** docs/decisions.md#errors: a problem body whose status is the answer's, and well-formed field errors. */
function assertProblem(response: LightMyRequestResponse) {
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, 'a 4xx of the API is application/problem+json');
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(typeof problem.type, 'string');
  assert.equal(typeof problem.title, 'string');
  assert.equal(problem.status, response.statusCode);
  if (problem.detail !== undefined) assert.equal(typeof problem.detail, 'string');
  if (problem.errors !== undefined) {
    assert.ok(Array.isArray(problem.errors) && problem.errors.length > 0, 'errors lists at least one field');
    for (const error of problem.errors as Record<string, unknown>[]) {
      assert.match(String(error.field), /^(\/.*)?$/, 'field is a JSON pointer');
      assert.equal(typeof error.code, 'string');
      assert.equal(typeof error.message, 'string');
    }
  }
}

/** Learns the capability tokens of a created payment, so later requests can aim at it. */
function learn(pool: Pool, created: Json, live: boolean) {
  const last = (url: unknown) => (typeof url === 'string' ? new URL(url).pathname.split('/').pop() : undefined);
  for (const [list, url] of [
    [pool.pageTokens, created.payUrl],
    [pool.cancelTokens, created.cancelUrl],
    [pool.cardDataTokens, created.cardDataUrl],
  ] as const) {
    const token = last(url);
    if (token) list.push(token);
    if (token && live) pool.live.add(token);
  }
  if (typeof created.reference === 'string') pool.references.push(created.reference);
}

const BATCH = 8;
const RUNS_PER_BACKEND = Math.ceil(RUNS / backends.length / BATCH) * BATCH;

for (const backend of backends) {
  describe(`fuzz of every POST route and form (${backend})`, () => {
    const t = suiteApp(backend, { RATE_LIMIT_PER_SECOND: '0', SQLITE_SYNCHRONOUS: 'NORMAL' });
    let pool: Pool;

    before(async () => {
      const other = await createMerchant(t.store, 'Other Shop');
      pool = {
        pageTokens: [],
        cancelTokens: [],
        cardDataTokens: [],
        references: [],
        vaultAccessToken: '',
        walletTokens: [],
        keys: { test: t.merchant.testApiKey, live: t.merchant.liveApiKey, other: other.testApiKey },
        csrf: new Map(),
        live: new Set(),
      };
      // A stored card to pay with: an enrollment completed on its page.
      const enrollment = (await t.client.post('/token', { dataType: 'card', returnUrl: 'https://shop.example/back' })).json();
      const { path, csrf } = await openPage(t.app, enrollment.payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '4000 0000 0000 0200' }) });
      pool.vaultAccessToken = (await t.client.get(`/transaction?reference=${enrollment.reference}`)).json().details.vaultAccessToken;
      assert.ok(pool.vaultAccessToken);
      for (const amountMinor of [1000, 2500, 2500, 1011])
        pool.walletTokens.push(
          await mintTestWalletToken({
            pan: '4111111111111111',
            expiry: '301231',
            amountMinor,
            currencyNumeric: '978',
            network: 'Visa',
            displayName: 'Visa 1111',
            type: 'debit',
          }),
        );
      // A few payments of every flow and scenario, so the forms and capability routes reach live state from the first run.
      const seeds = [
        ...['10.00', '10.11', '10.13', '10.21', '10.31'].map((amount) => cardPayment({ amount })),
        cardPayment({ amount: '10.00', transactionType: 'authorise' }),
        cardPayment({ method: 'landingpage' }),
        cardPayment({ method: 'walletpay' }),
        cardPayment({ details: { vaultAccessToken: pool.vaultAccessToken } }),
        { amount: '25.00', currency: 'EUR', method: 'walletpay', details: { walletPayValidationUrl: VALIDATION_URL, walletPayDomainName: 'shop.example' }, browserInfo },
      ];
      for (const body of seeds) {
        const created = await t.client.post('/payment', body);
        assert.equal(created.statusCode, 200, created.body);
        learn(pool, created.json(), false);
      }
    });

    test(`${RUNS_PER_BACKEND} generated requests: no 5xx; every API 4xx is a problem, every page HTML`, async () => {
      const templates = {
        payment: fc.constantFrom<Json>(
          {
            ...cardPayment(),
            ...threeDS,
            browserInfo,
            merchantOrderReference: 'order-1',
            description: 'Fuzz',
            metadata: 'm',
            language: 'nld',
            webhookUrl: 'https://shop.example/hook',
          },
          cardPayment({ method: 'landingpage', details: { expirationDuration: 'PT20M' } }),
          cardPayment({ transactionType: 'authorise', brand: 'visa', storeInVault: 'yes' }),
          cardPayment({ method: 'walletpay' }),
          {
            amount: '25.00',
            currency: 'EUR',
            method: 'walletpay',
            details: { walletPayValidationUrl: VALIDATION_URL, walletPayDomainName: 'shop.example' },
            browserInfo,
          },
          { amount: '10.00', currency: 'EUR', method: 'walletpay', details: { walletPayEncryptedToken: 'wallet' }, browserInfo },
          cardPayment({ details: { vaultAccessToken: 'vault' } }),
          cardPayment({ orderLines: [{ name: 'Socks', quantity: 2, amount: '5.00' }], billingEmail: 'a@example.com' }),
        ),
        enrollment: fc.constant<Json>({ dataType: 'card', returnUrl: 'https://shop.example/back', language: 'eng', ...threeDS, webhookUrl: 'https://shop.example/hook' }),
        followUp: fc.constant<Json>({ reference: 'known', amount: '5.00' }),
        testComplete: fc.constantFrom<Json>({ reference: 'known', outcome: 'success' }, { reference: 'known', outcome: 'failed', failureCode: 'card_refused' }),
        cardData: fc.constant<Json>({ encryptedToken: 'wallet' }),
      };
      // The placeholders 'known', 'vault' and 'wallet' become a live reference, the stored card's token and a real wallet token when sent.
      const mutatedTemplates = Object.fromEntries(Object.entries(templates).map(([name, template]) => [name, template.chain(mutated)])) as typeof templates;
      const requests = fc.oneof({ weight: 3, arbitrary: apiRequests(mutatedTemplates) }, { weight: 2, arbitrary: pageRequests() });

      const inject =
        (index: number): Inject =>
        (options) =>
          t.app.inject({
            ...options,
            payload:
              typeof options.payload === 'string'
                ? options.payload
                    .replace(/"known"/g, JSON.stringify(pick(pool.references, index) ?? 'tr_x'))
                    .replace(/"vault"/g, JSON.stringify(pool.vaultAccessToken))
                    .replace(/"wallet"/g, JSON.stringify(pick(pool.walletTokens, index)))
                : options.payload,
          });
      /** Sends one request and checks its answer; the message of a failure names the request and quotes the answer. */
      const check = async (request: FuzzRequest, index: number) => {
        const { response, live } = await request.send(pool, inject(index));
        const where = `${request.describe}\n→ ${response.statusCode} ${response.headers['content-type']} ${response.body.slice(0, 300)}`;
        // The one 5xx allowed: a live-mode request this Kassa has no live connection for (README, docs/acquirers.md and the live wallet and 3-D Secure settings).
        const unconfigured = live && response.statusCode === 503 && (!request.api || unconfiguredTitles.includes(JSON.parse(response.body).title));
        assert.ok(response.statusCode < 500 || unconfigured, `5xx: ${where}`);
        if (request.api && response.statusCode >= 400) assert.doesNotThrow(() => assertProblem(response), where);
        if (!request.api && response.statusCode >= 400) assert.match(String(response.headers['content-type']), /^text\/html/, `a page answers HTML: ${where}`);
        if (request.api && response.statusCode === 200 && /^POST \/api\/v1\/(payment|token) /.test(request.describe))
          learn(pool, JSON.parse(response.body) as Json, live);
      };

      // Requests go in batches sent at once: faster than one by one, and concurrent requests of one payment race as an attacker's would.
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(requests, fc.nat()), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
          sent += batch.length;
          await Promise.all(batch.map(([request, index]) => check(request, index)));
        }),
        { numRuns: RUNS_PER_BACKEND / BATCH, seed: SEED, endOnFailure: true, includeErrorInReport: true },
      );
      assert.equal(sent, RUNS_PER_BACKEND);
    });
  });
}
