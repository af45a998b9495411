/**
 * Every method paid elsewhere, live through Adyen's Checkout API, in headless Chromium on SQLite
 * and PostgreSQL (docs/acquirers.md "Methods paid elsewhere through Adyen"): the customer opens
 * payUrl, is sent to the method's page the stand-in serves for Adyen (its every request validated
 * against `CheckoutService-v71.json`), picks the outcome there, and comes back through Kassa
 * (`/payments/details`) to the shop, also when Adyen's redirect is a POST (Kassa's page posts its
 * data by itself); a bank transfer shows Adyen's account and reference on Kassa's page. axe on
 * Kassa's pages; no CSP violation.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, type MerchantApi } from '../support/app.ts';
import { assertAccessible, chromiumMissing, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from '../acquirer/adyen-fake.ts';
import { adyenContractMissing } from '../acquirer/adyen-contract.ts';
import type { CheckoutChoice } from '../acquirer/adyen-checkout-fake.ts';

const skip = needs(chromiumMissing ?? adyenContractMissing);
const lines = [
  { type: 'PHYSICAL', name: 'Teapot', quantity: 1, unitPrice: 30, totalPrice: 30, vatRate: 21 },
  { type: 'DISCOUNT', name: 'Welcome discount', quantity: 1, unitPrice: -5, totalPrice: -5, vatRate: 21 },
];

for (const backend of backends) {
  describe(`methods paid elsewhere live through Adyen in Chromium (${backend})`, { skip }, () => {
    const h = suiteHarness(backend);
    let adyen: FakeAdyen;
    let live: MerchantApi;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(h.kassa.store, adyen, { merchantId: h.kassa.merchant.merchantId, mode: 'live', hmacKey: 'ab'.repeat(32), checkout: true });
      live = api(h.kassa.app, h.kassa.merchant.liveApiKey);
    });
    after(async () => {
      assert.deepEqual(adyen?.violations ?? [], [], "no request breaks Adyen's contract");
      await adyen?.close();
    });

    async function create(method: string, overrides: Record<string, unknown> = {}) {
      const created = await live.post('/payment', { amount: '25.00', currency: 'EUR', method, returnUrl: h.returnUrl, ...overrides });
      assert.equal(created.statusCode, 200, created.body);
      return created.json() as { reference: string; payUrl: string };
    }
    const read = async (reference: string) => (await live.get(`/transaction?reference=${reference}`)).json();

    for (const [method, choice, status] of [
      ['ideal', 'Authorised', 'success'],
      ['paypal', 'Authorised', 'success'],
      ['klarna', 'Authorised', 'success'],
      ['ideal', 'Refused', 'failed'],
      ['paypal', 'Cancelled', 'failed'],
    ] as [string, CheckoutChoice, string][]) {
      test(`${method}: out to the method's page, ${choice} there, back through Kassa to the shop`, async () => {
        const payment = await create(method, method === 'klarna' ? { transactionType: 'authorise', orderLines: lines } : {});
        const { context, page, cspViolations } = await h.context({ reach: [adyen.url] });
        try {
          await page.goto(payment.payUrl);
          await page.getByRole('heading', { name: new RegExp(`^Fake ${method}`) }).waitFor();
          await page.getByRole('button', { name: choice }).click();
          await page.waitForURL(h.returnUrl);
          assert.equal((await read(payment.reference)).status, status);
          assert.deepEqual(cspViolations, []);
        } finally {
          await context.close();
        }
      });
    }

    test("a redirect that is a POST: Kassa's page posts the action's data to the method's page by itself, under its CSP", async () => {
      adyen.checkout.redirectBy = 'POST';
      const payment = await create('ideal');
      const { context, page, cspViolations } = await h.context({ reach: [adyen.url] });
      try {
        await page.goto(payment.payUrl);
        await page.getByRole('heading', { name: /^Fake ideal/ }).waitFor();
        assert.match(page.url(), /\/hpp\/[0-9a-f]+\/enter$/, 'entered by the POST, with its data');
        await page.getByRole('button', { name: 'Authorised' }).click();
        await page.waitForURL(h.returnUrl);
        assert.equal((await read(payment.reference)).status, 'success');
        assert.deepEqual(cspViolations, []);
      } finally {
        adyen.checkout.redirectBy = undefined;
        await context.close();
      }
    });

    test("bank transfer: Adyen's account and the reference to quote on Kassa's page", async () => {
      const payment = await create('banktransfer', { language: 'nld' });
      const { context, page, cspViolations } = await h.context({ reach: [adyen.url] });
      try {
        await page.goto(payment.payUrl);
        await page.getByText('NL13TEST0123456789').waitFor();
        await page.getByText('Adyen N.V.').waitFor();
        await assertAccessible(page, 'bank transfer instructions, live');
        assert.equal((await read(payment.reference)).status, 'pending');
        assert.deepEqual(cspViolations, []);
      } finally {
        await context.close();
      }
    });
  });
}
