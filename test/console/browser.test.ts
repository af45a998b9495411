/**
 * The console in Chromium, clicked as an operator would: sign in (a wrong password refused
 * without saying which part), search by merchantOrderReference, open, refund part and see the
 * refund and its webhook attempt appear, the audit log, Dutch, a phone's width, a merchant's
 * account meeting another merchant's payment (404), sign out. axe on every page; screenshots.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import type { Page } from 'playwright-core';
import { assertAccessible, browserAvailable, payWithCard, screenshot, suiteHarness } from '../pages/browser.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { fastWorkerOptions } from '../events/support.ts';
import { makeAccount, PASSWORD } from './support.ts';

describe('console in Chromium', { skip: !browserAvailable && 'no Chromium at /usr/bin/chromium' }, () => {
  const harness = suiteHarness();
  let receiver: http.Server;
  let webhookUrl: string;
  let worker: WebhookWorker;

  before(async () => {
    receiver = http.createServer((_request, response) => void response.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    webhookUrl = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hooks`;
    worker = new WebhookWorker(harness.kassa.store, fastWorkerOptions()).start();
    await makeAccount(harness.kassa.store, 'ops@kassa.test');
  });
  after(async () => {
    await worker.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  async function signIn(page: Page, email: string, password = PASSWORD) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** A card payment paid in the browser, as its customer would. */
  async function paidPayment(page: Page, overrides: Record<string, unknown>) {
    const created = await harness.createPayment({ webhookUrl, ...overrides });
    await page.goto(created.payUrl);
    await payWithCard(page);
    await page.waitForURL(/\/return/);
    return created.reference;
  }

  test('sign in, search, open, refund part, see the refund and its webhook attempt, audit log, sign out', async () => {
    const { context, page, cspViolations } = await harness.context();
    const reference = await paidPayment(page, { merchantOrderReference: 'order-browser-1', amount: '25.00' });

    await page.goto(`${harness.baseUrl}/dashboard`);
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    assert.equal(await page.getByLabel('Email').getAttribute('autocomplete'), 'username');
    assert.equal(await page.getByLabel('Password').getAttribute('autocomplete'), 'current-password');
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'console-sign-in');

    await signIn(page, 'ops@kassa.test', 'not the password');
    await assert.doesNotReject(page.getByRole('alert').filter({ hasText: 'The email address or password is not right.' }).waitFor());
    await assertAccessible(page, 'sign-in refused');
    await screenshot(page, 'console-sign-in-refused');

    await signIn(page, 'ops@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);
    await assertAccessible(page, 'payments');
    await screenshot(page, 'console-payments');

    await page.getByLabel('Search').fill('order-browser-1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=order-browser-1/);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByRole('link', { name: reference }).click();
    await page.waitForURL(new RegExp(`/dashboard/payments/${reference}$`));
    await assertAccessible(page, 'payment');
    await screenshot(page, 'console-payment');

    await page.getByLabel('Amount to refund').fill('5.00');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'The refund was made.' }).waitFor();
    const related = page.locator('section', { has: page.locator('#related-title') });
    const refundLink = related.getByRole('link', { name: /^tr_/ });
    const refundReference = (await refundLink.textContent())!;
    assert.match((await related.locator('tbody tr').first().textContent()) ?? '', /credit.*success.*€5\.00/);
    assert.equal((await harness.transaction(reference)).details.refundedAmount, 5);

    await refundLink.click();
    await page.waitForURL(new RegExp(`/dashboard/payments/${refundReference}$`));
    // The worker sends the refund's webhook right after it settled: reload until its attempt is listed.
    const attempts = page.locator('.delivery tbody tr');
    for (let i = 0; i < 100 && (await attempts.count()) === 0; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    assert.match((await attempts.first().textContent()) ?? '', /204/);
    await assertAccessible(page, 'refund');
    await screenshot(page, 'console-refund');

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(/\/dashboard\/audit$/);
    assert.match((await page.locator('tbody tr').first().textContent()) ?? '', new RegExp(`ops@kassa\\.test.*refund.*${reference}`));
    await assertAccessible(page, 'audit log');
    await screenshot(page, 'console-audit');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor();
    await page.goto(`${harness.baseUrl}/dashboard/payments/${reference}`);
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    assert.deepEqual(cspViolations, []);
    await context.close();
  });

  test("a merchant's account gets 404 for another merchant's payment", async () => {
    const shop = await createMerchant(harness.kassa.store, 'Other Shop');
    await makeAccount(harness.kassa.store, 'shop@kassa.test', shop.merchantId);
    const { context, page } = await harness.context();
    const foreign = await paidPayment(page, { merchantOrderReference: 'order-browser-2' });
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    await signIn(page, 'shop@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);
    const response = await page.goto(`${harness.baseUrl}/dashboard/payments/${foreign}`);
    assert.equal(response?.status(), 404);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await assertAccessible(page, 'not found');
    await screenshot(page, 'console-not-found');
    await context.close();
  });

  test('in Dutch, and readable at a phone’s width', async () => {
    const { context, page } = await harness.context({ locale: 'nl-NL' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'nl');
    await page.getByLabel('E-mail').fill('ops@kassa.test');
    await page.getByLabel('Wachtwoord').fill(PASSWORD);
    await page.getByRole('button', { name: 'Aanmelden' }).click();
    await page.waitForURL(/\/dashboard\/payments$/);
    await page.getByRole('heading', { name: 'Betalingen' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await assertAccessible(page, 'payments (nld, phone)');
    await screenshot(page, 'console-payments-phone-nld');
    await page.locator('tbody a').first().click();
    await page.getByRole('heading', { name: /^Transactie / }).waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0);
    await assertAccessible(page, 'payment (nld, phone)');
    await screenshot(page, 'console-payment-phone-nld');
    await context.close();
  });
});
