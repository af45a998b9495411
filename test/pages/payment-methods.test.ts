/**
 * The methods paid on a page elsewhere (iDEAL, PayPal, Klarna, bank transfer) over HTTP, on
 * SQLite and PostgreSQL, in test mode: payUrl sends the customer to the method's simulated
 * step, the outcome picked there is the payment's one state change, the customer comes back
 * through Kassa to the merchant's returnUrl, and what the request must carry is checked.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, suiteApp } from '../support/app.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { MAX_QUANTITY } from '../../src/payments/requests/order-lines.ts';
import { setAcquirerConnection } from '../../src/acquirer/connections.ts';
import { csrfOf, postForm } from './flow.ts';

const RETURN_URL = 'https://shop.example/return?order=7';

const klarnaLines = [
  { type: 'PHYSICAL', name: 'Teapot', quantity: 1, unitPrice: 30, totalPrice: 30, vatRate: 21 },
  { type: 'SHIPPING_FEE', name: 'Shipping', quantity: 1, unitPrice: 4.95, totalPrice: 4.95, vatRate: 21 },
  { type: 'DISCOUNT', name: 'Welcome discount', quantity: 1, unitPrice: -5, totalPrice: -5, vatRate: 21 },
];

for (const backend of backends) {
  describe(`methods paid elsewhere (${backend})`, () => {
    const t = suiteApp(backend);

    async function create(method: string, overrides: Record<string, unknown> = {}) {
      const response = await t.client.post('/payment', { amount: '29.95', currency: 'EUR', method, returnUrl: RETURN_URL, ...overrides });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { reference: string; payUrl: string; cancelUrl?: string; status: string; type: string };
    }
    const read = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();

    /** Opens payUrl as a browser does: sent on to the simulated step, whose page is returned. */
    async function openStep(payUrl: string) {
      const path = new URL(payUrl).pathname;
      const sent = await t.app.inject({ method: 'GET', url: path });
      assert.equal(sent.statusCode, 303, sent.body);
      const step = new URL(sent.headers.location as string);
      assert.equal(step.pathname, `${path}/simulator`);
      const page = await t.app.inject({ method: 'GET', url: step.pathname });
      assert.equal(page.statusCode, 200, page.body);
      return { path, page: page.body };
    }

    async function pick(path: string, page: string, fields: Record<string, string>) {
      const back = await postForm(t.app, `${path}/simulator`, { csrf: csrfOf(page), ...fields });
      assert.equal(back.statusCode, 303, back.body);
      assert.equal(back.headers.location, `${path}/return`);
      const toShop = await t.app.inject({ method: 'GET', url: `${path}/return` });
      assert.equal(toShop.statusCode, 303, toShop.body);
      assert.equal(toShop.headers.location, RETURN_URL);
    }

    test('iDEAL paid: one state change, the payer shown in details, the customer back at returnUrl', async () => {
      const payment = await create('ideal', { issuer: 'rabonl2u' });
      assert.equal(payment.status, 'pending');
      assert.ok(payment.cancelUrl);
      const { path, page } = await openStep(payment.payUrl);
      assert.match(page, /<select id="bank" name="bank">/);
      assert.match(page, /Rabobank/);
      await pick(path, page, { outcome: 'paid', bank: 'RABONL2U' });
      const paid = await read(payment.reference);
      assert.equal(paid.status, 'success');
      assert.equal(paid.method, 'ideal');
      assert.deepEqual(paid.details, { consumerName: 'T. Tester', consumerIban: 'NL91 **** **** **** 4300', consumerBic: 'RABONL2U' });
      const events = await eventsOf(t.store.read, payment.reference);
      assert.deepEqual(
        events.map((e) => `${e.from_status}>${e.to_status}`),
        ['null>pending', 'pending>success'],
      );
      // A final payment's step is not offered again.
      const again = await t.app.inject({ method: 'GET', url: path });
      assert.equal(again.statusCode, 200);
      const refund = await t.client.post('/refund', { reference: payment.reference, amount: '10.00' });
      assert.equal(refund.statusCode, 200, refund.body);
    });

    for (const [outcome, failureCode] of [
      ['failed', 'rejected'],
      ['cancelled', 'cancelled'],
      ['expired', 'expired'],
    ] as const) {
      test(`PayPal ${outcome}: failed/${failureCode}`, async () => {
        const payment = await create('paypal');
        const { path, page } = await openStep(payment.payUrl);
        assert.match(page, /type="email"/);
        await pick(path, page, { outcome });
        const done = await read(payment.reference);
        assert.equal(done.status, 'failed');
        assert.equal(done.failureCode, failureCode);
      });
    }

    test('bank transfer: the instructions shown, pending while open, paid later with the test helper', async () => {
      const payment = await create('banktransfer');
      const { path, page } = await openStep(payment.payUrl);
      assert.match(page, /NL44RABO0123456789/);
      assert.match(page, new RegExp(payment.reference));
      assert.match(page, /Test Shop/);
      await pick(path, page, { outcome: 'open' });
      assert.equal((await read(payment.reference)).status, 'pending');
      // The customer comes back later: the same instructions again.
      await openStep(payment.payUrl);
      const completed = await t.client.post('/test/complete', { reference: payment.reference, outcome: 'success' });
      assert.equal(completed.statusCode, 200, completed.body);
      assert.equal((await read(payment.reference)).status, 'success');
    });

    test('Klarna: authorise only, with order lines that add up; the invoice shown; captured with its lines', async () => {
      const payment = await create('klarna', { orderLines: klarnaLines });
      assert.equal(payment.type, 'authorise');
      const { path, page } = await openStep(payment.payUrl);
      assert.match(page, /Teapot/);
      await pick(path, page, { outcome: 'paid' });
      const held = await read(payment.reference);
      assert.equal(held.status, 'success');
      assert.equal(held.details.captureStatus, 'authorised');
      const notAddingUp = await t.client.post('/capture', { reference: payment.reference, amount: '20.00', orderLines: klarnaLines });
      assert.equal(notAddingUp.json().errors[0].code, 'total_mismatch');
      const capture = await t.client.post('/capture', { reference: payment.reference, orderLines: klarnaLines });
      assert.equal(capture.statusCode, 200, capture.body);
    });

    test('a landing page offers the enabled methods that can make its payment, and sends the customer to the one chosen', async () => {
      const payment = await create('landingpage');
      const path = new URL(payment.payUrl).pathname;
      const page = await t.app.inject({ method: 'GET', url: path });
      assert.equal(page.statusCode, 200);
      const offered = [...page.body.matchAll(/name="method" value="([a-z]+)"/g)].map((m) => m[1]);
      // Klarna only authorises, with order lines: a landing page's sale is not one it makes.
      assert.deepEqual(offered, ['card', 'walletpay', 'ideal', 'paypal', 'banktransfer']);
      assert.equal((await read(payment.reference)).details.paidWith, undefined, 'no method before the customer chooses');
      const chosen = await postForm(t.app, `${path}/method`, { csrf: csrfOf(page.body), method: 'ideal' });
      assert.equal(chosen.statusCode, 303);
      assert.equal((await read(payment.reference)).details.paidWith, 'ideal', 'the merchant sees the method chosen while the payment is pending');
      const { page: bank } = await openStep(payment.payUrl);
      await pick(path, bank, { outcome: 'paid' });
      const paid = await read(payment.reference);
      assert.equal(paid.status, 'success');
      assert.equal(paid.method, 'landingpage');
      assert.equal(paid.details.paidWith, 'ideal', 'and which method paid it');
      assert.equal(paid.details.consumerBic, 'INGBNL2A');
      const late = await postForm(t.app, `${path}/method`, { csrf: csrfOf(page.body), method: 'card' });
      assert.equal(late.statusCode, 303);
      assert.equal((await read(payment.reference)).details.paidWith, 'ideal', 'a choice on a paid payment changes nothing');
      // Dollars: iDEAL and bank transfer take euros only.
      const dollars = await create('landingpage', { currency: 'USD' });
      const usd = await t.app.inject({ method: 'GET', url: new URL(dollars.payUrl).pathname });
      assert.deepEqual(
        [...usd.body.matchAll(/name="method" value="([a-z]+)"/g)].map((m) => m[1]),
        ['card', 'walletpay', 'paypal'],
      );
    });

    test('two outcomes at once: the first applies, the other changes nothing', async () => {
      const payment = await create('ideal');
      const { path, page } = await openStep(payment.payUrl);
      const csrf = csrfOf(page);
      await Promise.all([postForm(t.app, `${path}/simulator`, { csrf, outcome: 'paid' }), postForm(t.app, `${path}/simulator`, { csrf, outcome: 'cancelled' })]);
      const events = await eventsOf(t.store.read, payment.reference);
      assert.equal(events.length, 2, JSON.stringify(events));
      assert.ok(['success', 'failed'].includes((await read(payment.reference)).status));
    });

    test('a live acquirer that does not take a method: left out of GET /method, refused at creation naming /method', async () => {
      // Adyen's Classic API takes cards only; no call is made here, so the connection needs no server.
      await setAcquirerConnection(
        t.store,
        {
          merchantId: t.merchant.merchantId,
          mode: 'live',
          connector: 'adyen',
          endpoint: 'https://127.0.0.1:9/pal',
          account: 'ShopNL',
          secretsJson: JSON.stringify({ apiKey: 'k', hmacKey: '00'.repeat(32) }),
        },
        Date.now(),
      );
      const live = api(t.app, t.merchant.liveApiKey);
      assert.deepEqual(
        ((await live.get('/method')).json() as { method: string }[]).map((m) => m.method),
        ['card', 'landingpage', 'walletpay'],
      );
      const refused = await live.post('/payment', { amount: '10.00', currency: 'EUR', method: 'ideal', returnUrl: RETURN_URL });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(refused.json().errors, [{ field: '/method', code: 'not_served', message: "is not taken in EUR by this merchant's live acquirer (adyen)" }]);
    });

    test('what each method takes: currency, order lines and their quantities, issuer, transaction type; retired methods named', async () => {
      const refused = async (body: Record<string, unknown>) => {
        const response = await t.client.post('/payment', { amount: '29.95', currency: 'EUR', returnUrl: RETURN_URL, ...body });
        assert.equal(response.statusCode, 422, response.body);
        return (response.json() as { errors: { field: string; message: string }[] }).errors;
      };
      const names = (params: { field: string }[]) => params.map((p) => p.field);
      assert.deepEqual(names(await refused({ method: 'ideal', currency: 'USD' })), ['/currency']);
      assert.deepEqual(names(await refused({ method: 'klarna' })), ['/orderLines']);
      assert.deepEqual(names(await refused({ method: 'klarna', orderLines: klarnaLines.slice(0, 2) })), ['/orderLines']);
      assert.deepEqual(names(await refused({ method: 'klarna', orderLines: [{ name: '', quantity: 0, totalPrice: 'x' }] })), [
        '/orderLines/0/name',
        '/orderLines/0/quantity',
        '/orderLines/0/totalPrice',
      ]);
      assert.deepEqual(names(await refused({ method: 'klarna', orderLines: klarnaLines, transactionType: 'sale' })), ['/transactionType']);
      // A quantity is a plain positive decimal, as amounts are written; what Number() alone took is refused, naming the line's field.
      const withQuantity = (quantity: unknown) => [{ ...klarnaLines[0], quantity }, ...klarnaLines.slice(1)];
      for (const quantity of ['Infinity', '1e400', 1e308, '0x10', 1e-7, ' 1 ', '-1', 0, '0', '1.', '.5', '0.0001', MAX_QUANTITY + 1, true, null]) {
        assert.deepEqual(names(await refused({ method: 'klarna', orderLines: withQuantity(quantity) })), ['/orderLines/0/quantity'], JSON.stringify(quantity));
      }
      for (const quantity of [2, '2', 1.5, '0.5', '0.125', '1.500', MAX_QUANTITY, String(MAX_QUANTITY)]) {
        await create('klarna', { orderLines: withQuantity(quantity) });
      }
      assert.deepEqual(names(await refused({ method: 'paypal', issuer: 'INGBNL2A' })), ['/issuer']);
      assert.deepEqual(names(await refused({ method: 'ideal', issuer: 'not a bic' })), ['/issuer']);
      for (const method of ['sofort', 'giropay']) {
        const [param] = await refused({ method });
        assert.equal(param!.field, '/method');
        assert.match(param!.message, /no longer offered/);
      }
    });
  });
}
