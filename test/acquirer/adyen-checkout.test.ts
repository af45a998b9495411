/**
 * The methods paid elsewhere through Adyen's Checkout API (docs/acquirers.md "Methods paid
 * elsewhere through Adyen"), live mode, on SQLite and PostgreSQL, against the stand-in that
 * validates every request against Adyen's own `CheckoutService-v71.json`: payUrl sends the
 * customer to the method's page (`/payments`' redirect action), they come back to Kassa with a
 * `redirectResult`, `/payments/details` gives the outcome, the AUTHORISATION notification is the
 * final word, and captures and refunds go through `/payments/{pspReference}/…`. A redirect action
 * that is a POST is followed by the page's own auto-submitting form, under its CSP.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { api, backends, suiteApp, type MerchantApi } from '../support/app.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import type { CheckoutChoice } from './adyen-checkout-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { signedNotification } from './signed-notification.ts';
import { hiddenValue } from '../pages/flow.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { findPaymentPage } from '../../src/store/payment-pages.ts';
import { deliveriesFor, waitFor } from '../events/support.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { expireDuePayments } from '../../src/payments/jobs/expiry.ts';

const skip = needs(adyenContractMissing);
const HMAC_KEY = randomBytes(32).toString('hex');
const RETURN_URL = 'https://shop.example/return?order=7';

const klarnaLines = [
  { type: 'PHYSICAL', name: 'Teapot', code: 'TP-1', quantity: 2, unitPrice: 15, totalPrice: 30, vatRate: 21 },
  { type: 'SHIPPING_FEE', name: 'Shipping', quantity: 1, unitPrice: 4.95, totalPrice: 4.95, vatRate: 21 },
  // PrestaShop sends a voucher positive: taken off all the same (docs/payment-methods.md).
  { type: 'DISCOUNT', name: 'Welcome discount', quantity: 1, unitPrice: 5, totalPrice: 5, vatRate: 21 },
];
const billing = {
  billingFirstName: 'Anna',
  billingLastName: 'de Vries',
  billingEmail: 'anna@example.nl',
  billingAddress: 'Keizersgracht',
  billingHouseNumber: '1',
  billingPostalCode: '1015 CJ',
  billingCity: 'Amsterdam',
  billingCountry: 'NL',
};

for (const backend of backends) {
  describe(`methods paid elsewhere through Adyen's Checkout API (${backend})`, { skip }, () => {
    const t = suiteApp(backend, { ACQUIRER_TIMEOUT: 'PT2S' });
    let adyen: FakeAdyen;
    let live: MerchantApi;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'live', hmacKey: HMAC_KEY, checkout: true });
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
      live = api(t.app, t.merchant.liveApiKey);
    });
    after(async () => {
      assert.deepEqual(adyen?.violations ?? [], [], "no request breaks Adyen's contract");
      await adyen?.close();
    });

    async function create(method: string, overrides: Record<string, unknown> = {}) {
      const response = await live.post('/payment', { amount: '29.95', currency: 'EUR', method, returnUrl: RETURN_URL, ...overrides });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { reference: string; payUrl: string; status: string };
    }
    const read = async (reference: string) => (await live.get(`/transaction?reference=${reference}`)).json();
    const sent = (path: string, reference: string) => adyen.requests.filter((r) => r.path === path && r.body.reference === reference);

    /** Opens payUrl: Kassa asks Adyen, and sends the customer to the method's page. */
    async function openStep(payUrl: string) {
      const path = new URL(payUrl).pathname;
      const opened = await t.app.inject({ method: 'GET', url: path });
      assert.equal(opened.statusCode, 303, opened.body);
      const step = new URL(opened.headers.location as string);
      assert.match(step.pathname, /^\/hpp\/[0-9a-f]+$/, 'to the method page Adyen named');
      return { path, step };
    }

    /** Picks the outcome on the method's page, which sends the customer back: the address they come back to. */
    async function pick(step: URL, choice: CheckoutChoice) {
      const page = await fetch(step);
      assert.equal(page.status, 200);
      const picked = await fetch(step, { method: 'POST', body: new URLSearchParams({ choice }), redirect: 'manual' });
      assert.equal(picked.status, 303);
      const back = new URL(picked.headers.get('location')!);
      assert.match(back.search, /^\?redirectResult=/);
      return back;
    }

    /** Picks the outcome on the method's page; the page sends the customer back to Kassa, which sends them on. */
    async function pickAndReturn(step: URL, choice: CheckoutChoice) {
      const back = await pick(step, choice);
      return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    }
    const causes = async (reference: string) => (await eventsOf(t.store.read, reference)).map((e) => e.cause);

    async function notify(item: Record<string, unknown>) {
      const full = {
        pspReference: `PSP${randomBytes(6).toString('hex').toUpperCase()}`,
        merchantAccountCode: 'ShopNL',
        amount: { value: 2995, currency: 'EUR' },
        eventCode: 'AUTHORISATION',
        success: 'true',
        ...item,
      };
      const notificationItems = [signedNotification(full, HMAC_KEY)];
      const answer = await t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload: { live: 'true', notificationItems } });
      assert.equal(answer.body, '[accepted]');
    }

    test('iDEAL paid: /payments names the method and the way back, /payments/details the outcome; the notification changes nothing after; refunded through Checkout', async () => {
      const payment = await create('ideal', { ...billing, merchantOrderReference: 'order-7', language: 'nld' });
      const { path, step } = await openStep(payment.payUrl);
      const [request] = sent('/checkout/payments', payment.reference);
      assert.deepEqual(request!.body.paymentMethod, { type: 'ideal' });
      assert.deepEqual(request!.body.amount, { value: 2995, currency: 'EUR' });
      assert.equal(request!.body.returnUrl, `${new URL(payment.payUrl).origin}${path}/return`);
      assert.equal(request!.body.captureDelayHours, 0, 'a sale is captured at once');
      assert.equal(request!.body.merchantOrderReference, 'order-7');
      assert.equal(request!.body.shopperEmail, 'anna@example.nl');
      assert.equal(request!.body.countryCode, 'NL');
      assert.equal(request!.idempotencyKey, `${payment.reference}:redirect`);

      const back = await pickAndReturn(step, 'Authorised');
      assert.equal(back.statusCode, 303, back.body);
      assert.equal(back.headers.location, RETURN_URL);
      const details = adyen.requests.filter((r) => r.path === '/checkout/payments/details');
      assert.ok(details.some((r) => r.idempotencyKey === `${payment.reference}:details`));
      const paid = await read(payment.reference);
      assert.equal(paid.status, 'success');
      const session = [...adyen.checkout.sessions.values()].find((s) => s.reference === payment.reference)!;

      await notify({ merchantReference: payment.reference, pspReference: session.pspReference });
      assert.equal((await read(payment.reference)).status, 'success', 'the final word agrees: nothing changes');
      assert.deepEqual(
        (await eventsOf(t.store.read, payment.reference)).map((e) => `${e.from_status}>${e.to_status}`),
        ['null>pending', 'pending>success'],
      );

      // The return opened again: the payment is decided, Adyen is not asked again.
      const detailsBefore = adyen.requests.filter((r) => r.path === '/checkout/payments/details').length;
      const again = await t.app.inject({ method: 'GET', url: `${path}/return?redirectResult=${session.id}.x` });
      assert.equal(again.statusCode, 303);
      assert.equal(adyen.requests.filter((r) => r.path === '/checkout/payments/details').length, detailsBefore);

      const refund = await live.post('/refund', { reference: payment.reference, amount: '10.00' });
      assert.equal(refund.statusCode, 200, refund.body);
      const refunded = adyen.requests.find((r) => r.path === `/checkout/payments/${session.pspReference}/refunds`)!;
      assert.deepEqual(refunded.body, { merchantAccount: 'ShopNL', reference: refund.json().reference, amount: { value: 1000, currency: 'EUR' } });
    });

    test('a redirect action that is a POST: the page posts its data to the method by itself, form-action allowing that origin only; paid on return', async () => {
      adyen.checkout.redirectBy = 'POST';
      try {
        const payment = await create('ideal');
        const opened = await t.app.inject({ method: 'GET', url: new URL(payment.payUrl).pathname });
        assert.equal(opened.statusCode, 200, opened.body);
        const action = /<form method="post" action="([^"]+)" data-autosubmit>/.exec(opened.body)?.[1] ?? '';
        assert.match(action, /\/hpp\/[0-9a-f]+\/enter$/, "to the action's address");
        assert.match(opened.body, /<script nonce="[^"]+"/, 'the form submits itself');
        const csp = String(opened.headers['content-security-policy']);
        assert.match(csp, new RegExp(`form-action 'self' ${new URL(action).origin}(;| )`), csp);
        assert.equal((await read(payment.reference)).status, 'pending', 'nothing refused');
        const entered = await fetch(action, {
          method: 'POST',
          body: new URLSearchParams({ sessionToken: hiddenValue(opened.body, 'sessionToken'), entry: hiddenValue(opened.body, 'entry') }),
        });
        assert.equal(entered.status, 200, "the action's data, as the form posts it");
        const back = await pickAndReturn(new URL(action.replace(/\/enter$/, '')), 'Authorised');
        assert.equal(back.statusCode, 303, back.body);
        assert.equal((await read(payment.reference)).status, 'success');
      } finally {
        adyen.checkout.redirectBy = undefined;
      }
    });

    const klarnaOf = (amount: number) => ({
      transactionType: 'authorise',
      ...billing,
      orderLines: [{ type: 'PHYSICAL', name: 'Teapot', quantity: 1, unitPrice: amount, totalPrice: amount, vatRate: 21 }],
    });
    for (const method of ['ideal', 'paypal', 'klarna'] as const) {
      test(`${method}: another payment's redirectResult in the return changes nothing; the payment's own decides it`, async () => {
        const extra = (amount: number) => (method === 'klarna' ? klarnaOf(amount) : {});
        const small = await create(method, { amount: '0.50', ...extra(0.5) });
        const big = await create(method, { amount: '500.00', ...extra(500) });
        const smallBack = await pick((await openStep(small.payUrl)).step, 'Authorised');
        const { path: bigPath } = await openStep(big.payUrl);
        // The shopper paid 0.50 and opens the 500.00 payment's return with the 0.50 one's redirectResult.
        const tampered = await t.app.inject({ method: 'GET', url: `${bigPath}/return${smallBack.search}` });
        assert.ok(tampered.statusCode < 500, tampered.body);
        const stillPending = await read(big.reference);
        assert.equal(stillPending.status, 'pending', "another payment's outcome is not this payment's");
        assert.deepEqual((await causes(big.reference)).slice(-1), ['acquirer_word_mismatch']);
        const capture = await live.post('/capture', { reference: big.reference });
        assert.equal(capture.statusCode, 422, 'nothing to capture');
        assert.equal(adyen.requests.filter((r) => r.path.endsWith('/captures') && r.body.reference === big.reference).length, 0);
        // The 0.50 payment's own return still settles it.
        const own = await t.app.inject({ method: 'GET', url: `${smallBack.pathname}${smallBack.search}` });
        assert.equal(own.statusCode, 303, own.body);
        assert.equal((await read(small.reference)).status, 'success');
      });
    }

    test('a redirectResult Adyen does not know leaves the payment pending, and the AUTHORISATION still settles it', async () => {
      const payment = await create('ideal');
      const { path } = await openStep(payment.payUrl);
      const garbage = await t.app.inject({ method: 'GET', url: `${path}/return?redirectResult=garbage` });
      assert.ok(garbage.statusCode < 500, garbage.body);
      assert.equal((await read(payment.reference)).status, 'pending', 'a refused /payments/details decides nothing');
      await notify({ merchantReference: payment.reference });
      assert.equal((await read(payment.reference)).status, 'success');
    });

    test("a signed AUTHORISATION whose amount or currency is not the payment's changes nothing; the right one settles it", async () => {
      const payment = await create('ideal', { amount: '500.00' });
      await openStep(payment.payUrl);
      await notify({ merchantReference: payment.reference, amount: { value: 50, currency: 'EUR' } });
      await notify({ merchantReference: payment.reference, amount: { value: 50000, currency: 'USD' } });
      assert.equal((await read(payment.reference)).status, 'pending');
      assert.deepEqual((await causes(payment.reference)).slice(-2), ['acquirer_word_mismatch', 'acquirer_word_mismatch']);
      await notify({ merchantReference: payment.reference, amount: { value: 50000, currency: 'EUR' } });
      assert.equal((await read(payment.reference)).status, 'success');
    });

    test('a signed AUTHORISATION naming another pspReference than the one Adyen gave at /payments changes nothing', async () => {
      const payment = await create('banktransfer');
      await t.app.inject({ method: 'GET', url: new URL(payment.payUrl).pathname });
      await notify({ merchantReference: payment.reference, pspReference: 'OTHERPSP00000001' });
      assert.equal((await read(payment.reference)).status, 'pending');
      assert.deepEqual((await causes(payment.reference)).slice(-1), ['acquirer_word_mismatch']);
    });

    test('iDEAL paid after Kassa expired the payment: the money is given back at once (Checkout reversals), the merchant told at each step', async () => {
      const payment = await create('ideal');
      await openStep(payment.payUrl);
      await expireDuePayments(t.app.ports, Date.now() + 3600_000);
      assert.equal((await read(payment.reference)).status, 'failed');
      const psp = `PSP${randomBytes(6).toString('hex').toUpperCase()}`;
      await notify({ merchantReference: payment.reference, pspReference: psp });
      const returning = await read(payment.reference);
      assert.equal(returning.status, 'failed', 'a final state never changes');
      assert.ok(['returning', 'returned'].includes(returning.details.latePayment.status));
      assert.equal(returning.details.latePayment.amount, 29.95);
      const reversal = await waitFor('the cancel-or-refund', () => adyen.requests.find((r) => r.path === `/checkout/payments/${psp}/reversals`));
      assert.deepEqual(reversal.body, { merchantAccount: 'ShopNL', reference: payment.reference });
      // Adyen's word on it: refunded (the sale was captured at once).
      await notify({
        merchantReference: payment.reference,
        originalReference: psp,
        eventCode: 'CANCEL_OR_REFUND',
      });
      const returned = await read(payment.reference);
      assert.equal(returned.details.latePayment.status, 'returned');
      assert.deepEqual((await causes(payment.reference)).slice(-2), ['acquirer_paid_late', 'late_payment_returned']);
      const webhooks = (await deliveriesFor(t.store, payment.reference)).map((d) => d.event);
      assert.deepEqual(webhooks, ['failed/expired', 'failed/expired', 'failed/expired'], 'expired, then paid late, then given back');
      // The same AUTHORISATION again (Adyen resends), or a second one: nothing more is asked.
      await notify({ merchantReference: payment.reference, pspReference: psp });
      await notify({ merchantReference: payment.reference });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(adyen.requests.filter((r) => r.path.endsWith('/reversals') && r.body.reference === payment.reference).length, 1);
    });

    test('Klarna: the invoice as lineItems adding up to the amount, the shopper with it; authorised, then captured through Checkout', async () => {
      const payment = await create('klarna', { transactionType: 'authorise', orderLines: klarnaLines, ...billing });
      const { step } = await openStep(payment.payUrl);
      const [request] = sent('/checkout/payments', payment.reference);
      assert.deepEqual(request!.body.paymentMethod, { type: 'klarna' });
      assert.deepEqual(request!.body.additionalData, { manualCapture: 'true' });
      assert.deepEqual(request!.body.lineItems, [
        { id: 'TP-1', description: 'Teapot', quantity: 2, amountIncludingTax: 1500, taxPercentage: 2100 },
        { description: 'Shipping', quantity: 1, amountIncludingTax: 495, taxPercentage: 2100 },
        { description: 'Welcome discount', quantity: 1, amountIncludingTax: -500, taxPercentage: 2100 },
      ]);
      assert.deepEqual(request!.body.shopperName, { firstName: 'Anna', lastName: 'de Vries' });
      assert.equal((request!.body.billingAddress as Record<string, string>).city, 'Amsterdam');

      const back = await pickAndReturn(step, 'Authorised');
      assert.equal(back.statusCode, 303, back.body);
      const authorised = await read(payment.reference);
      assert.equal(authorised.status, 'success');
      const capture = await live.post('/capture', { reference: payment.reference, amount: '29.95' });
      assert.equal(capture.statusCode, 200, capture.body);
      const session = [...adyen.checkout.sessions.values()].find((s) => s.reference === payment.reference)!;
      const captured = adyen.requests.find((r) => r.path === `/checkout/payments/${session.pspReference}/captures`)!;
      assert.deepEqual(captured.body.amount, { value: 2995, currency: 'EUR' });
    });

    for (const [choice, failureCode] of [
      ['Refused', 'rejected'],
      ['Cancelled', 'cancelled'],
    ] as const) {
      test(`PayPal ${choice} at the method: failed/${failureCode}, the customer back at returnUrl`, async () => {
        const payment = await create('paypal');
        const { step } = await openStep(payment.payUrl);
        assert.deepEqual(sent('/checkout/payments', payment.reference)[0]!.body.paymentMethod, { type: 'paypal', subtype: 'redirect' });
        const back = await pickAndReturn(step, choice);
        assert.equal(back.headers.location, RETURN_URL);
        const done = await read(payment.reference);
        assert.deepEqual([done.status, done.failureCode], ['failed', failureCode]);
      });
    }

    test("Pending on return: the payment waits, the customer goes back to the shop, and Adyen's AUTHORISATION decides", async () => {
      const payment = await create('ideal');
      const { step } = await openStep(payment.payUrl);
      const back = await pickAndReturn(step, 'Pending');
      assert.equal(back.headers.location, RETURN_URL);
      assert.equal((await read(payment.reference)).status, 'pending');
      const session = [...adyen.checkout.sessions.values()].find((s) => s.reference === payment.reference)!;
      await notify({ merchantReference: payment.reference, pspReference: session.pspReference });
      assert.equal((await read(payment.reference)).status, 'success');
      const refund = await live.post('/refund', { reference: payment.reference });
      assert.equal(refund.statusCode, 200, refund.body);
      assert.ok(
        adyen.requests.some((r) => r.path === `/checkout/payments/${session.pspReference}/refunds`),
        "refunded by the notification's pspReference",
      );
    });

    test('a customer who never comes back: OFFER_CLOSED fails the payment; a refused AUTHORISATION fails another', async () => {
      const closed = await create('ideal');
      await openStep(closed.payUrl);
      await notify({ merchantReference: closed.reference, eventCode: 'OFFER_CLOSED', success: 'true' });
      assert.equal((await read(closed.reference)).status, 'failed');
      const refused = await create('paypal');
      await openStep(refused.payUrl);
      await notify({ merchantReference: refused.reference, success: 'false', reason: 'Refused' });
      const done = await read(refused.reference);
      assert.equal(done.status, 'failed');
    });

    test("bank transfer: Adyen's account and reference shown to the customer and kept in details; paid when the money arrives", async () => {
      const payment = await create('banktransfer', { language: 'eng' });
      const page = await t.app.inject({ method: 'GET', url: new URL(payment.payUrl).pathname });
      assert.equal(page.statusCode, 200, page.body);
      assert.match(page.body, /NL13TEST0123456789/);
      assert.match(page.body, /Adyen N\.V\./);
      assert.deepEqual(sent('/checkout/payments', payment.reference)[0]!.body.paymentMethod, { type: 'bankTransfer_IBAN' });
      const pending = await read(payment.reference);
      assert.equal(pending.status, 'pending');
      assert.equal(pending.details.bankTransfer.iban, 'NL13TEST0123456789');
      // Opened again: the same request, the same answer.
      const again = await t.app.inject({ method: 'GET', url: new URL(payment.payUrl).pathname });
      assert.match(again.body, /NL13TEST0123456789/);
      // Adyen's AUTHORISATION names the payment by the pspReference its /payments answer gave.
      const { acquirer_reference } = (await findPaymentPage(t.store.read, payment.reference))!;
      await notify({ merchantReference: payment.reference, pspReference: acquirer_reference });
      assert.equal((await read(payment.reference)).status, 'success');
    });
  });
}
