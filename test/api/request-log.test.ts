/**
 * The request log (docs/api.md "Request log"), on SQLite and PostgreSQL: a merchant API request made
 * with an API key is kept with its fields and never its body, query string, path tokens or key; it is
 * written a second later in one batch, and on close; the console lists a merchant's own to its
 * operator and no other merchant's; `kassa requests` prints them; the housekeeping purges them after
 * REQUEST_LOG_RETENTION.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { api, backends, cardPayment, startTestApp, suiteApp } from '../support/app.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { listRequestLog, type RequestLogRow } from '../../src/store/request-log.ts';
import { KASSA_CLI } from '../support/process.ts';
import { root } from '../../bin/build-freshness.js';
import { ConsoleClient, makeAccount } from '../console/support.ts';
import type { Store } from '../../src/store/store.ts';

const run = promisify(execFile);
const CARD_NUMBER = '4111111111111111';
const DAY = 24 * 3600_000;

/** The merchant's entries once the buffer wrote them (a second after the first, api/request-log.ts). */
async function entriesOf(store: Store, merchantId: string, count: number): Promise<RequestLogRow[]> {
  for (let i = 0; i < 50; i++) {
    const rows = await listRequestLog(store.read, { merchantId }, 100);
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`fewer than ${count} request log entries after 5 s`);
}

/** Every column of every row of the table, as one text. */
async function wholeTable(store: Store): Promise<string> {
  return JSON.stringify(await store.read.selectFrom('request_log').selectAll().execute());
}

for (const backend of backends) {
  describe(`request log (${backend})`, () => {
    const t = suiteApp(backend);

    test('a request made with a key is kept with its fields, never its body, query string, tokens or key', async () => {
      const started = Date.now();
      const created = await t.client.post('/payment', cardPayment(), { headers: { 'x-request-id': 'req-create-1' } });
      assert.equal(created.statusCode, 200, created.body);
      const { reference, cancelUrl } = created.json() as { reference: string; cancelUrl: string };
      const read = await t.client.get(`/transaction?reference=${reference}`);
      assert.equal(read.statusCode, 200);
      const missing = await t.client.get('/transaction?reference=nosuchpaymentreference');
      assert.equal(missing.statusCode, 404);
      const token = new URL(cancelUrl).pathname.split('/').pop()!;
      const cancelled = await t.client.post(`/cancel/${token}`, {});
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      // Not made with a key: not the merchant's request, not kept.
      const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/method' });
      assert.equal(anonymous.statusCode, 401);

      const rows = await entriesOf(t.store, t.merchant.merchantId, 4);
      assert.equal(rows.length, 4);
      const [cancel, notFound, found, create] = rows;
      assert.deepEqual(
        { ...create, id: 0, at: 0, duration_ms: 0 },
        {
          id: 0,
          at: 0,
          duration_ms: 0,
          merchant_id: t.merchant.merchantId,
          mode: 'test',
          key_prefix: t.merchant.testApiKey.slice(0, 12),
          method: 'POST',
          route: '/api/v1/payment',
          status: 200,
          request_id: 'req-create-1',
          problem_title: null,
        },
      );
      assert.ok(create!.at >= started && create!.at <= Date.now());
      assert.ok(create!.duration_ms > 0);
      assert.equal(found!.route, '/api/v1/transaction');
      assert.equal(found!.request_id, read.headers['x-request-id']);
      assert.deepEqual([notFound!.status, notFound!.problem_title], [404, 'Not found']);
      assert.equal(cancel!.route, '/api/v1/cancel/:token');
      const table = await wholeTable(t.store);
      for (const secret of [reference, token, t.merchant.testApiKey, 'https://shop.example/return'])
        assert.ok(!table.includes(secret), `${secret} is not in the request log`);
    });

    test('a card number in a request body is nowhere in the request log', async () => {
      const card = { details: { cardNumber: CARD_NUMBER, cvc: '737' }, [CARD_NUMBER]: CARD_NUMBER };
      const accepted = await t.client.post('/payment', cardPayment(card), { headers: { 'x-request-id': 'req-card-in-body' } });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const refused = await t.client.post('/payment', cardPayment({ ...card, amount: CARD_NUMBER }), { headers: { 'x-request-id': 'req-card-refused' } });
      assert.equal(refused.statusCode, 422, refused.body);
      const rows = await entriesOf(t.store, t.merchant.merchantId, 6);
      const entry = rows.find((row) => row.request_id === 'req-card-refused')!;
      assert.deepEqual([entry.status, entry.problem_title], [422, refused.json().title]);
      assert.ok(!(await wholeTable(t.store)).includes(CARD_NUMBER.slice(0, 6)));
    });

    test("the console lists a merchant's requests to its operator and not another merchant's", async () => {
      const other = await createMerchant(t.store, 'Other Shop');
      const otherCall = await api(t.app, other.testApiKey).get('/method', { headers: { 'x-request-id': 'req-other-shop' } });
      assert.equal(otherCall.statusCode, 200);
      await entriesOf(t.store, other.merchantId, 1);
      const own = await api(t.app, t.merchant.testApiKey).get('/method', { headers: { 'x-request-id': 'req-own-shop' } });
      assert.equal(own.statusCode, 200);
      await entriesOf(t.store, t.merchant.merchantId, 7);

      await makeAccount(t.store, `dev-${backend}@shop.example`, t.merchant.merchantId);
      const browser = new ConsoleClient(t.app);
      await browser.signIn(`dev-${backend}@shop.example`);
      const page = await browser.get('/dashboard/requests?mode=test');
      assert.equal(page.statusCode, 200, page.body);
      assert.ok(page.body.includes('req-own-shop') && page.body.includes('/api/v1/method'));
      assert.ok(page.body.includes(`${t.merchant.testApiKey.slice(0, 12)}…`));
      assert.ok(!page.body.includes('req-other-shop'), "another merchant's request is not shown");
      // Asking for the other merchant changes nothing: a merchant's account is limited to its own.
      assert.ok(!(await browser.get(`/dashboard/requests?mode=test&merchant=${other.merchantId}`)).body.includes('req-other-shop'));

      const errors = await browser.get('/dashboard/requests?mode=test&status=4xx');
      assert.ok(errors.body.includes('req-card-refused') && !errors.body.includes('req-card-in-body') && !errors.body.includes('req-own-shop'));
      const byId = await browser.get('/dashboard/requests?mode=test&requestId=req-create-1');
      assert.ok(byId.body.includes('req-create-1') && !byId.body.includes('req-own-shop'));
      const byRoute = await browser.get(`/dashboard/requests?mode=test&route=${encodeURIComponent('/api/v1/cancel/:token')}`);
      assert.ok(byRoute.body.includes('/api/v1/cancel/:token') && !byRoute.body.includes('req-own-shop'));
      assert.ok(!(await browser.get('/dashboard/requests?mode=live')).body.includes('req-own-shop'), 'test requests are not shown as live');
      assert.equal((await browser.get('/dashboard/requests?status=3xx')).statusCode, 400);
    });

    test('kassa requests prints them, newest first', async () => {
      const { stdout } = await run(process.execPath, [...KASSA_CLI, 'requests', '--merchant', t.merchant.merchantId, '--mode', 'test', '--limit', '2'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...t.database.env },
      });
      const lines = stdout.trim().split('\n');
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /^\S+Z {2}test {2}\S+ {2}GET {2}\/api\/v1\/method {2}200 {2}[\d.]+ ms {2}req-own-shop$/);
      assert.match(lines[1]!, / POST {2}\/api\/v1\/payment {2}422 {2}[\d.]+ ms {2}req-card-refused {2}\S/);
      const none = await run(process.execPath, [...KASSA_CLI, 'requests', '--merchant', t.merchant.merchantId, '--mode', 'live'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...t.database.env },
      });
      assert.equal(none.stdout.trim(), 'no requests in the request log');
    });

    test('the housekeeping purges entries older than REQUEST_LOG_RETENTION', async () => {
      const kept = (await listRequestLog(t.store.read, {}, 1000)).length;
      assert.equal(t.config.requestLogRetentionMs, 14 * DAY);
      assert.equal((await runHousekeeping(t.config, t.store, Date.now() + 13 * DAY)).requestLog, 0);
      assert.equal((await runHousekeeping(t.config, t.store, Date.now() + 15 * DAY)).requestLog, kept);
      assert.deepEqual(await listRequestLog(t.store.read, {}, 1000), []);
    });
  });

  test(`the entries buffered are written when the server closes (${backend})`, async () => {
    const kassa = await startTestApp(backend);
    try {
      assert.equal((await kassa.client.get('/method', { headers: { 'x-request-id': 'req-before-close' } })).statusCode, 200);
      await kassa.app.close();
      const rows = await listRequestLog(kassa.store.read, { merchantId: kassa.merchant.merchantId }, 10);
      assert.deepEqual(
        rows.map((row) => row.request_id),
        ['req-before-close'],
      );
    } finally {
      await kassa.close();
    }
  });
}
