/** The console over HTTP on SQLite and PostgreSQL: sign-in, sessions, CSRF, the list and search, scoping, actions and the audit log. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, api, cardPayment, suiteApp } from '../support/app.ts';
import { buildServer } from '../../src/server.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { ConsoleClient, makeAccount } from './support.ts';
import type { Injector } from '../support/app.ts';
import { FAILURES_PER_ACCOUNT, FAILURE_WINDOW_MS, SESSION_TTL_MS } from '../../src/operators/sessions.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';

/** A card payment paid on its page (frictionless 3-D Secure), as a customer would. */
async function paidCardPayment(app: Injector, key: string, overrides: Record<string, unknown> = {}, cardNumber = '4111 1111 1111 1111') {
  const created = (await api(app, key).post('/payment', cardPayment(overrides))).json();
  const { path, csrf } = await openPage(app, created.payUrl);
  const paid = await postForm(app, `${path}/card`, { csrf, ...card({ cardNumber }) });
  assert.ok([200, 303].includes(paid.statusCode), paid.body);
  return created.reference as string;
}

for (const backend of backends) {
  describe(`console on ${backend}`, () => {
    const kassa = suiteApp(backend);

    test('a wrong password and an unknown account are refused with the same words; the right one signs in with a strict cookie', async () => {
      await makeAccount(kassa.store, 'ops@kassa.test');
      const wrong = await new ConsoleClient(kassa.app).signIn('ops@kassa.test', 'not the password');
      const unknown = await new ConsoleClient(kassa.app).signIn('nobody@kassa.test');
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      const message = (body: string) => /<div class="problem" role="alert"><p>([^<]+)</.exec(body)?.[1];
      assert.equal(message(wrong.body), 'The email address or password is not right.');
      assert.equal(message(unknown.body), message(wrong.body));
      assert.equal((await new ConsoleClient(kassa.app).signIn('nul\u0000@kassa.test')).statusCode, 401, 'text no database stores is refused like any wrong address');
      const client = new ConsoleClient(kassa.app);
      const signedIn = await client.signIn('OPS@kassa.test');
      assert.equal(signedIn.statusCode, 303);
      assert.equal(signedIn.headers.location, '/dashboard/payments');
      const session = signedIn.cookies.find((c) => c.name === 'kassa_console')!;
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Strict');
      assert.equal(session.path, '/dashboard');
      const page = await client.get('/dashboard/payments');
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'nonce-/);
    });

    test('after too many failures an account is refused even with the right password', async () => {
      await makeAccount(kassa.store, 'guessed@kassa.test');
      for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) assert.equal((await new ConsoleClient(kassa.app).signIn('guessed@kassa.test', `wrong ${i}`)).statusCode, 401);
      const right = await new ConsoleClient(kassa.app).signIn('guessed@kassa.test');
      assert.equal(right.statusCode, 429);
      assert.match(right.body, /Too many attempts/);
    });

    test('a session survives a restart (a new server on the same database) and ends with sign-out', async () => {
      await makeAccount(kassa.store, 'restart@kassa.test');
      const client = new ConsoleClient(kassa.app);
      await client.signIn('restart@kassa.test');
      const csrf = await client.csrf();
      const other = await buildServer(kassa.config, kassa.store, { logger: false });
      try {
        const onOther = await other.inject({ method: 'GET', url: '/dashboard/payments', headers: { cookie: client.cookie } });
        assert.equal(onOther.statusCode, 200);
      } finally {
        await other.close();
      }
      const cookie = client.cookie;
      const out = await client.post('/dashboard/sign-out', { csrf });
      assert.equal(out.statusCode, 303);
      const after = await kassa.app.inject({ method: 'GET', url: '/dashboard/payments', headers: { cookie } });
      assert.equal(after.statusCode, 303);
      assert.equal(after.headers.location, '/dashboard/sign-in');
    });

    test('the list finds a payment by merchantOrderReference, by reference and by the last four card digits', async () => {
      await makeAccount(kassa.store, 'search@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { merchantOrderReference: 'order-search-1' }, '5555 5555 5555 4444');
      const other = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { merchantOrderReference: 'order-search-2' });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('search@kassa.test');
      for (const q of ['order-search-1', reference, '4444']) {
        const page = await client.get(`/dashboard/payments?q=${q}`);
        assert.equal(page.statusCode, 200);
        assert.ok(page.body.includes(`/dashboard/payments/${reference}`), q);
        assert.ok(!page.body.includes(`/dashboard/payments/${other}`), q);
      }
      const filtered = await client.get('/dashboard/payments?status=failed&q=order-search-1');
      assert.ok(!filtered.body.includes(reference));
      const bad = await client.get('/dashboard/payments?status=nonsense&from=yesterday');
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /not valid: [a-z, ]*status/);
      assert.match(bad.body, /not valid: [a-z, ]*from/);
    });

    test('pages of the list follow one another without repeating or skipping a transaction', async () => {
      const shop = await createMerchant(kassa.store, 'Paging Shop');
      await makeAccount(kassa.store, 'paging@kassa.test', shop.merchantId);
      const made = new Set<string>();
      for (let i = 0; i < 55; i++) made.add((await api(kassa.app, shop.testApiKey).post('/payment', cardPayment())).json().reference);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('paging@kassa.test');
      const seen: string[] = [];
      let url: string | undefined = '/dashboard/payments';
      while (url) {
        const page = await client.get(url);
        seen.push(...[...page.body.matchAll(/<td><a href="\/dashboard\/payments\/(tr_[^"]+)"/g)].map((m) => m[1]));
        url = /<a href="([^"]+)" rel="next">/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
      }
      assert.equal(seen.length, 55);
      assert.deepEqual(new Set(seen), made);
    });

    test("a merchant's account sees and acts on its own merchant only: another's payment is 404", async () => {
      const shop = await createMerchant(kassa.store, 'Scoped Shop');
      await makeAccount(kassa.store, 'scoped@kassa.test', shop.merchantId);
      const foreign = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { merchantOrderReference: 'order-foreign' });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('scoped@kassa.test');
      const csrf = await client.csrf();
      assert.equal((await client.get(`/dashboard/payments/${foreign}`)).statusCode, 404);
      assert.equal((await client.post(`/dashboard/payments/${foreign}/refund`, { csrf, amount: '1.00' })).statusCode, 404);
      const list = await client.get('/dashboard/payments?q=order-foreign');
      assert.ok(!list.body.includes(foreign));
      const list2 = await client.get(`/dashboard/payments?merchant=${kassa.merchant.merchantId}`);
      assert.ok(!list2.body.includes(foreign), 'the merchant filter cannot widen a merchant account');
      assert.equal((await kassa.client.get(`/transaction?reference=${foreign}`)).json().details.refundedAmount, undefined);
    });

    test('a forged POST without the CSRF token, or from another site, is refused and changes nothing', async () => {
      await makeAccount(kassa.store, 'csrf@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('csrf@kassa.test');
      const csrf = await client.csrf();
      assert.equal((await client.post(`/dashboard/payments/${reference}/refund`, { amount: '1.00' })).statusCode, 403);
      assert.equal((await client.post(`/dashboard/payments/${reference}/refund`, { amount: '1.00', csrf }, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
      assert.equal((await client.post('/dashboard/sign-out', {})).statusCode, 403);
      assert.equal((await kassa.client.get(`/transaction?reference=${reference}`)).json().details.refundedAmount, undefined);
      assert.equal((await client.get('/dashboard/payments')).statusCode, 200, 'still signed in');
    });

    test('a partial refund from the console goes through the refund operation, shows on the payment and in the audit log', async () => {
      const account = await makeAccount(kassa.store, 'refunds@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('refunds@kassa.test');
      const csrf = await client.csrf();
      const done = await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '2.50' });
      assert.equal(done.statusCode, 303);
      const page = await client.get(done.headers.location as string);
      assert.match(page.body, /The refund was made\./);
      assert.equal((await kassa.client.get(`/transaction?reference=${reference}`)).json().details.refundedAmount, 2.5);
      const refundReference = /<td><a href="\/dashboard\/payments\/(tr_[^"]+)">/.exec(page.body.slice(page.body.indexOf('id="related-title"')))![1];
      const refund = (await kassa.client.get(`/transaction?reference=${refundReference}`)).json();
      assert.deepEqual([refund.type, refund.status, refund.amount, refund.parentReference], ['credit', 'success', 2.5, reference]);
      // Too much is refused by the same operation, with its words, and audited too.
      const tooMuch = await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '100.00' });
      assert.equal(tooMuch.statusCode, 422);
      assert.match(tooMuch.body, /Not done: .*\/amount/);
      const entries = await kassa.store.read.selectFrom('audit_log').selectAll().where('reference', '=', reference).orderBy('id').execute();
      assert.deepEqual(
        entries.map((e) => [e.operator_id, e.action, JSON.parse(e.detail).amount, 'refused' in JSON.parse(e.detail)]),
        [
          [account.operatorId, 'refund', '2.50', false],
          [account.operatorId, 'refund', '100.00', true],
        ],
      );
      const audit = await client.get('/dashboard/audit');
      assert.ok(audit.body.includes('refunds@kassa.test'));
      await assert.rejects(
        kassa.store.transact((db) => db.deleteFrom('audit_log').execute()),
        /append-only/,
      );
    });

    test('a payment held for review is resolved with a reason through the resolve operation', async () => {
      await makeAccount(kassa.store, 'review@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { amount: '10.31' });
      assert.equal((await kassa.client.get(`/transaction?reference=${reference}`)).json().status, 'manualintervention');
      const client = new ConsoleClient(kassa.app);
      await client.signIn('review@kassa.test');
      const csrf = await client.csrf();
      const noReason = await client.post(`/dashboard/payments/${reference}/resolve`, { csrf, outcome: 'failed', failureCode: 'card_refused', reason: '' });
      assert.equal(noReason.statusCode, 422);
      const done = await client.post(`/dashboard/payments/${reference}/resolve`, {
        csrf,
        outcome: 'failed',
        failureCode: 'card_refused',
        reason: 'acquirer says declined',
      });
      assert.equal(done.statusCode, 303);
      const payment = (await kassa.client.get(`/transaction?reference=${reference}`)).json();
      assert.deepEqual([payment.status, payment.failureCode], ['failed', 'card_refused']);
      const events = await kassa.store.read.selectFrom('transaction_events').select('cause').where('reference', '=', reference).execute();
      assert.ok(events.some((e) => e.cause === 'operator_resolved'));
    });

    test('cancel, capture and reversal run their operations for the payment’s merchant', async () => {
      await makeAccount(kassa.store, 'follow@kassa.test');
      const client = new ConsoleClient(kassa.app);
      await client.signIn('follow@kassa.test');
      const csrf = await client.csrf();
      const pending = (await kassa.client.post('/payment', cardPayment())).json().reference;
      assert.equal((await client.post(`/dashboard/payments/${pending}/cancel`, { csrf })).statusCode, 303);
      assert.equal((await kassa.client.get(`/transaction?reference=${pending}`)).json().failureCode, 'cancelled');
      const toCapture = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { transactionType: 'authorise' });
      assert.equal((await client.post(`/dashboard/payments/${toCapture}/capture`, { csrf, amount: '4.00' })).statusCode, 303);
      assert.equal((await kassa.client.get(`/transaction?reference=${toCapture}`)).json().details.captureStatus, 'captured');
      const toReverse = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { transactionType: 'authorise' });
      assert.equal((await client.post(`/dashboard/payments/${toReverse}/reversal`, { csrf })).statusCode, 303);
      assert.equal((await kassa.client.get(`/transaction?reference=${toReverse}`)).json().details.captureStatus, 'reversed');
    });

    test('housekeeping deletes expired sessions and failed sign-ins that no longer count', async () => {
      await makeAccount(kassa.store, 'purged@kassa.test');
      await new ConsoleClient(kassa.app).signIn('purged@kassa.test');
      await new ConsoleClient(kassa.app).signIn('purged@kassa.test', 'wrong');
      const count = async (table: 'console_sessions' | 'sign_in_failures') =>
        Number(
          (
            await kassa.store.read
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [sessions, failures] = [await count('console_sessions'), await count('sign_in_failures')];
      assert.ok(sessions > 0 && failures > 0);
      const purged = await runHousekeeping(kassa.config, kassa.store, Date.now() + SESSION_TTL_MS + FAILURE_WINDOW_MS);
      assert.deepEqual([purged.consoleSessions, purged.signInFailures], [sessions, failures]);
      assert.deepEqual([await count('console_sessions'), await count('sign_in_failures')], [0, 0]);
    });

    test('a set-password link sets the password once', async () => {
      const created = await makeAccount(kassa.store, 'placeholder@kassa.test');
      assert.equal(created.setPasswordUrl, undefined);
      const { createOperator } = await import('../../src/operators/accounts.ts');
      const invited = await createOperator(kassa.store, { email: 'invited@kassa.test', publicUrl: 'http://kassa.test' });
      const path = new URL(invited.setPasswordUrl!).pathname;
      const client = new ConsoleClient(kassa.app);
      const form = await client.get(path);
      assert.equal(form.statusCode, 200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1];
      assert.equal((await client.post(path, { csrf, password: 'short', repeat: 'short' })).statusCode, 422);
      assert.equal((await client.post(path, { csrf, password: 'a long new password', repeat: 'a long new password' })).statusCode, 303);
      assert.equal((await client.get(path)).statusCode, 404, 'the link is spent');
      assert.equal((await client.signIn('invited@kassa.test', 'a long new password')).statusCode, 303);
    });
  });
}
