/**
 * The customer's path in a real browser (headless Chromium): one test per row of the
 * test scenarios (docs/decisions.md#test-scenarios), typed and clicked as a customer would, plus cancel, language,
 * a bad card number, the landing page, paying without JavaScript and paying twice. Each
 * page is checked with axe-core and photographed under test-output/screenshots.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { scenarioTable } from '../../src/ground/test-scenarios.ts';
import { assertAccessible, chromiumMissing, payWithCard, screenshot, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';

const VISA = '4111 1111 1111 1111';
const MASTERCARD = '5555 5555 5555 4444';
const BANCONTACT = '6703 4444 4444 4449';

describe('hosted card page in Chromium', { skip: needs(chromiumMissing) }, () => {
  const h = suiteHarness();

  async function open(amount: string, overrides: Record<string, unknown> = {}, options: { javaScriptEnabled?: boolean; locale?: string } = {}) {
    const payment = await h.createPayment({ amount, ...overrides });
    const session = await h.context(options);
    await session.page.goto(payment.payUrl);
    return { ...session, payment };
  }

  async function answerChallenge(page: Page, code: string, labels = { code: 'One-time code', confirm: 'Confirm' }) {
    const frame = page.frameLocator('iframe[name=challenge-window]');
    await frame.getByLabel(labels.code).pressSequentially(code);
    await frame.getByRole('button', { name: labels.confirm, exact: true }).click();
  }

  async function authentication(reference: string) {
    return JSON.parse((await h.row(reference)).authentication ?? 'null');
  }

  /** How the customer goes through each row of the scenario table, and what the payment must end as. */
  const rows: Record<number, { card?: string; act?: (page: Page) => Promise<void>; status: string; failureCode?: string; transStatus?: string; eci?: string }> = {
    11: {
      act: async (page) => {
        await page.locator('iframe[name=challenge-window]').waitFor();
        await screenshot(page, 'challenge-eng');
        await assertAccessible(page, 'challenge pop-up');
        await answerChallenge(page, '1234');
      },
      status: 'success',
      transStatus: 'Y',
      eci: '05',
    },
    12: { status: 'failed', failureCode: 'rejected', transStatus: 'N' },
    13: {
      act: async (page) => {
        await page.getByLabel('One-time code').waitFor();
        await screenshot(page, 'threeds1-bank-eng');
        await assertAccessible(page, '3DS1 bank page');
        await page.getByLabel('One-time code').pressSequentially('1234');
        await page.getByRole('button', { name: 'Confirm', exact: true }).click();
      },
      status: 'success',
      transStatus: 'Y',
    },
    14: { card: MASTERCARD, status: 'success', transStatus: 'A', eci: '01' },
    21: { status: 'failed', failureCode: 'card_refused', transStatus: 'Y' },
    22: { status: 'failed', failureCode: 'insufficient_funds' },
    23: { status: 'failed', failureCode: 'fraud_detected' },
    31: { status: 'manualintervention' },
  };

  for (const row of scenarioTable.filter((r) => r.walletDelayMs === undefined)) {
    const cents = row.cents as number;
    test(`scenario .${cents}: ${row.outcome}`, async () => {
      const expected = rows[cents];
      assert.ok(expected, `the browser test knows how to play row .${cents}`);
      const { page, payment, context, cspViolations } = await open(`25.${cents}`);
      await payWithCard(page, { number: expected.card ?? VISA });
      await expected.act?.(page);
      await page.waitForURL(h.returnUrl);
      const transaction = await h.transaction(payment.reference);
      assert.equal(transaction.status, expected.status);
      assert.equal(transaction.failureCode, expected.failureCode);
      const auth = await authentication(payment.reference);
      if (expected.transStatus) assert.equal(auth.transStatus, expected.transStatus);
      if (expected.eci) assert.equal(auth.eci, expected.eci);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });
  }

  test('scenario .00 (default): frictionless 3DS2 → success, ECI and authentication value kept', async () => {
    const { page, payment, context, cspViolations } = await open('25.00', { description: 'Order 42' });
    await screenshot(page, 'card-eng');
    await assertAccessible(page, 'card page');
    await payWithCard(page);
    await page.waitForURL(h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.equal(transaction.status, 'success');
    assert.equal(transaction.brand, 'visa');
    const auth = await authentication(payment.reference);
    assert.equal(auth.transStatus, 'Y');
    assert.equal(auth.eci, '05');
    assert.match(auth.authenticationValue, /^[A-Za-z0-9+/]{27}=$/);
    assert.deepEqual(cspViolations, []);

    // The payUrl of a final payment shows the outcome and no way to pay again.
    await page.goto(payment.payUrl);
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.equal(await page.locator('form').count(), 0);
    await screenshot(page, 'outcome-success-eng');
    await assertAccessible(page, 'outcome page');
    await context.close();
  });

  test('a wrong one-time code fails the challenge → failed/rejected', async () => {
    const { page, payment, context } = await open('25.11');
    await payWithCard(page);
    await answerChallenge(page, '0000');
    await page.waitForURL(h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.equal(transaction.status, 'failed');
    assert.equal(transaction.failureCode, 'rejected');
    assert.equal((await authentication(payment.reference)).transStatus, 'N');
    await context.close();
  });

  test('cancel on the card page → failed/cancelled, back at returnUrl unchanged', async () => {
    const { page, payment, context } = await open('25.00');
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.waitForURL(h.returnUrl);
    assert.equal(page.url(), h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.equal(transaction.status, 'failed');
    assert.equal(transaction.failureCode, 'cancelled');
    await page.goto(payment.payUrl);
    await screenshot(page, 'outcome-cancelled-eng');
    await context.close();
  });

  test('language nld: every page in Dutch, challenge included', async () => {
    const { page, payment, context } = await open('25.11', { language: 'nld' }, { locale: 'nl-NL' });
    assert.equal(await page.getAttribute('html', 'lang'), 'nl');
    await page.getByLabel('Kaartnummer').waitFor();
    await screenshot(page, 'card-nld');
    await assertAccessible(page, 'card page nld');
    await payWithCard(page, {}, /^Betaal /);
    await page.locator('iframe[name=challenge-window]').waitFor();
    await page.frameLocator('iframe[name=challenge-window]').getByLabel('Eenmalige code').waitFor();
    await screenshot(page, 'challenge-nld');
    await answerChallenge(page, '1234', { code: 'Eenmalige code', confirm: 'Bevestigen' });
    await page.waitForURL(h.returnUrl);
    assert.equal((await h.transaction(payment.reference)).status, 'success');
    await page.goto(payment.payUrl);
    await page.getByRole('heading', { name: 'Betaling geslaagd' }).waitFor();
    await screenshot(page, 'outcome-success-nld');
    await context.close();
  });

  test('a bad card number is shown inline and nothing is charged', async () => {
    const { page, payment, context } = await open('25.00');
    await payWithCard(page, { number: '4111 1111 1111 1112' });
    const error = page.locator('#cardNumber-error');
    await error.waitFor({ state: 'visible' });
    assert.match(await error.innerText(), /not valid/);
    assert.equal(await page.locator('#cardNumber').getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'card-error-eng');
    await assertAccessible(page, 'card page with an error');
    assert.equal((await h.transaction(payment.reference)).status, 'pending');
    await context.close();
  });

  test('without JavaScript the form posts, the server shows inline errors, and paying works', async () => {
    const { page, payment, context } = await open('25.00', {}, { javaScriptEnabled: false });
    await payWithCard(page, { number: '4111 1111 1111 1112', expiry: '01/20' });
    await page.locator('#cardNumber-error').waitFor({ state: 'visible' });
    assert.match(await page.locator('#expiry-error').innerText(), /expired/);
    await screenshot(page, 'card-error-nojs-eng');
    await page.locator('#expiry').fill('');
    await page.locator('#holderName').fill('');
    await payWithCard(page);
    await page.waitForURL(h.returnUrl);
    assert.equal((await h.transaction(payment.reference)).status, 'success');
    await context.close();
  });

  test('landing page: the customer chooses Card, then pays; expirationDuration is set', async () => {
    const { page, payment, context } = await open('25.00', { method: 'landingpage', details: { expirationDuration: 'PT30M' } });
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    await screenshot(page, 'landing-eng');
    await assertAccessible(page, 'landing page');
    await page.getByRole('button', { name: 'Card' }).click();
    await page.getByLabel('Card number').waitFor();
    await payWithCard(page);
    await page.waitForURL(h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.equal(transaction.status, 'success');
    assert.equal(transaction.details.expirationDuration, 'PT30M');
    assert.equal((await authentication(payment.reference)).transStatus, 'Y');
    await context.close();

    const dutch = await open('25.00', { method: 'landingpage', language: 'nld' }, { locale: 'nl-NL' });
    await dutch.page.getByRole('heading', { name: 'Hoe wilt u betalen?' }).waitFor();
    await screenshot(dutch.page, 'landing-nld');
    await dutch.context.close();
  });

  for (const language of ['eng', 'nld'] as const) {
    test(`3DS1 redirect step without JavaScript, and a failed outcome, in ${language}`, async () => {
      const labels =
        language === 'eng'
          ? { pay: /^Pay /, bank: 'Go to my bank', code: 'One-time code', confirm: 'Confirm', next: 'Continue', failed: 'Payment failed' }
          : { pay: /^Betaal /, bank: 'Naar mijn bank', code: 'Eenmalige code', confirm: 'Bevestigen', next: 'Verder', failed: 'Betaling mislukt' };
      const locale = language === 'eng' ? 'en-GB' : 'nl-NL';
      const { page, payment, context } = await open('25.13', { language }, { javaScriptEnabled: false, locale });
      await payWithCard(page, {}, labels.pay);
      await page.getByRole('button', { name: labels.bank }).waitFor();
      await screenshot(page, `threeds1-redirect-${language}`);
      await page.getByRole('button', { name: labels.bank }).click();
      await page.getByLabel(labels.code).pressSequentially('1234');
      await screenshot(page, `threeds1-bank-${language}`);
      await page.getByRole('button', { name: labels.confirm, exact: true }).click();
      await page.getByRole('button', { name: labels.next }).click();
      await page.waitForURL(h.returnUrl);
      assert.equal((await h.transaction(payment.reference)).status, 'success');
      await context.close();

      const declined = await open('25.21', { language }, { locale });
      await payWithCard(declined.page, {}, labels.pay);
      await declined.page.waitForURL(h.returnUrl);
      await declined.page.goto(declined.payment.payUrl);
      await declined.page.getByRole('heading', { name: labels.failed }).waitFor();
      await screenshot(declined.page, `outcome-failed-${language}`);
      await declined.context.close();
    });
  }

  test('Bancontact: no security code asked, 3DS1 redirect, brand bcmc', async () => {
    const { page, payment, context } = await open('25.00');
    await page.locator('#cardNumber').pressSequentially(BANCONTACT);
    await page.locator('#cvc-field').waitFor({ state: 'hidden' });
    await payWithCard(page, { number: '', cvc: '' });
    await page.getByLabel('One-time code').pressSequentially('1234');
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.equal(transaction.status, 'success');
    assert.equal(transaction.brand, 'bcmc');
    assert.equal((await authentication(payment.reference)).protocolVersion, '1.0.2');
    await context.close();
  });
});
