/**
 * Request ids (api/request-id.ts): an incoming safe `X-Request-Id` or a generated one is
 * answered back, bound to every log line of the request and named in every problem body,
 * recorded problems replayed under an Idempotency-Reference included.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { api, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { buildServer } from '../../src/server.ts';
import { createMerchant, type CreatedMerchant } from '../../src/merchants/merchants.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let database: TestDatabase;
  let store: Store;
  let app: FastifyInstance;
  let merchant: CreatedMerchant;
  const lines: string[] = [];
  before(async () => {
    database = await createTestDatabase('sqlite');
    const config = loadConfig({ ...database.env, PUBLIC_URL: 'http://kassa.test', LOG_LEVEL: 'info' });
    store = await openStore(config);
    await store.migrate();
    app = await buildServer(config, store, { logStream: { write: (line) => void lines.push(line) } });
    merchant = await createMerchant(store, 'Trace Shop');
    // An unexpected failure, for the 500 (added before the app is ready).
    app.get('/boom', async () => {
      throw new Error('boom');
    });
  });
  after(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });

  const logLinesOf = (requestId: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === requestId);

  test('a safe incoming X-Request-Id is answered back, logged on every line of its request and named in the problem', async () => {
    const requestId = 'shop-7f3a:order-1001';
    lines.length = 0;
    const res = await api(app, merchant.testApiKey).post('/payment', { amount: 'oops' }, { headers: { 'x-request-id': requestId } });
    assert.equal(res.statusCode, 422);
    assert.equal(res.headers['x-request-id'], requestId);
    assert.equal(res.json().requestId, requestId);
    const own = logLinesOf(requestId);
    assert.ok(own.length >= 1, 'the request is logged');
    assert.equal(own.length, lines.length, 'every log line of the request carries its id');
  });

  test('a success answers the id in the header and leaves the body as it was', async () => {
    const res = await api(app, merchant.testApiKey).post('/payment', cardPayment(), { headers: { 'x-request-id': 'ok-1' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-request-id'], 'ok-1');
    assert.equal(res.json().requestId, undefined);
  });

  const unsafe: [string, string][] = [
    ['too long', 'a'.repeat(129)],
    ['a space', 'two words'],
    ['a quote', 'x"y'],
    ['a non-ASCII letter', 'zürich'],
    ['empty', ''],
  ];
  for (const [what, value] of unsafe) {
    test(`an incoming id with ${what} is replaced by a generated UUID`, async () => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/method', headers: { 'x-request-id': value } });
      assert.equal(res.statusCode, 401);
      const generated = res.headers['x-request-id'];
      assert.match(String(generated), UUID);
      assert.equal(res.json().requestId, generated);
    });
  }

  test('without an incoming id each request gets its own', async () => {
    const [a, b] = await Promise.all([app.inject({ method: 'GET', url: '/nowhere' }), app.inject({ method: 'GET', url: '/nowhere' })]);
    assert.equal(a.statusCode, 404);
    assert.match(String(a.headers['x-request-id']), UUID);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
    assert.equal(a.json().requestId, a.headers['x-request-id']);
  });

  test('a 500 keeps its error id and adds the request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'boom-1' } });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().requestId, 'boom-1');
    assert.match(res.json().detail, /error id [0-9a-f-]{36}/);
    assert.ok(logLinesOf('boom-1').some((line) => line.msg === 'unhandled error'));
  });

  test('a recorded problem replayed under its Idempotency-Reference names the replaying request', async () => {
    const client = api(app, merchant.testApiKey);
    const headers = { 'idempotency-reference': 'bad-body-1' };
    const first = await client.post('/payment', { amount: 'oops' }, { headers: { ...headers, 'x-request-id': 'first' } });
    const replay = await client.post('/payment', { amount: 'oops' }, { headers: { ...headers, 'x-request-id': 'second' } });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(first.json().requestId, 'first');
    assert.equal(replay.json().requestId, 'second');
    const { requestId: _first, ...firstRest } = first.json();
    const { requestId: _second, ...replayRest } = replay.json();
    assert.deepEqual(replayRest, firstRest);
  });

  test('a request refused before routing (an address that does not decode) carries the id too', async () => {
    const res = await app.inject({ method: 'GET', url: '/pay/%E0%A4%A', headers: { 'x-request-id': 'undecodable-1', authorization: basic('x') } });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['x-request-id'], 'undecodable-1');
    assert.equal(res.json().requestId, 'undecodable-1');
  });
});
