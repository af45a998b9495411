/**
 * The hosted wallet flow in a real browser (headless Chromium): the test wallet sheet paid
 * with a click, in English and Dutch, the .41 scenario that settles only after 2 s, and
 * cancel. Each page is checked with axe-core and photographed under test-output/screenshots.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessible, chromiumMissing, screenshot, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';

describe('hosted wallet page in Chromium', { skip: needs(chromiumMissing) }, () => {
  const h = suiteHarness();

  async function open(amount: string, overrides: Record<string, unknown> = {}) {
    const payment = await h.createPayment({ amount, method: 'walletpay', ...overrides });
    const session = await h.context();
    await session.page.goto(payment.payUrl);
    return { ...session, payment };
  }

  test('the test wallet sheet pays with one click and returns the customer to the shop', async () => {
    const { page, payment, context, cspViolations } = await open('30.00', { description: 'Order 43' });
    await page.getByRole('heading', { name: 'Pay with your wallet' }).waitFor();
    await screenshot(page, 'wallet-eng');
    await assertAccessible(page, 'wallet page');
    await page.getByRole('button', { name: /^Pay .* with wallet$/ }).click();
    await page.waitForURL(h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.equal(transaction.status, 'success');
    assert.equal(transaction.brand, 'visa');
    assert.deepEqual(cspViolations, []);
    await context.close();
  });

  test('in Dutch; scenario .41 reaches its final state only after 2 s', async () => {
    const { page, payment, context } = await open('30.41', { language: 'nld' });
    await page.getByRole('heading', { name: 'Betalen met je wallet' }).waitFor();
    await screenshot(page, 'wallet-nld');
    const started = Date.now();
    await page.getByRole('button', { name: /met wallet$/ }).click();
    await page.waitForURL(h.returnUrl);
    assert.ok(Date.now() - started >= 2000);
    assert.equal((await h.transaction(payment.reference)).status, 'success');
    await context.close();
  });

  test('cancel on the wallet page → failed/cancelled', async () => {
    const { page, payment, context } = await open('30.00');
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.waitForURL(h.returnUrl);
    const transaction = await h.transaction(payment.reference);
    assert.deepEqual([transaction.status, transaction.failureCode], ['failed', 'cancelled']);
    await context.close();
  });
});
