/**
 * The methods paid elsewhere end to end in headless Chromium, on SQLite and PostgreSQL, as a
 * customer clicks through them (docs/payment-methods.md): from a landing page, with its marks,
 * to the method's test step and back to the shop, paid, failed and cancelled, then refunded; the
 * languages rotate over the methods (every page of every language is also checked on its own,
 * languages-browser.test.ts). axe on each step; no CSP violation.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { backends } from '../support/app.ts';
import { pageLanguages, translator } from '../../src/pages/i18n.ts';
import { assertAccessible, chromiumMissing, SCREENSHOTS, screenshot, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';

const SHOTS = 'methods';
fs.mkdirSync(path.join(SCREENSHOTS, SHOTS), { recursive: true });

const lines = [
  { type: 'PHYSICAL', name: 'Teapot', quantity: 1, unitPrice: 30, totalPrice: 30, vatRate: 21 },
  { type: 'DISCOUNT', name: 'Welcome discount', quantity: 1, unitPrice: -5, totalPrice: -5, vatRate: 21 },
];
const methodsPaidElsewhere = ['ideal', 'paypal', 'klarna', 'banktransfer'] as const;

for (const backend of backends) {
  describe(`methods paid elsewhere in Chromium (${backend})`, { skip: needs(chromiumMissing) }, () => {
    const h = suiteHarness(backend);

    methodsPaidElsewhere.forEach((method, index) => {
      const language = pageLanguages[index % pageLanguages.length]!;
      const t = translator(language);

      test(`${method} (${language}): paid, then refunded; failed; cancelled`, async () => {
        const { context, page, cspViolations } = await h.context();
        const extra = method === 'klarna' ? { orderLines: lines } : {};
        for (const [outcome, status, failureCode] of [
          ['paid', 'success', undefined],
          ['failed', 'failed', 'rejected'],
          ['cancelled', 'failed', 'cancelled'],
        ] as const) {
          const payment = await h.createPayment({ amount: '25.00', language, method, ...extra });
          await page.goto(payment.payUrl);
          await page.getByRole('heading', { name: t(`method_${method}`) }).waitFor();
          if (outcome === 'paid') {
            if (method === 'ideal') await page.getByLabel(t('sim_chooseBank')).selectOption('ASNBNL21');
            await assertAccessible(page, `${method} step (${language})`);
            await screenshot(page, path.join(SHOTS, `${method}-${language}-${backend}`));
          }
          await page.getByRole('button', { name: t(`sim_outcome_${outcome}`) }).click();
          await page.waitForURL(h.returnUrl);
          const read = await h.transaction(payment.reference);
          assert.equal(read.status, status, `${method} ${outcome}`);
          assert.equal(read.failureCode, failureCode);
          if (outcome !== 'paid') continue;
          if (method === 'ideal') assert.equal(read.details.consumerBic, 'ASNBNL21');
          if (method === 'klarna') {
            const captured = await h.api.post('/capture', { reference: payment.reference, orderLines: lines });
            assert.equal(captured.statusCode, 200, captured.body);
          }
          // A captured authorisation's refund may name the authorisation: it is booked on its capture.
          const refunded = await h.api.post('/refund', { reference: payment.reference });
          assert.equal(refunded.statusCode, 200, refunded.body);
          assert.equal(refunded.json().status, 'success');
        }
        assert.deepEqual(cspViolations, []);
        await context.close();
      });
    });

    test('a landing page shows each method with its mark, and sends the customer to the one chosen', async () => {
      const { context, page, cspViolations } = await h.context({ locale: 'nl-NL' });
      const payment = await h.createPayment({ amount: '25.00', language: 'nld', method: 'landingpage' });
      await page.goto(payment.payUrl);
      const t = translator('nld');
      await page.getByRole('heading', { name: t('chooseMethod') }).waitFor();
      assert.equal(await page.locator('.methods button svg.mark').count(), await page.locator('.methods button').count(), 'every method has its mark');
      await assertAccessible(page, 'landing page with marks');
      await screenshot(page, path.join(SHOTS, `landing-${backend}`));
      await page.getByRole('button', { name: t('method_banktransfer') }).click();
      await page.getByText('NL44RABO0123456789').waitFor();
      await page.getByRole('button', { name: t('sim_outcome_open') }).click();
      await page.waitForURL(h.returnUrl);
      assert.equal((await h.transaction(payment.reference)).status, 'pending');
      assert.deepEqual(cspViolations, []);
      await context.close();
    });
  });
}
