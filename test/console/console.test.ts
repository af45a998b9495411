/** The console over HTTP on SQLite and PostgreSQL: sign-in, sessions, CSRF, the list and search, scoping, actions and the audit log. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, api, cardPayment, suiteApp } from '../support/app.ts';
import { buildServer } from '../../src/server.ts';
import { createMerchant, createTestMerchant } from '../../src/merchants/merchants.ts';
import { completePayment, insertPendingPayment, pendingPaymentRow } from '../events/support.ts';
import { insertTransaction } from '../../src/store/transactions.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { ConsoleClient, makeAccount } from './support.ts';
import type { Injector } from '../support/app.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { showWebhook } from '../../src/events/admin.ts';
import { paymentMerchant } from '../../src/merchants/merchants.ts';
import { paymentMethods } from '../../src/ground/payment-method.ts';
import { listedTransactions } from '../../src/console/export.ts';

/** The rows of a CSV answer (RFC 4180 as csv-stringify writes it, with no line breaks inside cells here). */
const csvRows = (body: string) =>
  body
    .trimEnd()
    .split('\r\n')
    .map((line) => [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map((m) => m[1].replace(/^"|"$/g, '').replaceAll('""', '"')));

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
      for (let i = 0; i < kassa.config.console.lockoutAttempts; i++)
        assert.equal((await new ConsoleClient(kassa.app).signIn('guessed@kassa.test', `wrong ${i}`)).statusCode, 401);
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
        const page = await client.get(`/dashboard/payments?mode=test&q=${q}`);
        assert.equal(page.statusCode, 200);
        assert.ok(page.body.includes(`/dashboard/payments/${reference}`), q);
        assert.ok(!page.body.includes(`/dashboard/payments/${other}`), q);
      }
      const filtered = await client.get('/dashboard/payments?mode=test&status=failed&q=order-search-1');
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
      let url: string | undefined = '/dashboard/payments?mode=test';
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
      const done = await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '2.50', confirmed: 'yes' });
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

    test('the payment page names the 3-D Secure fields left out for their format, each with why', async () => {
      await makeAccount(kassa.store, 'left-out@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { billingEmail: 'jan@bücher.de', browser: { language: '*' } });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('left-out@kassa.test');
      const page = await client.get(`/dashboard/payments/${reference}`);
      const threeDS = page.body.slice(page.body.indexOf('id="threeds-title"'), page.body.indexOf('id="events-title"'));
      assert.match(threeDS, /<code>\/billingEmail<\/code> must be an RFC 5322 e-mail address/);
      assert.match(threeDS, /<code>\/browser\/language<\/code> must be an IETF BCP 47 language tag/);
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
        confirmed: 'yes',
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
      assert.equal((await client.post(`/dashboard/payments/${toCapture}/capture`, { csrf, amount: '4.00', confirmed: 'yes' })).statusCode, 303);
      assert.equal((await kassa.client.get(`/transaction?reference=${toCapture}`)).json().details.captureStatus, 'captured');
      const toReverse = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { transactionType: 'authorise' });
      assert.equal((await client.post(`/dashboard/payments/${toReverse}/reversal`, { csrf, confirmed: 'yes' })).statusCode, 303);
      assert.equal((await kassa.client.get(`/transaction?reference=${toReverse}`)).json().details.captureStatus, 'reversed');
    });

    test('the list shows amount, status and reference first, the merchant by name, and statuses and types in Dutch', async () => {
      const shop = await createMerchant(kassa.store, 'Bakkerij Jansen');
      await makeAccount(kassa.store, 'list-words@kassa.test');
      const reference = await paidCardPayment(kassa.app, shop.testApiKey, { merchantOrderReference: 'order-words' });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('list-words@kassa.test');
      const page = await client.get('/dashboard/payments?mode=test&q=order-words', { 'accept-language': 'nl-NL,nl;q=0.9' });
      const head = /<thead><tr>(.*?)<\/tr><\/thead>/.exec(page.body)![1];
      assert.deepEqual(
        [...head.matchAll(/<th scope="col"[^>]*>([^<]+)</g)].slice(0, 3).map((m) => m[1]),
        ['Bedrag', 'Status', 'Referentie'],
      );
      const row = /<tbody>\s*<tr>(.*?)<\/tr>/s.exec(page.body)![1];
      assert.match(
        row,
        /^<td class="amount" title="€\s?10,00">€\s?10,00<\/td><td class="status"><span class="status-success">Geslaagd<\/span><\/td><td><a href="\/dashboard\/payments\//,
      );
      assert.ok(row.includes(reference), 'the reference');
      assert.ok(row.includes('<td class="more" title="Bakkerij Jansen">Bakkerij Jansen</td>'), 'the merchant by name');
      assert.ok(!row.includes(shop.merchantId), 'not by id');
      assert.ok(row.includes('<td class="more" title="Verkoop">Verkoop</td>'), 'the type in Dutch');
      assert.match(page.body, /<option value="manualintervention">In controle<\/option>/);
    });

    test('what happened after the status is shown beside it, in the list and on the page: captured, partly refunded, refunded, disputed, charged back', async () => {
      const shop = await createMerchant(kassa.store, 'Outcome Shop');
      await makeAccount(kassa.store, 'outcomes@kassa.test', shop.merchantId);
      const merchantApi = api(kassa.app, shop.testApiKey);
      const ok = async (path: string, body: Record<string, unknown>) => assert.equal((await merchantApi.post(path, body)).statusCode, 200, path);
      const captured = await paidCardPayment(kassa.app, shop.testApiKey, { transactionType: 'authorise' });
      await ok('/capture', { reference: captured });
      const partlyRefunded = await paidCardPayment(kassa.app, shop.testApiKey);
      await ok('/refund', { reference: partlyRefunded, amount: '2.50' });
      const refunded = await paidCardPayment(kassa.app, shop.testApiKey);
      await ok('/refund', { reference: refunded });
      const disputed = await paidCardPayment(kassa.app, shop.testApiKey);
      await ok('/test/dispute', { reference: disputed, stage: 'notification' });
      const chargedBack = await paidCardPayment(kassa.app, shop.testApiKey);
      await ok('/test/dispute', { reference: chargedBack, stage: 'chargeback', amount: '4.00' });
      const plain = await paidCardPayment(kassa.app, shop.testApiKey);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('outcomes@kassa.test');
      const list = (await client.get('/dashboard/payments?mode=test&type=sale')).body + (await client.get('/dashboard/payments?mode=test&type=authorise')).body;
      const listed = (reference: string) => {
        const row = new RegExp(`<tr>((?:(?!</tr>).)*/dashboard/payments/${reference}"(?:(?!</tr>).)*)</tr>`, 's').exec(list)![1];
        return [...row.matchAll(/<span class="(status|outcome)[^"]*">([^<]+)<\/span>/g)].map((m) => m[2]);
      };
      const onPage = async (reference: string, language = 'en') => {
        const page = (await client.get(`/dashboard/payments/${reference}`, { 'accept-language': language })).body;
        const summary = page.slice(page.indexOf('id="summary-title"'), page.indexOf('</section>', page.indexOf('id="summary-title"')));
        return [...summary.matchAll(/<span class="(status|outcome)[^"]*">([^<]+)<\/span>/g)].map((m) => m[2]);
      };
      const expected: [string, string[]][] = [
        [captured, ['Successful', 'Captured']],
        [partlyRefunded, ['Successful', 'Partly refunded']],
        [refunded, ['Successful', 'Refunded']],
        [disputed, ['Successful', 'Disputed']],
        [chargedBack, ['Successful', 'Charged back']],
        [plain, ['Successful']],
      ];
      for (const [reference, words] of expected) {
        assert.deepEqual(listed(reference), words, `listed ${reference}`);
        assert.deepEqual(await onPage(reference), words, `page of ${reference}`);
      }
      assert.deepEqual(await onPage(partlyRefunded, 'nl'), ['Geslaagd', 'Deels terugbetaald']);
      assert.deepEqual(await onPage(chargedBack, 'nl'), ['Geslaagd', 'Teruggeboekt']);
    });

    test("capability addresses are shown only to who needs them: payUrl to the payment's own merchant while pending, cancelUrl to no one", async () => {
      const shop = await createMerchant(kassa.store, 'Capability Shop');
      await makeAccount(kassa.store, 'capability-shop@kassa.test', shop.merchantId);
      await makeAccount(kassa.store, 'capability-platform@kassa.test');
      const created = (await api(kassa.app, shop.testApiKey).post('/payment', cardPayment())).json() as { reference: string; payUrl: string; cancelUrl: string };
      assert.ok(created.payUrl && created.cancelUrl, 'the API answers both');
      const token = created.payUrl.split('/').pop()!;
      const merchantClient = new ConsoleClient(kassa.app);
      await merchantClient.signIn('capability-shop@kassa.test');
      const platformClient = new ConsoleClient(kassa.app);
      await platformClient.signIn('capability-platform@kassa.test');

      const platformPage = (await platformClient.get(`/dashboard/payments/${created.reference}`)).body;
      assert.ok(!platformPage.includes(token), 'a platform operator sees no capability address, nor its token');
      assert.ok(!platformPage.includes('payUrl') && !platformPage.includes('cancelUrl'));
      const merchantPage = (await merchantClient.get(`/dashboard/payments/${created.reference}`)).body;
      assert.ok(merchantPage.includes(`<dt>payUrl</dt><dd>${created.payUrl}</dd>`), "the merchant's own account: payUrl, to send the customer back");
      assert.ok(!merchantPage.includes('cancelUrl') && !merchantPage.includes(created.cancelUrl), 'cancelUrl to no one: the Cancel button cancels, audited');

      const csrf = await merchantClient.csrf();
      assert.equal((await merchantClient.post(`/dashboard/payments/${created.reference}/cancel`, { csrf })).statusCode, 303);
      const ended = (await merchantClient.get(`/dashboard/payments/${created.reference}`)).body;
      assert.ok(!ended.includes(token), 'an ended payment: no payUrl either');
    });

    test('the payment page shows times as UTC dates, raw JSON only behind a toggle, and the timeline in Dutch', async () => {
      await makeAccount(kassa.store, 'page-words@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('page-words@kassa.test');
      const page = await client.get(`/dashboard/payments/${reference}`, { 'accept-language': 'nl' });
      const object = page.body.slice(page.body.indexOf('id="object-title"'), page.body.indexOf('id="threeds-title"'));
      const created = (await kassa.client.get(`/transaction?reference=${reference}`)).json().created as number;
      const date = `${new Date(created).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
      assert.match(date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
      assert.ok(object.includes(`<dt>created</dt><dd>${date}</dd>`), 'created as a UTC date');
      // The epoch milliseconds and every JSON text are inside a <details> toggle only.
      const outsideToggles = object.replace(/<details class="raw">.*?<\/details>/gs, '');
      assert.ok(!outsideToggles.includes(String(created)), 'no epoch milliseconds outside the raw toggle');
      assert.ok(!outsideToggles.includes('<pre>'), 'no JSON outside the raw toggle');
      assert.match(object, /<details class="raw"><summary>Ruw, zoals de API antwoordt<\/summary><pre>\{/);
      assert.ok(object.includes(`&quot;created&quot;: ${created}`), 'the epoch milliseconds in the raw object');
      const events = page.body.slice(page.body.indexOf('id="events-title"'), page.body.indexOf('id="related-title"'));
      assert.match(events, /In behandeling → Geslaagd<\/td><td>De acquirer heeft geautoriseerd<\/td>/);
      assert.match(events, /<td>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC<\/td>/);
    });

    test('actions are offered only where their operation would accept them', async () => {
      await makeAccount(kassa.store, 'offers@kassa.test');
      const client = new ConsoleClient(kassa.app);
      await client.signIn('offers@kassa.test');
      const csrf = await client.csrf();
      const offered = async (reference: string) => {
        const page = await client.get(`/dashboard/payments/${reference}`);
        return [...page.body.matchAll(/<form method="post" action="\/dashboard\/payments\/tr_[^/]+\/(\w+)"/g)].map((m) => m[1]);
      };
      const sale = await paidCardPayment(kassa.app, kassa.merchant.testApiKey);
      assert.deepEqual(await offered(sale), ['refund', 'dispute'], 'paid in test mode: refund, or a test dispute');
      assert.equal((await client.post(`/dashboard/payments/${sale}/refund`, { csrf, amount: '10.00', confirmed: 'yes' })).statusCode, 303);
      assert.deepEqual(
        await offered(sale),
        [],
        'fully refunded: no Refund, nor a Test dispute: nothing is left to dispute (docs/disputes.md "What is left of a payment")',
      );
      const refund = (await kassa.client.get(`/transaction?reference=${sale}`)).json().details.refunds?.[0]?.reference as string | undefined;
      const credit =
        refund ?? (await kassa.store.read.selectFrom('transactions').select('reference').where('parent_reference', '=', sale).executeTakeFirstOrThrow()).reference;
      assert.deepEqual(await offered(credit), [], 'a refund is not refundable');
      const authorisation = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { transactionType: 'authorise' });
      assert.deepEqual(await offered(authorisation), ['capture', 'reversal'], 'an authorisation not captured: no Refund');
      assert.equal((await client.post(`/dashboard/payments/${authorisation}/capture`, { csrf, confirmed: 'yes' })).statusCode, 303);
      assert.deepEqual(await offered(authorisation), ['refund', 'dispute'], 'captured: refund, or a test dispute');
      const pending = (await kassa.client.post('/payment', cardPayment())).json().reference;
      assert.deepEqual(await offered(pending), ['cancel', 'complete'], 'pending in test mode: cancel, or complete as the test helper');
      const held = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { amount: '10.31' });
      assert.deepEqual(await offered(held), ['resolve']);
      assert.equal((await client.post(`/dashboard/payments/${pending}/cancel`, { csrf })).statusCode, 303);
      assert.deepEqual(await offered(pending), ['complete'], 'cancelled: only its late payment, played as the test helper (docs/console.md "Actions")');
    });

    test('one money format on every page: the confirmation shows an amount as the list and the transaction page do, in the page language', async () => {
      await makeAccount(kassa.store, 'money-format@kassa.test');
      const euros = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { amount: '21.50', merchantOrderReference: 'order-money-format' });
      const yen = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { amount: '500', currency: 'JPY' });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('money-format@kassa.test');
      const csrf = await client.csrf();
      for (const [reference, language, shown] of [
        [euros, 'en', '€21.50'],
        [euros, 'nl', '€\u00a021,50'],
        [yen, 'en', '¥500'],
      ] as const) {
        const headers = { 'accept-language': language };
        const page = (await client.get(`/dashboard/payments/${reference}`, headers)).body;
        assert.ok(page.includes(`<p><strong>${shown}</strong>`), `the transaction page: ${shown}`);
        const list = (await client.get(`/dashboard/payments?mode=test&q=${reference}`, headers)).body;
        assert.ok(list.includes(`<td class="amount" title="${shown}">${shown}</td>`), `the list: ${shown}`);
        const confirm = (await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '' }, headers)).body;
        assert.ok(/<p><strong>[^<]*<\/strong><\/p>/.exec(confirm)![0].includes(shown), `the confirmation: ${shown}`);
        assert.ok(!confirm.includes('EUR') && !confirm.includes('JPY'), 'no currency code in its place');
      }
    });

    test('an action that moves money asks to confirm amount and currency; only the confirmed POST runs it', async () => {
      const account = await makeAccount(kassa.store, 'confirm@kassa.test');
      const reference = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { amount: '25.00' });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('confirm@kassa.test');
      const csrf = await client.csrf();
      const partial = await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '10' });
      assert.equal(partial.statusCode, 200);
      assert.ok(partial.body.includes(`Refund €10.00 of payment ${reference}?`), 'the confirmation names amount and currency');
      assert.equal((await kassa.client.get(`/transaction?reference=${reference}`)).json().details.refundedAmount, undefined, 'nothing refunded before confirming');
      const form = /<form method="post" action="([^"]+)">(.*?)<\/form>/s.exec(partial.body.slice(partial.body.indexOf('class="card confirm"')))!;
      const fields = Object.fromEntries([...form[2].matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
      assert.deepEqual(fields, { csrf, amount: '10.00', confirmed: 'yes' }, 'the same CSRF token, the amount shown');
      assert.equal((await client.post(form[1], fields)).statusCode, 303);
      assert.equal((await kassa.client.get(`/transaction?reference=${reference}`)).json().details.refundedAmount, 10);
      // An empty amount is confirmed as all that is not refunded yet, and the confirmed POST carries that amount.
      const all = await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '' });
      assert.ok(all.body.includes(`Refund €15.00 of payment ${reference}?`), 'an empty amount is all not refunded yet');
      assert.match(all.body, /<input type="hidden" name="amount" value="15.00">/);
      // Refused before confirming, with the operation's own words.
      const tooMuch = await client.post(`/dashboard/payments/${reference}/refund`, { csrf, amount: '20.00' });
      assert.equal(tooMuch.statusCode, 422);
      assert.match(tooMuch.body, /Not done: .*\/amount/);
      const authorisation = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { transactionType: 'authorise', amount: '7.50' });
      const capture = await client.post(`/dashboard/payments/${authorisation}/capture`, { csrf });
      assert.ok(capture.body.includes(`Capture €7.50 of authorisation ${authorisation}?`), 'capture confirmed');
      const reversal = await client.post(`/dashboard/payments/${authorisation}/reversal`, { csrf });
      assert.ok(reversal.body.includes(`Reverse authorisation ${authorisation} and release €7.50?`), 'reversal confirmed');
      const held = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { amount: '10.31' });
      const resolve = await client.post(`/dashboard/payments/${held}/resolve`, { csrf, outcome: 'success', failureCode: '', reason: 'acquirer says paid' });
      assert.ok(resolve.body.includes(`Resolve payment ${held} of €10.31 as Successful?`), 'resolve confirmed');
      assert.equal((await kassa.client.get(`/transaction?reference=${held}`)).json().status, 'manualintervention', 'not resolved before confirming');
      const audited = await kassa.store.read.selectFrom('audit_log').select(['operator_id', 'detail']).where('reference', '=', reference).orderBy('id').execute();
      assert.deepEqual(
        audited.map((e) => [e.operator_id, JSON.parse(e.detail).amount, 'refused' in JSON.parse(e.detail)]),
        [
          [account.operatorId, '10.00', false],
          [account.operatorId, '20.00', true],
        ],
        'only what ran or was refused is audited, not a confirmation shown',
      );
    });

    test('housekeeping deletes expired sessions and the sign-in counts whose window has ended', async () => {
      await makeAccount(kassa.store, 'purged@kassa.test');
      await new ConsoleClient(kassa.app).signIn('purged@kassa.test');
      await new ConsoleClient(kassa.app).signIn('purged@kassa.test', 'wrong');
      const count = async (table: 'console_sessions' | 'sign_in_attempts') =>
        Number(
          (
            await kassa.store.read
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [sessions, windows] = [await count('console_sessions'), await count('sign_in_attempts')];
      assert.ok(sessions > 0 && windows > 0);
      const purged = await runHousekeeping(kassa.config, kassa.store, Date.now() + kassa.config.console.sessionLifetimeMs + kassa.config.console.lockoutMs);
      assert.deepEqual([purged.consoleSessions, purged.signInWindows], [sessions, windows]);
      assert.deepEqual([await count('console_sessions'), await count('sign_in_attempts')], [0, 0]);
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
      assert.equal((await client.post(path, { csrf, password: 'a long new password 2', repeat: 'a long new password 2' })).statusCode, 303);
      assert.equal((await client.get(path)).statusCode, 404, 'the link is spent');
      assert.equal((await client.signIn('invited@kassa.test', 'a long new password 2')).statusCode, 303);
    });

    test('settings: a key rotated in the console is shown once, the old one stops working, and only its prefix is audited', async () => {
      const shop = await createMerchant(kassa.store, 'Keys Shop');
      await makeAccount(kassa.store, 'keys@kassa.test', shop.merchantId);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('keys@kassa.test');
      const list = await client.get('/dashboard/merchants');
      assert.equal(list.statusCode, 303, "a merchant's account goes straight to its own settings");
      assert.equal(list.headers.location, `/dashboard/merchants/${shop.merchantId}`);
      const page = await client.get(`/dashboard/merchants/${shop.merchantId}`);
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes(`${shop.testApiKey.slice(0, 12)}…`));
      assert.ok(page.body.includes(`${shop.liveApiKey.slice(0, 12)}…`));
      assert.ok(!page.body.includes(shop.testApiKey), 'a key is never shown whole after its creation');
      const csrf = await client.csrf();
      const rotated = await client.post(`/dashboard/merchants/${shop.merchantId}/api-key`, { csrf, mode: 'test' });
      assert.equal(rotated.statusCode, 200);
      const newKey = /<code class="secret-value">(test_[0-9A-Za-z]+)<\/code>/.exec(rotated.body)![1];
      assert.equal((await api(kassa.app, shop.testApiKey).post('/payment', cardPayment())).statusCode, 401);
      assert.equal((await api(kassa.app, newKey).post('/payment', cardPayment())).statusCode, 200);
      const again = await client.get(`/dashboard/merchants/${shop.merchantId}`);
      assert.ok(!again.body.includes(newKey), 'shown once');
      assert.ok(again.body.includes(`${newKey.slice(0, 12)}…`));
      const entry = await kassa.store.read
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'rotate_api_key')
        .where('merchant_id', '=', shop.merchantId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(entry.detail), { mode: 'test', keyPrefix: newKey.slice(0, 12) });
      assert.ok(!entry.detail.includes(newKey));
      const bad = await client.post(`/dashboard/merchants/${shop.merchantId}/api-key`, { csrf, mode: 'staging' });
      assert.equal(bad.statusCode, 422);
      assert.match(bad.body, /Not saved: Mode must be test or live/);
    });

    test('settings: webhook URL checked as the CLI checks it, secret rotated once, a test webhook queued; card brands and vault path saved', async () => {
      const shop = await createMerchant(kassa.store, 'Hooks Shop');
      await makeAccount(kassa.store, 'hooks@kassa.test');
      const client = new ConsoleClient(kassa.app);
      await client.signIn('hooks@kassa.test');
      const csrf = await client.csrf();
      const base = `/dashboard/merchants/${shop.merchantId}`;
      const noUrl = await client.post(`${base}/test-webhook`, { csrf, mode: 'test' });
      assert.equal(noUrl.statusCode, 422);
      assert.match(noUrl.body, /Not saved: Webhook URL is not set/);
      const refused = await client.post(`${base}/webhook-url`, { csrf, url: 'http://169.254.169.254/latest' });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body, /Not saved: Webhook URL is refused for webhooks in every mode/);
      assert.match(refused.body, /id="s-url"[^>]*aria-invalid="true"/);
      const notHttp = await client.post(`${base}/webhook-url`, { csrf, url: 'ftp://example.com/hooks' });
      assert.match(notHttp.body, /Not saved: Webhook URL must be an absolute http\(s\) URL/);
      const saved = await client.post(`${base}/webhook-url`, { csrf, url: 'http://127.0.0.1:9/hooks' });
      assert.equal(saved.statusCode, 303);
      assert.equal((await showWebhook(kassa.store, shop.merchantId)).url, 'http://127.0.0.1:9/hooks');

      const before = (await showWebhook(kassa.store, shop.merchantId)).secret;
      const rotated = await client.post(`${base}/webhook-secret`, { csrf });
      assert.equal(rotated.statusCode, 200);
      const secret = /<code class="secret-value">(whsec_[^<]+)<\/code>/.exec(rotated.body)![1];
      assert.notEqual(secret, before);
      assert.equal((await showWebhook(kassa.store, shop.merchantId)).secret, secret);
      assert.ok(!(await client.get(base)).body.includes(secret), 'shown once');

      assert.equal((await client.post(`${base}/test-webhook`, { csrf, mode: 'test' })).statusCode, 303);
      const delivery = await kassa.store.read.selectFrom('webhook_deliveries').selectAll().where('merchant_id', '=', shop.merchantId).executeTakeFirstOrThrow();
      assert.deepEqual([delivery.event, delivery.state, delivery.mode], ['test', 'pending', 'test']);
      assert.match(delivery.reference, /^whtest_/);
      assert.ok((await client.get(base)).body.includes(delivery.id), 'the test delivery is listed on the settings page');
      const redelivered = await client.post(`/dashboard/webhooks/${delivery.id}/redeliver`, { csrf });
      assert.equal(redelivered.headers.location, base);

      assert.equal((await client.post(`${base}/card-brands`, { csrf, brands: 'visa' })).statusCode, 303);
      const both = await client.inject('POST', `${base}/card-brands`, `csrf=${csrf}&brands=mastercard&brands=visa`);
      assert.equal(both.statusCode, 303);
      assert.deepEqual((await paymentMerchant(kassa.store.read, shop.merchantId)).settings.cardBrands, ['visa', 'mastercard']);
      const noBrand = await client.post(`${base}/card-brands`, { csrf });
      assert.equal(noBrand.statusCode, 422);
      assert.match(noBrand.body, /Not saved: Card brands must name at least one card brand/);
      const unknown = await client.post(`${base}/card-brands`, { csrf, brands: 'diners' });
      assert.match(unknown.body, /Card brands must be among visa, mastercard, amex, maestro, bcmc; not diners/);

      assert.equal((await client.post(`${base}/vault-path`, { csrf, path: 'direct' })).statusCode, 303);
      assert.equal((await paymentMerchant(kassa.store.read, shop.merchantId)).settings.vaultPaymentPath, 'direct');
      assert.equal((await client.post(`${base}/vault-path`, { csrf, path: 'sideways' })).statusCode, 422);

      const actions = await kassa.store.read.selectFrom('audit_log').select(['action', 'detail']).where('merchant_id', '=', shop.merchantId).orderBy('id').execute();
      assert.deepEqual(
        actions.map((a) => [a.action, 'refused' in JSON.parse(a.detail)]),
        [
          ['test_webhook', true],
          ['set_webhook_url', true],
          ['set_webhook_url', true],
          ['set_webhook_url', false],
          ['rotate_webhook_secret', false],
          ['test_webhook', false],
          ['redeliver', false],
          ['set_card_brands', false],
          ['set_card_brands', false],
          ['set_card_brands', true],
          ['set_card_brands', true],
          ['set_vault_path', false],
          ['set_vault_path', true],
        ],
      );
      assert.ok(
        actions.every((a) => !a.detail.includes('whsec_')),
        'no secret in the audit log',
      );
    });

    test('settings: a checkbox per known payment method, checked when enabled; saving enables the checked ones and disables the others', async () => {
      const shop = await createMerchant(kassa.store, 'Methods Shop');
      await makeAccount(kassa.store, 'methods@kassa.test', shop.merchantId);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('methods@kassa.test');
      const csrf = await client.csrf();
      const base = `/dashboard/merchants/${shop.merchantId}`;
      const checkedOn = (body: string) =>
        paymentMethods.filter((method) => new RegExp(`<input type="checkbox" id="s-method-${method}" name="methods" value="${method}" checked>`).test(body));
      const page = await client.get(base);
      assert.ok(
        paymentMethods.every((method) => page.body.includes(`id="s-method-${method}"`)),
        'every known method has its checkbox',
      );
      assert.deepEqual(checkedOn(page.body), ['card', 'landingpage', 'walletpay']);

      const saved = await client.post(`${base}/payment-methods`, { csrf, methods: 'card' });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, `${base}?done=payment-methods`);
      const after = await client.get(saved.headers.location!);
      assert.match(after.body, /The payment methods were saved\./);
      assert.deepEqual(checkedOn(after.body), ['card']);
      assert.deepEqual((await paymentMerchant(kassa.store.read, shop.merchantId)).settings.methods, ['card']);
      const wallet = { method: 'walletpay', amount: '10.00', currency: 'EUR', returnUrl: 'https://shop.example/return' };
      assert.equal((await api(kassa.app, shop.testApiKey).post('/payment', wallet)).json().errors[0].code, 'not_enabled');

      assert.equal((await client.inject('POST', `${base}/payment-methods`, `csrf=${csrf}&methods=walletpay&methods=card`)).statusCode, 303);
      assert.deepEqual((await paymentMerchant(kassa.store.read, shop.merchantId)).settings.methods, ['card', 'walletpay']);
      assert.equal((await api(kassa.app, shop.testApiKey).post('/payment', wallet)).statusCode, 200);
      const unknown = await client.post(`${base}/payment-methods`, { csrf, methods: 'cash' });
      assert.equal(unknown.statusCode, 422);
      assert.match(
        unknown.body,
        /Not saved: Payment methods names an unknown payment method: cash \(known: card, landingpage, walletpay, ideal, paypal, klarna, banktransfer\)/,
      );
      assert.match(unknown.body, /<fieldset aria-invalid="true" aria-describedby="s-methods-hint settings-problem"><legend>Payment methods this merchant accepts/);
      assert.deepEqual((await paymentMerchant(kassa.store.read, shop.merchantId)).settings.methods, ['card', 'walletpay'], 'a refused change changes nothing');
      assert.equal((await client.post(`${base}/payment-methods`, { csrf })).statusCode, 303, 'none checked: the merchant accepts no payment');
      assert.deepEqual((await paymentMerchant(kassa.store.read, shop.merchantId)).settings.methods, []);
      assert.equal((await client.post(`${base}/payment-methods`, { methods: 'card' })).statusCode, 403, 'without the CSRF token');

      const dutch = await client.get(base, { 'accept-language': 'nl' });
      assert.match(dutch.body, /<h2 id="methods-title">Betaalmethoden<\/h2>/);
      const entries = await kassa.store.read
        .selectFrom('audit_log')
        .select(['action', 'detail'])
        .where('merchant_id', '=', shop.merchantId)
        .where('action', '=', 'set_payment_methods')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        entries.map((e) => JSON.parse(e.detail)),
        [
          { methods: ['card'] },
          { methods: ['walletpay', 'card'] },
          { methods: ['cash'], refused: '--enable names an unknown payment method: cash (known: card, landingpage, walletpay, ideal, paypal, klarna, banktransfer)' },
          { methods: [] },
        ],
      );
    });

    test("settings: a merchant's account cannot see or change another merchant's settings (404)", async () => {
      const shop = await createMerchant(kassa.store, 'Own Shop');
      const other = await createMerchant(kassa.store, 'Other Shop');
      await makeAccount(kassa.store, 'own@kassa.test', shop.merchantId);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('own@kassa.test');
      const csrf = await client.csrf();
      assert.equal((await client.get(`/dashboard/merchants/${other.merchantId}`)).statusCode, 404);
      assert.equal((await client.get('/dashboard/merchants/mer_nonexistent0000')).statusCode, 404);
      for (const [change, fields] of [
        ['api-key', { mode: 'test' }],
        ['webhook-url', { url: 'https://evil.example/hooks' }],
        ['webhook-secret', {}],
        ['payment-methods', { methods: 'card' }],
        ['card-brands', { brands: 'amex' }],
        ['vault-path', { path: 'direct' }],
      ] as const) {
        assert.equal((await client.post(`/dashboard/merchants/${other.merchantId}/${change}`, { csrf, ...fields })).statusCode, 404, change);
      }
      assert.equal((await api(kassa.app, other.testApiKey).post('/payment', cardPayment())).statusCode, 200, 'its key still works');
      assert.equal((await showWebhook(kassa.store, other.merchantId)).url, null);
      const forged = await client.post(`/dashboard/merchants/${shop.merchantId}/vault-path`, { path: 'direct' });
      assert.equal(forged.statusCode, 403, 'without the CSRF token');
    });

    test('the overview counts payments per day and method, with the success rate, from the database', async () => {
      const shop = await createMerchant(kassa.store, 'Overview Shop');
      await makeAccount(kassa.store, 'overview@kassa.test', shop.merchantId);
      await paidCardPayment(kassa.app, shop.testApiKey);
      await paidCardPayment(kassa.app, shop.testApiKey);
      await api(kassa.app, shop.testApiKey).post('/payment', cardPayment());
      const cancelled = (await api(kassa.app, shop.testApiKey).post('/payment', cardPayment())).json().reference;
      await paidCardPayment(kassa.app, kassa.merchant.testApiKey, {}, '4111 1111 1111 1111');
      const client = new ConsoleClient(kassa.app);
      await client.signIn('overview@kassa.test');
      const csrf = await client.csrf();
      assert.equal((await client.post(`/dashboard/payments/${cancelled}/cancel`, { csrf })).statusCode, 303);
      const page = await client.get(`/dashboard/overview?mode=test&merchant=${kassa.merchant.merchantId}`);
      assert.equal(page.statusCode, 200);
      const today = new Date().toISOString().slice(0, 10);
      // 4 payments of this merchant only (the merchant filter cannot widen the account): 2 successful, 1 failed, 1 open.
      assert.match(
        page.body,
        /<tr><th scope="row"><svg class="key"[^>]*><rect[^>]*><\/rect><\/svg> card<\/th><td>4<\/td><td>2<\/td><td>1<\/td><td>66\.7%<\/td><td class="amount">€\s?20\.00<\/td><\/tr>/,
      );
      assert.match(
        page.body,
        new RegExp(`<tr><th scope="row">${today}</th><td>4</td><td>4</td><td>2</td><td>1</td><td>66.7%</td><td class="amount">€\\s?20\\.00</td></tr>`),
      );
      assert.match(page.body, /<svg class="chart"[^>]*role="img" aria-labelledby="chart-title chart-desc"/);
      assert.match(page.body, /<desc id="chart-desc">30 days from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}/);
      const empty = await client.get('/dashboard/overview?from=2001-01-01&to=2001-01-31');
      assert.match(empty.body, /No payments in this period\./);
      const bad = await client.get('/dashboard/overview?from=2026-02-30&to=2025-01-01');
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /The period is not valid: from/);
      assert.equal((await client.get('/dashboard/overview?from=2020-01-01&to=2026-01-01')).statusCode, 400, 'more than 366 days');
    });

    test('the overview shows what successful payments took, per method and day and per currency, never adding currencies', async () => {
      const shop = await createMerchant(kassa.store, 'Money Shop');
      await makeAccount(kassa.store, 'money@kassa.test', shop.merchantId);
      await paidCardPayment(kassa.app, shop.testApiKey, { amount: '12.50' });
      await paidCardPayment(kassa.app, shop.testApiKey, { amount: '7.50' });
      await paidCardPayment(kassa.app, shop.testApiKey, { amount: '3.00', currency: 'USD' });
      await paidCardPayment(kassa.app, shop.testApiKey, { amount: '10.31' });
      await api(kassa.app, shop.testApiKey).post('/payment', cardPayment({ amount: '99.00' }));
      const client = new ConsoleClient(kassa.app);
      await client.signIn('money@kassa.test');
      const page = await client.get('/dashboard/overview?mode=test');
      const today = new Date().toISOString().slice(0, 10);
      // Held for review and pending payments are counted but took no money.
      assert.match(
        page.body,
        /<tr><th scope="row"><svg class="key"[^>]*><rect[^>]*><\/rect><\/svg> card<\/th><td>5<\/td><td>3<\/td><td>0<\/td><td>100%<\/td><td class="amount">€\s?20\.00<br>\$3\.00<\/td><\/tr>/,
      );
      assert.match(
        page.body,
        new RegExp(`<tr><th scope="row">${today}</th><td>5</td><td>5</td><td>3</td><td>0</td><td>100%</td><td class="amount">€\\s?20\\.00<br>\\$3\\.00</td></tr>`),
      );
      const dutch = await client.get('/dashboard/overview?mode=test', { 'accept-language': 'nl' });
      assert.match(dutch.body, /<th scope="col">Betaald bedrag<\/th>/);
      const empty = await client.get('/dashboard/overview?mode=live');
      assert.match(empty.body, /No payments in this period\./);
    });

    test('the overview is one volume chart, each bar made of a part per method, with the numbers per day and method as a table', async () => {
      const shop = await createMerchant(kassa.store, 'Chart Shop');
      await makeAccount(kassa.store, 'chart@kassa.test', shop.merchantId);
      const methods = ['card', 'ideal', 'paypal', 'banktransfer'] as const;
      await kassa.store.transact(async (db) => {
        for (const [i, method] of methods.entries()) {
          for (let n = 0; n <= i; n++) await insertTransaction(db, { ...pendingPaymentRow(kassa.store.secrets, shop.merchantId), method }, 'created');
        }
      });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('chart@kassa.test');
      const page = (await client.get('/dashboard/overview?mode=test')).body;
      assert.equal(page.match(/<svg class="chart"/g)?.length, 1, 'one chart, not one per method');
      const chart = page.slice(page.indexOf('<svg class="chart"'), page.indexOf('</svg>', page.indexOf('<svg class="chart"')));
      const fills = [...chart.matchAll(/<rect class="bar" fill="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
      assert.equal(fills.length, methods.length, "today's bar: a part per method");
      assert.equal(new Set(fills).size, methods.length, 'each method its own colour');
      assert.match(
        chart,
        /<desc id="chart-desc">30 days from [\d-]+ to [\d-]+\. Bars: payments per day, at most 10, each made of a part per method \(banktransfer, card, ideal, paypal\)/,
      );
      const legend = /<ul class="legend">(.*?)<\/ul>/s.exec(page)![1];
      assert.deepEqual(
        [...legend.matchAll(/<\/svg> (\w+)<\/li>/g)].map((m) => m[1]),
        ['banktransfer', 'card', 'ideal', 'paypal'],
      );
      const today = new Date().toISOString().slice(0, 10);
      // Day, payments, then each method's: banktransfer 4, card 1, ideal 2, paypal 3.
      assert.match(page, new RegExp(`<tr><th scope="row">${today}</th><td>10</td><td>4</td><td>1</td><td>2</td><td>3</td><td>0</td><td>0</td><td>–</td>`));
    });

    test('test and live money are never shown together: the list, the overview and the export show one mode, live by default where a live key exists', async () => {
      const shop = await createMerchant(kassa.store, 'Two Modes Shop');
      await makeAccount(kassa.store, 'modes@kassa.test', shop.merchantId);
      const testPaid = await paidCardPayment(kassa.app, shop.testApiKey, { amount: '10.00' });
      const livePaid = await insertPendingPayment(kassa.store, shop.merchantId, { mode: 'live' });
      await completePayment(kassa.store, livePaid);
      const client = new ConsoleClient(kassa.app);
      await client.signIn('modes@kassa.test');
      const label = (body: string) => /<h1>[^<]*<span class="mode-label mode-(\w+)">([^<]+)<\/span><\/h1>/.exec(body)?.slice(1);
      const current = (body: string) => /<a href="([^"]+)" aria-current="page">([^<]+)<\/a>/.exec(body)?.slice(1);

      const list = await client.get('/dashboard/payments');
      assert.ok(list.body.includes(livePaid) && !list.body.includes(testPaid), 'live by default: the merchant has a live key');
      assert.deepEqual(label(list.body), ['live', 'Live data']);
      assert.deepEqual(current(list.body), ['/dashboard/payments?mode=live', 'Live data']);
      assert.ok(list.body.includes('<a href="/dashboard/payments?mode=test">Test data</a>'), 'test data one click away');
      const testList = await client.get('/dashboard/payments?mode=test');
      assert.ok(testList.body.includes(testPaid) && !testList.body.includes(livePaid));
      assert.deepEqual(label(testList.body), ['test', 'Test data']);
      assert.deepEqual(label((await client.get('/dashboard/payments?mode=test', { 'accept-language': 'nl' })).body), ['test', 'Testgegevens']);
      assert.equal((await client.get('/dashboard/payments?mode=any')).statusCode, 400, 'no list of both modes');
      const noMatch = await client.get(`/dashboard/payments?q=${testPaid}`);
      assert.ok(
        noMatch.body.includes(`<a href="/dashboard/payments?mode=test&amp;q=${testPaid}">Look in the test data</a>`),
        'a search finding nothing live offers the test data',
      );

      // Each mode's amount paid is its own: 10.00 each, never 20.00 for both.
      const paidByMethod = (body: string) =>
        /<tr><th scope="row"><svg class="key"[^>]*><rect[^>]*><\/rect><\/svg> card<\/th><td>(\d+)<\/td>.*?<td class="amount">([^<]+)<\/td><\/tr>/.exec(body)?.slice(1);
      const overview = await client.get('/dashboard/overview');
      assert.deepEqual(label(overview.body), ['live', 'Live data']);
      assert.deepEqual(paidByMethod(overview.body), ['1', '€10.00']);
      assert.doesNotMatch(overview.body, /<option value="">Any<\/option>/, 'no mode "any" for totals');
      const testOverview = await client.get('/dashboard/overview?mode=test');
      assert.deepEqual(label(testOverview.body), ['test', 'Test data']);
      assert.deepEqual(paidByMethod(testOverview.body), ['1', '€10.00']);
      assert.equal((await client.get('/dashboard/overview?mode=any')).statusCode, 400);

      const exported = await client.get('/dashboard/payments.csv');
      assert.match(String(exported.headers['content-disposition']), /filename="kassa-transactions-live-/);
      assert.deepEqual(
        csvRows(exported.body)
          .slice(1)
          .map((row) => [row[0], row[3]]),
        [[livePaid, 'live']],
      );
      const exportedTest = await client.get('/dashboard/payments.csv?mode=test');
      assert.match(String(exportedTest.headers['content-disposition']), /filename="kassa-transactions-test-/);
      assert.deepEqual(
        csvRows(exportedTest.body)
          .slice(1)
          .map((row) => [row[0], row[3]]),
        [[testPaid, 'test']],
      );

      // A merchant with no live key sees its test data first; so does a platform operator choosing that merchant.
      const testOnly = await createTestMerchant(kassa.store, { name: 'Test Only Shop', methods: ['card'] });
      const testOnlyPaid = await paidCardPayment(kassa.app, testOnly.testApiKey);
      await makeAccount(kassa.store, 'test-only@kassa.test', testOnly.merchantId);
      const testOnlyClient = new ConsoleClient(kassa.app);
      await testOnlyClient.signIn('test-only@kassa.test');
      const testOnlyList = await testOnlyClient.get('/dashboard/payments');
      assert.deepEqual(label(testOnlyList.body), ['test', 'Test data']);
      assert.ok(testOnlyList.body.includes(testOnlyPaid));
      assert.deepEqual(label((await testOnlyClient.get('/dashboard/overview')).body), ['test', 'Test data']);
      await makeAccount(kassa.store, 'modes-platform@kassa.test');
      const platform = new ConsoleClient(kassa.app);
      await platform.signIn('modes-platform@kassa.test');
      assert.deepEqual(label((await platform.get('/dashboard/payments')).body), ['live', 'Live data'], 'some merchant has a live key');
      assert.deepEqual(label((await platform.get(`/dashboard/payments?merchant=${testOnly.merchantId}`)).body), ['test', 'Test data']);
      assert.deepEqual(label((await platform.get(`/dashboard/overview?merchant=${testOnly.merchantId}`)).body), ['test', 'Test data']);
    });

    test('the CSV export streams the filtered list with decimal amounts, formula cells defused, scoped and audited', async () => {
      const shop = await createMerchant(kassa.store, 'Export Shop');
      await makeAccount(kassa.store, 'export@kassa.test', shop.merchantId);
      const paid = await paidCardPayment(kassa.app, shop.testApiKey, { amount: '1234.50', merchantOrderReference: '=HYPERLINK("x")' });
      const open = (
        await api(kassa.app, shop.testApiKey).post('/payment', cardPayment({ currency: 'JPY', amount: '500', merchantOrderReference: 'plain, "quoted"' }))
      ).json().reference;
      const separated = (await api(kassa.app, shop.testApiKey).post('/payment', cardPayment({ merchantOrderReference: ";=cmd|' /C calc'!A0;" }))).json().reference;
      const foreign = await paidCardPayment(kassa.app, kassa.merchant.testApiKey, { merchantOrderReference: 'order-export-foreign' });
      const client = new ConsoleClient(kassa.app);
      await client.signIn('export@kassa.test');
      const all = await client.get(`/dashboard/payments.csv?mode=test&merchant=${kassa.merchant.merchantId}`);
      assert.equal(all.statusCode, 200);
      assert.match(String(all.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.match(String(all.headers['content-disposition']), /^attachment; filename="kassa-transactions-test-[0-9-]+\.csv"$/);
      const rows = csvRows(all.body);
      assert.deepEqual(rows[0], [
        'reference',
        'created',
        'merchantId',
        'mode',
        'type',
        'method',
        'brand',
        'status',
        'failureCode',
        'amount',
        'currency',
        'merchantOrderReference',
        'parentReference',
      ]);
      assert.ok(!all.body.includes(foreign), "another merchant's payment is never exported");
      const byReference = new Map(rows.slice(1).map((row) => [row[0], row]));
      assert.deepEqual(byReference.get(paid)!.slice(7, 12), ['success', '', '1234.50', 'eur', `'=HYPERLINK("x")`]);
      assert.deepEqual(byReference.get(open)!.slice(7, 12), ['pending', '', '500', 'jpy', 'plain, "quoted"']);
      assert.ok(all.body.includes('"plain, ""quoted"""'), 'RFC 4180 quoting');
      // Quoted, a cell stays one cell where `;` separates cells too (Dutch and German spreadsheets), so nothing in it starts a formula.
      const quotedCell = '"(?:[^"]|"")*"';
      for (const line of all.body.trimEnd().split('\r\n')) assert.match(line, new RegExp(`^${quotedCell}(?:,${quotedCell})*$`), 'every cell quoted, empty ones too');
      assert.equal(byReference.get(separated)![11], ";=cmd|' /C calc'!A0;");
      assert.ok(all.body.includes(`,";=cmd|' /C calc'!A0;",`));
      const filtered = csvRows((await client.get('/dashboard/payments.csv?mode=test&status=pending')).body);
      assert.deepEqual(
        filtered.slice(1).map((row) => row[0]),
        [separated, open],
      );
      const entry = await kassa.store.read
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'export')
        .where('merchant_id', '=', shop.merchantId)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(entry.operator_email, 'export@kassa.test');
      assert.deepEqual(JSON.parse(entry.detail), { mode: 'test', status: 'pending' });
      assert.equal((await client.get('/dashboard/payments.csv?status=nonsense')).statusCode, 400);
    });

    test('the export reads the list page after page by keyset, every row once', async () => {
      const shop = await createMerchant(kassa.store, 'Pages Shop');
      const made = new Set<string>();
      for (let i = 0; i < 7; i++) made.add((await api(kassa.app, shop.testApiKey).post('/payment', cardPayment())).json().reference);
      const seen: string[] = [];
      for await (const row of listedTransactions(kassa.store.read, { merchantId: shop.merchantId }, 3)) seen.push(row.reference);
      assert.equal(seen.length, 7);
      assert.deepEqual(new Set(seen), made);
    });
  });
}
