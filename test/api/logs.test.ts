/**
 * Secrets never reach the log (docs/architecture.md#quality-bars): run a server logging at trace level, pay by card
 * through the hosted page (with a 3-D Secure challenge), make failing calls, and look for
 * the API key, the card number, the CVC and the page token in every log line; then call
 * addresses with a capability token and a query string, matched or not, and look for those.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { buildServer } from '../../src/server.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { card, openPage, playChallenge, postForm } from '../pages/flow.ts';
import type { FastifyInstance } from 'fastify';

describe('logs', () => {
  let database: TestDatabase;
  let store: Store;
  let app: FastifyInstance;
  const lines: string[] = [];
  before(async () => {
    database = await createTestDatabase('sqlite');
    const config = loadConfig({ ...database.env, PUBLIC_URL: 'http://kassa.test', LOG_LEVEL: 'trace' });
    store = await openStore(config);
    await store.migrate();
    app = await buildServer(config, store, { logStream: { write: (line) => void lines.push(line) } });
  });
  after(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });

  test('no API key, card number, CVC or page token appears in any log line', async () => {
    const merchant = await createMerchant(store, 'Log Shop');
    const client = api(app, merchant.testApiKey);
    const created = (await client.post('/payment', cardPayment({ amount: '20.11' }))).json();
    const { path, csrf } = await openPage(app, created.payUrl);
    const cardData = card({ cardNumber: '5555 5555 5555 4444', cvc: '987' });
    const challenge = await postForm(app, `${path}/card`, { csrf, ...cardData });
    const done = await playChallenge(app, path, challenge.body, '1234');
    assert.ok([200, 303].includes(done.statusCode), done.body);
    assert.equal((await client.get(`/transaction?reference=${created.reference}`)).json().status, 'success');
    await app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(`${merchant.testApiKey}x`) } });
    await client.post('/payment', { amount: 'oops', cardNumber: '5555555555554444' });

    const log = lines.join('');
    assert.ok(lines.length > 10, 'requests were logged');
    const token = new URL(created.payUrl).pathname.split('/').pop()!;
    for (const secret of [merchant.testApiKey, '5555555555554444', '5555 5555 5555 4444', token, basic(merchant.testApiKey).slice(6)]) {
      assert.ok(!log.includes(secret), `the log contains ${secret.slice(0, 6)}…`);
    }
    // A three-digit CVC (or the letters "cvc") could occur inside a timestamp or a random token by chance:
    // look for the value as a JSON string and for the field names as whole words.
    assert.ok(!log.includes('"987"') && !/\b(cvc|cardNumber)\b/i.test(log), 'the log mentions the CVC or card number field');
  });

  test('no capability token or query string appears in the log, for matched and unmatched routes alike', async () => {
    const merchant = await createMerchant(store, 'Address Shop');
    const client = api(app, merchant.testApiKey);
    const created = (await client.post('/payment', cardPayment())).json();
    const token = new URL(created.payUrl).pathname.split('/').pop()!;
    const query = 'qs-secret-9f3a';
    lines.length = 0;
    const requests: [string, string][] = [
      // Matched routes, with a query string each.
      ['GET', `/pay/${token}?${query}`],
      ['GET', `/api/v1/transaction?reference=${created.reference}&${query}`],
      ['POST', `/api/v1/cancel/${token}?${query}`],
      // Addresses that match no route (a method the route does not take, a path one segment off) …
      ['GET', `/pay/${token}/card?${query}`],
      ['GET', `/api/v1/cancel/${token}`],
      ['POST', `/pay/${token}/nothing?${query}`],
      ['GET', `/api/v1/card-data/${token}/more?${query}`],
      // … and one Fastify refuses before routing (a percent-escape that does not decode).
      ['GET', `/pay/${token}/%E0%A4%A?${query}`],
    ];
    for (const [method, url] of requests) {
      const res = await app.inject({ method: method as 'GET' | 'POST', url, headers: { authorization: basic(merchant.testApiKey) } });
      assert.ok(res.statusCode < 500, `${method} ${url}: ${res.statusCode}`);
    }
    const log = lines.join('');
    assert.equal(lines.length, requests.length, 'each request was logged on one line');
    for (const secret of [token, query, created.reference]) assert.ok(!log.includes(secret), `the log contains ${secret.slice(0, 6)}…`);
    assert.match(log, /"route":"\/pay\/:token"/, 'a matched route is logged by its pattern');
  });

  test('LOG_REQUESTS writes one line per request: method, route, status and time, with its request id', async () => {
    const merchant = await createMerchant(store, 'One Line Shop');
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(merchant.testApiKey) } });
    assert.equal(res.statusCode, 200);
    const requestLines = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === res.headers['x-request-id']);
    assert.equal(requestLines.length, 1, lines.join(''));
    const [line] = requestLines as [{ msg: string; req: unknown; res: unknown; responseTime: unknown }];
    assert.equal(line.msg, 'request completed');
    assert.deepEqual(line.req, { method: 'GET', route: '/api/v1/method', reqId: res.headers['x-request-id'] });
    assert.deepEqual(line.res, { statusCode: 200 });
    assert.equal(typeof line.responseTime, 'number');
  });

  test('the request line is, byte for byte, the line pino writes for the same fields', async () => {
    const merchant = await createMerchant(store, 'Same Line Shop');
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(merchant.testApiKey) } });
    const written = lines.find((line) => line.includes(`"reqId":"${res.headers['x-request-id']}"`))!;
    const { reqId, responseTime } = JSON.parse(written) as { reqId: string; responseTime: number };
    lines.length = 0;
    const request = { method: 'GET', routeOptions: { url: '/api/v1/method' }, id: reqId };
    app.log.child({}, { redact: [] }).info({ reqId, req: request, res: { statusCode: 200 }, responseTime }, 'request completed');
    const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
    assert.equal(withoutTime(written), withoutTime(lines[0]!));
  });
});
