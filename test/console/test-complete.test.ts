/**
 * A pending test payment completed from the console (docs/console.md "Actions"), over HTTP on
 * SQLite and PostgreSQL: the test helper's operation through the runner, so the API reads the
 * same state and the same webhook is queued; offered for pending test-mode transactions only,
 * confirmed before it runs, and refused with nothing changed once the payment is final.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, suiteApp } from '../support/app.ts';
import { changePaymentMethods, createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { deliveriesFor, insertPendingPayment } from '../events/support.ts';
import { csrfOf, postForm } from '../pages/flow.ts';
import { ConsoleClient, makeAccount } from './support.ts';

const RETURN_URL = 'https://shop.example/return';

for (const backend of backends) {
  describe(`console: completing a test payment on ${backend}`, () => {
    const kassa = suiteApp(backend);
    let shop: Awaited<ReturnType<typeof createMerchant>>;
    let client: ConsoleClient;
    let csrf: string;

    before(async () => {
      // A merchant's own account, as a merchant testing its integration would use it.
      shop = await createMerchant(kassa.store, 'Transfer Shop');
      await changePaymentMethods(kassa.store, shop.merchantId, { enable: ['banktransfer'] });
      // Nothing listens there: the worker does not run in this test, only the queued delivery is checked.
      await setWebhookUrl(kassa.store, shop.merchantId, 'http://127.0.0.1:9/webhooks');
      await makeAccount(kassa.store, 'tester@kassa.test', shop.merchantId);
      client = new ConsoleClient(kassa.app);
      await client.signIn('tester@kassa.test');
      csrf = await client.csrf();
    });

    const merchantApi = () => api(kassa.app, shop.testApiKey);
    const bankTransfer = async () => {
      const created = await merchantApi().post('/payment', { amount: '29.95', currency: 'EUR', method: 'banktransfer', returnUrl: RETURN_URL });
      assert.equal(created.statusCode, 200, created.body);
      return created.json().reference as string;
    };
    const read = async (reference: string) => (await merchantApi().get(`/transaction?reference=${reference}`)).json();
    const offered = async (reference: string) => {
      const page = await client.get(`/dashboard/payments/${reference}`);
      assert.equal(page.statusCode, 200, page.body);
      return [...page.body.matchAll(/<form method="post" action="\/dashboard\/payments\/tr_[^/]+\/(\w+)"/g)].map((m) => m[1]);
    };
    /** The outcome buttons of the completion form: value and label. */
    const outcomeButtons = (body: string) =>
      [...body.matchAll(/<button type="submit" name="outcome" value="(\w+)"[^>]*>([^<]+)<\/button>/g)].map((m) => [m[1], m[2]] as const);
    /** The confirmation's form: where it posts and its hidden fields. */
    const confirmationForm = (body: string) => {
      const form = /<form method="post" action="([^"]+)">(.*?)<\/form>/s.exec(body.slice(body.indexOf('class="card confirm"')))!;
      return { url: form[1], fields: Object.fromEntries([...form[2].matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]])) };
    };
    const completeEntries = async (reference: string) =>
      (await kassa.store.read.selectFrom('audit_log').select(['action', 'detail']).where('reference', '=', reference).orderBy('id').execute()).map((e) => [
        e.action,
        JSON.parse(e.detail),
      ]);

    test('a bank transfer marked as its money having arrived is successful through the API, its webhook queued, the action audited', async () => {
      const reference = await bankTransfer();
      const page = await client.get(`/dashboard/payments/${reference}`);
      assert.deepEqual(outcomeButtons(page.body), [
        ['paid', 'The money arrived'],
        ['failed', 'Failed'],
        ['cancelled', 'Cancelled'],
        ['expired', 'Expired'],
      ]);
      const dutch = await client.get(`/dashboard/payments/${reference}`, { 'accept-language': 'nl' });
      assert.deepEqual(outcomeButtons(dutch.body)[0], ['paid', 'Het geld is binnen']);

      const asked = await client.post(`/dashboard/payments/${reference}/complete`, { csrf, outcome: 'paid' });
      assert.equal(asked.statusCode, 200);
      assert.ok(asked.body.includes(`Complete test payment ${reference} of €29.95: The money arrived?`), 'the confirmation names amount and outcome');
      assert.equal((await read(reference)).status, 'pending', 'nothing changes before confirming');
      const { url, fields } = confirmationForm(asked.body);
      assert.deepEqual(fields, { csrf, outcome: 'paid', confirmed: 'yes' });

      const done = await client.post(url, fields);
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, `/dashboard/payments/${reference}?done=complete`);
      assert.match((await client.get(done.headers.location)).body, /The test payment was completed\./);
      const payment = await read(reference);
      assert.deepEqual([payment.status, payment.failureCode, payment.method], ['success', undefined, 'banktransfer']);
      assert.equal((await eventsOf(kassa.store.read, reference)).at(-1)!.cause, 'test_helper', 'the test helper’s own state change');
      assert.deepEqual(
        (await deliveriesFor(kassa.store, reference)).map((d) => d.event),
        ['success'],
      );
      assert.deepEqual(await completeEntries(reference), [['complete', { outcome: 'paid', result: { reference, status: 'success' } }]]);
      assert.deepEqual(await offered(reference), ['refund', 'dispute'], 'final: no completion, and a paid transfer can be refunded or disputed');
    });

    for (const [outcome, label, failureCode] of [
      ['failed', 'Failed', 'rejected'],
      ['cancelled', 'Cancelled', 'cancelled'],
      ['expired', 'Expired', 'expired'],
    ] as const) {
      test(`${label} fails a pending test payment with failureCode ${failureCode} and queues its webhook`, async () => {
        const reference = await bankTransfer();
        const asked = await client.post(`/dashboard/payments/${reference}/complete`, { csrf, outcome });
        assert.ok(asked.body.includes(`Complete test payment ${reference} of €29.95: ${label}?`));
        const { url, fields } = confirmationForm(asked.body);
        assert.equal((await client.post(url, fields)).statusCode, 303);
        const payment = await read(reference);
        assert.deepEqual([payment.status, payment.failureCode], ['failed', failureCode]);
        assert.deepEqual(
          (await deliveriesFor(kassa.store, reference)).map((d) => d.event),
          [`failed/${failureCode}`],
        );
      });
    }

    test('a card payment’s success button says Paid; a landing page’s customer who chose a bank transfer gets The money arrived', async () => {
      const card = (await merchantApi().post('/payment', cardPayment())).json().reference as string;
      assert.deepEqual(await offered(card), ['cancel', 'complete']);
      assert.deepEqual(outcomeButtons((await client.get(`/dashboard/payments/${card}`)).body)[0], ['paid', 'Paid']);

      const landing = (await merchantApi().post('/payment', { amount: '12.00', currency: 'EUR', method: 'landingpage', returnUrl: RETURN_URL })).json();
      const path = new URL(landing.payUrl).pathname;
      const methods = await kassa.app.inject({ method: 'GET', url: path });
      assert.equal((await postForm(kassa.app, `${path}/method`, { csrf: csrfOf(methods.body), method: 'banktransfer' })).statusCode, 303);
      assert.deepEqual(outcomeButtons((await client.get(`/dashboard/payments/${landing.reference}`)).body)[0], ['paid', 'The money arrived']);
    });

    test('the action is absent for a live payment and a final one, and a forged POST for a live payment changes nothing', async () => {
      const live = await insertPendingPayment(kassa.store, shop.merchantId, { mode: 'live' });
      assert.ok(!(await offered(live)).includes('complete'), 'never for a live payment');
      for (const form of [{ outcome: 'paid' }, { outcome: 'paid', confirmed: 'yes' }] as Record<string, string>[]) {
        const forged = await client.post(`/dashboard/payments/${live}/complete`, { csrf, ...form });
        assert.equal(forged.statusCode, 404);
        assert.match(forged.body, /Not done: Transaction tr_\w+ is live; only a test-mode payment can be completed/);
      }
      const row = await kassa.store.read.selectFrom('transactions').select('status').where('reference', '=', live).executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending');
      assert.equal((await deliveriesFor(kassa.store, live)).length, 0);

      const failed = await bankTransfer();
      assert.equal((await merchantApi().post('/test/complete', { reference: failed, outcome: 'failed' })).statusCode, 200);
      assert.deepEqual(await offered(failed), ['complete'], 'failed: only its late payment (docs/console.md "Actions")');
      const unknown = await client.post(`/dashboard/payments/${failed}/complete`, { csrf, outcome: 'maybe' });
      assert.equal(unknown.statusCode, 422, 'an outcome the console does not offer is refused before anything is asked');
    });

    test('a double confirmation changes the payment once; the second is refused with a message and changes nothing', async () => {
      const reference = await bankTransfer();
      // Two confirmations shown while the payment was pending (two tabs, or a page left open).
      const arrived = confirmationForm((await client.post(`/dashboard/payments/${reference}/complete`, { csrf, outcome: 'paid' })).body);
      const expired = confirmationForm((await client.post(`/dashboard/payments/${reference}/complete`, { csrf, outcome: 'expired' })).body);
      assert.equal((await client.post(arrived.url, arrived.fields)).statusCode, 303);
      const late = await client.post(expired.url, expired.fields);
      assert.equal(late.statusCode, 409);
      assert.match(late.body, /Not done: Transaction tr_\w+ is success, not pending; only a pending payment can be completed\./);
      assert.equal((await read(reference)).status, 'success');

      // The same confirmation sent twice at once (a double click): one changes the payment, the other is refused.
      const again = await bankTransfer();
      const form = confirmationForm((await client.post(`/dashboard/payments/${again}/complete`, { csrf, outcome: 'paid' })).body);
      const answers = await Promise.all([client.post(form.url, form.fields), client.post(form.url, form.fields)]);
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [303, 409]);

      for (const completed of [reference, again]) {
        assert.equal((await read(completed)).status, 'success');
        const changes = (await eventsOf(kassa.store.read, completed)).filter((e) => e.cause === 'test_helper');
        assert.equal(changes.length, 1, 'one state change');
        assert.deepEqual(
          (await deliveriesFor(kassa.store, completed)).map((d) => d.event),
          ['success'],
          'one webhook',
        );
        assert.deepEqual((await completeEntries(completed)).map(([, detail]) => 'refused' in detail).sort(), [false, true], 'both audited, the second as refused');
      }
    });
  });
}
