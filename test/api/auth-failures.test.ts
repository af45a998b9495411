/**
 * Failed authentication is limited per client address (api/rate-limit.ts, api/auth.ts): after
 * AUTH_FAILURE_LIMIT requests with keys that are not valid, a wrong key gets the answer of a wrong
 * key (401) with Retry-After (`locked` below), its lookups one at a time, while a valid key from the
 * same address is served; a key known to be wrong is never looked up twice; REDIS_URL shares the count.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { needs, redisMissing } from '../support/dependencies.ts';
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { backends, basic, cardPayment, startTestApp, type TestApp } from '../support/app.ts';
import { buildServer } from '../../src/server.ts';
import type { Store } from '../../src/store/store.ts';
import { addressBucket, FailedAuthentications } from '../../src/api/rate-limit.ts';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, rotateApiKey } from '../../src/merchants/merchants.ts';

const REDIS_URL = process.env.KASSA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = { skip: needs(await redisMissing(REDIS_URL)) };
const LIMIT = 20;

/** 401 is a key that is not valid; `locked` the same answer with Retry-After, from an address past its allowance. */
const outcome = (res: { statusCode: number; headers: Record<string, unknown> }) =>
  res.statusCode === 401 && res.headers['retry-after'] !== undefined ? 'locked' : res.statusCode;
const WRONG_KEY = `test_${'W'.repeat(40)}`;

/** The store with every query of the api_keys table counted. */
function countingKeyLookups(store: Store) {
  let lookups = 0;
  const read = new Proxy(store.read, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (name === 'selectFrom') {
        return (from: string) => {
          if (String(from).startsWith('api_keys')) lookups++;
          return target.selectFrom(from as 'api_keys');
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: { ...store, read }, lookups: () => lookups };
}

/** An address no other test (nor an earlier run sharing Redis) uses. */
const freshAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const getMethods = (app: FastifyInstance, key: string, remoteAddress: string) =>
  app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(key) }, remoteAddress });

for (const backend of backends) {
  describe(`failed authentication on ${backend}`, () => {
    const testApps: TestApp[] = [];
    const servers: FastifyInstance[] = [];
    after(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await Promise.all(testApps.map((t) => t.close()));
    });

    /** A Kassa whose key lookups are counted, on a test app's database. */
    async function countedKassa(env: Record<string, string> = {}) {
      const t = await startTestApp(backend, env);
      testApps.push(t);
      const counted = countingKeyLookups(t.store);
      const app = await buildServer(t.config, counted.store, { logger: false });
      servers.push(app);
      return { t, app, lookups: counted.lookups };
    }

    test(`50 wrong keys from one address: 401 for the first ${LIMIT}, then the same 401 with Retry-After; the wrong key is looked up once`, async () => {
      const { t, app, lookups } = await countedKassa();
      const address = freshAddress();
      const first = await getMethods(app, WRONG_KEY, address);
      const statuses: (number | string)[] = [outcome(first)];
      for (let i = 1; i < 50; i++) statuses.push(outcome(await getMethods(app, WRONG_KEY, address)));
      assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(401), ...Array<string>(50 - LIMIT).fill('locked')]);
      assert.equal(lookups(), 1, 'a key known to be wrong is not looked up again');

      // What a client sees is what any wrong key gets, so it stops instead of retrying; Retry-After says when the address is heard again.
      const limited = await getMethods(app, WRONG_KEY, address);
      assert.equal(limited.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.deepEqual({ ...(limited.json() as object), requestId: undefined }, { ...(first.json() as object), requestId: undefined });
      assert.equal(limited.headers['www-authenticate'], first.headers['www-authenticate']);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${limited.headers['retry-after']}`);

      // Over its allowance, the address's wrong keys are refused so on the capability routes too; its good keys are served.
      const payment = (await t.client.post('/payment', cardPayment())).json();
      const cancel = await app.inject({
        method: 'POST',
        url: new URL(payment.cancelUrl).pathname,
        headers: { authorization: basic(`test_${'V'.repeat(40)}`) },
        remoteAddress: address,
      });
      assert.equal(outcome(cancel), 'locked');
      assert.equal((await t.client.get(`/transaction?reference=${payment.reference}`)).json().status, 'pending');
      assert.equal((await getMethods(app, t.merchant.testApiKey, address)).statusCode, 200);
      assert.equal(lookups(), 3, 'the other wrong key and the good key looked up once each');

      // Another address has its own allowance; a good key gives its attempt back.
      const other = freshAddress();
      for (let i = 0; i < LIMIT + 5; i++) assert.equal((await getMethods(app, t.merchant.testApiKey, other)).statusCode, 200);
      assert.equal((await getMethods(app, WRONG_KEY, other)).statusCode, 401);
    });

    test('60 wrong keys from one address, then a valid key from it: served, as a shop sharing a host with a wrong one must be', async () => {
      const { t, app } = await countedKassa();
      const address = freshAddress();
      for (let i = 0; i < 60; i++) await getMethods(app, `test_${String(i).padStart(40, 'S')}`, address);
      assert.equal(outcome(await getMethods(app, WRONG_KEY, address)), 'locked');
      const served = await getMethods(app, t.merchant.testApiKey, address);
      assert.equal(served.statusCode, 200, served.body);
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/payment',
        headers: { authorization: basic(t.merchant.testApiKey) },
        payload: cardPayment(),
        remoteAddress: address,
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(outcome(await getMethods(app, `test_${'T'.repeat(40)}`, address)), 'locked', 'wrong keys stay refused with Retry-After');
    });

    test('concurrent wrong keys: the allowance looked up at once, the rest one at a time, each refused', async () => {
      const { app, lookups } = await countedKassa();
      const address = freshAddress();
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => getMethods(app, `test_${String(i).padStart(40, 'C')}`, address)));
      const statuses = answers.map(outcome);
      assert.equal(statuses.filter((s) => s === 401).length, LIMIT);
      assert.equal(statuses.filter((s) => s === 'locked').length, 50 - LIMIT);
      assert.equal(lookups(), 50);
    });

    test('a burst of good keys from one address, more than the allowance at once, is served: it waits instead of failing', async () => {
      const { t, app, lookups } = await countedKassa();
      const keys: string[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const m = await createMerchant(t.store, `Platform shop ${i}`);
        keys.push(m.testApiKey, m.liveApiKey);
      }
      const address = freshAddress();
      const answers = await Promise.all([...keys, ...keys].map((key) => getMethods(app, key, address)));
      assert.deepEqual(new Set(answers.map((a) => a.statusCode)), new Set([200]));
      assert.equal(lookups(), 4 * LIMIT, 'API_KEY_CACHE_MS=0: each request looked its key up');
      assert.equal((await getMethods(app, WRONG_KEY, address)).statusCode, 401, 'the good keys gave their attempts back');
    });

    test('a key verified lately still passes from an address over its allowance', async () => {
      const { t, app } = await countedKassa({ API_KEY_CACHE_MS: '60000' });
      const address = freshAddress();
      assert.equal((await getMethods(app, t.merchant.testApiKey, address)).statusCode, 200);
      for (let i = 0; i < LIMIT; i++) await getMethods(app, WRONG_KEY, address);
      assert.equal(outcome(await getMethods(app, WRONG_KEY, address)), 'locked');
      assert.equal((await getMethods(app, t.merchant.testApiKey, address)).statusCode, 200);
    });

    test('a verified key is taken as it is for API_KEY_CACHE_MS, header and key alike, then looked up again: a revoked key is refused after it', async () => {
      const { t, app, lookups } = await countedKassa({ API_KEY_CACHE_MS: '1000' });
      const address = freshAddress();
      for (let i = 0; i < 5; i++) assert.equal((await getMethods(app, t.merchant.testApiKey, address)).statusCode, 200);
      const withPassword = await app.inject({
        method: 'GET',
        url: '/api/v1/method',
        headers: { authorization: `Basic ${Buffer.from(`${t.merchant.testApiKey}:x`).toString('base64')}` },
        remoteAddress: address,
      });
      assert.equal(withPassword.statusCode, 200);
      assert.equal(lookups(), 1, 'one lookup in the window, whatever the header');
      await rotateApiKey(t.store, t.merchant.merchantId, 'test');
      assert.equal((await getMethods(app, t.merchant.testApiKey, address)).statusCode, 200, 'revoked, but verified less than API_KEY_CACHE_MS ago');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await getMethods(app, t.merchant.testApiKey, address)).statusCode, 401);
      assert.equal(lookups(), 2);
    });
  });
}

describe('failed authentication across processes', () => {
  const apps: TestApp[] = [];
  after(() => Promise.all(apps.map((t) => t.close())));

  test('processes sharing REDIS_URL share an address’s allowance', redis, async () => {
    const a = await startTestApp('sqlite', { REDIS_URL, AUTH_FAILURE_LIMIT: '6' });
    apps.push(a);
    const b = await buildServer(a.config, a.store, { logger: false });
    try {
      const address = freshAddress();
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 8; i++) statuses.push(outcome(await getMethods(i % 2 ? b : a.app, `test_${String(i).padStart(40, 'R')}`, address)));
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 401, 'locked', 'locked']);
    } finally {
      await b.close();
    }
  });
});

describe('failed authentication behind a proxy', () => {
  const apps: TestApp[] = [];
  after(() => Promise.all(apps.map((t) => t.close())));

  test('with TRUST_PROXY the proxy’s X-Forwarded-For names the client; without it a client cannot name its own address', async () => {
    const behind = await startTestApp('sqlite', { TRUST_PROXY: '127.0.0.1', AUTH_FAILURE_LIMIT: '3' });
    const direct = await startTestApp('sqlite', { AUTH_FAILURE_LIMIT: '3' });
    apps.push(behind, direct);
    const send = (t: TestApp, forwardedFor: string) =>
      t.app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(WRONG_KEY), 'x-forwarded-for': forwardedFor }, remoteAddress: '127.0.0.1' });
    for (const client of ['198.51.100.1', '198.51.100.2']) {
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 4; i++) statuses.push(outcome(await send(behind, client)));
      assert.deepEqual(statuses, [401, 401, 401, 'locked'], client);
    }
    const spoofed: (number | string)[] = [];
    for (let i = 0; i < 4; i++) spoofed.push(outcome(await send(direct, `198.51.100.${10 + i}`)));
    assert.deepEqual(spoofed, [401, 401, 401, 'locked']);
  });

  test('TRUST_PROXY lists addresses or CIDR ranges, never everyone', () => {
    assert.deepEqual(loadConfig({}).trustProxy, []);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy, ['10.0.0.0/8', '::1']);
    for (const raw of ['true', '*', 'proxy.example', '10.0.0.0/x']) assert.throws(() => loadConfig({ TRUST_PROXY: raw }), /TRUST_PROXY/, raw);
  });
});

test('an allowance belongs to an IPv4 address, or to an IPv6 address’s /64', () => {
  const cases: [string, string][] = [
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ];
  for (const [ip, bucket] of cases) assert.equal(addressBucket(ip), bucket, ip);
});

test('past its allowance an address has one lookup out at a time in a process; a good key past it gives nothing back', async () => {
  const failures = new FailedAuthentications(1, undefined);
  const address = freshAddress();
  assert.equal(await failures.take(address), undefined);
  await failures.settle(address, false);
  const first = await failures.take(address);
  assert.ok(first !== undefined && first >= 1 && first <= 60, `Retry-After ${first}`);
  let second: number | undefined | 'waiting' = 'waiting';
  const taking = failures.take(address).then((retryAfter) => (second = retryAfter));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(second, 'waiting', 'the second lookup past the allowance waits for the first');
  await failures.settle(address, false);
  await taking;
  assert.notEqual(second, undefined, 'still past the allowance');
  await failures.settle(address, false);
});
