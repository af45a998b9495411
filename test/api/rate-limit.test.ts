/** Per-API-key rate limit: 429 problem with Retry-After and RateLimit-* headers; shared through Redis. */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { needs, redisMissing } from '../support/dependencies.ts';
import { api, startTestApp, type TestApp } from '../support/app.ts';

const REDIS_URL = process.env.KASSA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = { skip: needs(await redisMissing(REDIS_URL)) };

describe('rate limit', () => {
  const apps: TestApp[] = [];
  after(() => Promise.all(apps.map((t) => t.close())));

  test('a key over its limit gets 429 with Retry-After; other keys are unaffected', async () => {
    const t = await startTestApp('sqlite', { RATE_LIMIT_PER_SECOND: '5' });
    apps.push(t);
    const client = api(t.app, t.merchant.testApiKey);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await client.get('/method')).statusCode);
    assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429], 'burst of twice the per-second rate, then 429');
    const limited = await client.get('/method');
    assert.equal(limited.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(limited.json().status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const fine = await client.get('/method', { key: t.merchant.liveApiKey });
    assert.equal(fine.statusCode, 200, 'the live key has its own budget');
    assert.equal(fine.headers['ratelimit-limit'], '10');
    assert.ok('ratelimit-remaining' in fine.headers);
  });

  test('processes sharing REDIS_URL share the budget', redis, async () => {
    const a = await startTestApp('sqlite', { RATE_LIMIT_PER_SECOND: '3', REDIS_URL });
    apps.push(a);
    // A second process on the same database and Redis: same merchant, same key.
    const { buildServer } = await import('../../src/server.ts');
    const b = await buildServer(a.config, a.store, { logger: false });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await api(i % 2 ? b : a.app, a.merchant.testApiKey).get('/method')).statusCode);
      assert.equal(statuses.filter((s) => s === 200).length, 6);
      assert.deepEqual(statuses.slice(6), [429, 429]);
    } finally {
      await b.close();
    }
  });
});
