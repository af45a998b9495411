/**
 * The console in Chromium, clicked as an operator would: sign in (a wrong password refused
 * without saying which part), search by merchantOrderReference, open, refund part and see the
 * refund and its webhook attempt appear, the audit log, Dutch, a phone's width, a merchant's
 * account meeting another merchant's payment (404), sign out; a pending test bank transfer marked
 * as its money having arrived; the overview chart, a merchant's
 * settings (webhook URL, a test webhook's attempt, a secret shown once, a payment method unchecked
 * and checked again, a refused change naming its field), the CSV download; setting a password;
 * changing one's own password from the account page and signing out everywhere.
 * axe on every page; screenshots of each.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import type { Page } from 'playwright-core';
import { assertAccessible, chromiumMissing, payWithCard, screenshot, suiteHarness } from '../pages/browser.ts';
import { needs } from '../support/dependencies.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { fastWorkerOptions } from '../events/support.ts';
import { makeAccount, PASSWORD } from './support.ts';
import { createOperator } from '../../src/operators/accounts.ts';
import { insertTransaction } from '../../src/store/transactions.ts';
import type { NewTransaction } from '../../src/store/schema.ts';
import { pendingPaymentRow } from '../events/support.ts';

describe('console in Chromium', { skip: needs(chromiumMissing) }, () => {
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
    // Live data first (the merchant has a live key); the test payments are one click away, labelled.
    await page.getByRole('navigation', { name: 'Live or test data' }).getByRole('link', { name: 'Test data' }).click();
    await page.waitForURL(/\/dashboard\/payments\?mode=test$/);
    await page.getByRole('heading', { name: 'Payments Test data' }).waitFor();
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

    await page.getByLabel('Amount to refund').fill('5');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    // Money moves only once confirmed: the confirmation names amount and currency.
    await page.getByText(`Refund €5.00 of payment ${reference}?`).waitFor();
    assert.equal((await harness.transaction(reference)).details.refundedAmount, undefined);
    await assertAccessible(page, 'refund confirmation');
    await screenshot(page, 'console-refund-confirm');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'The refund was made.' }).waitFor();
    const related = page.locator('section', { has: page.locator('#related-title') });
    const refundLink = related.getByRole('link', { name: /^tr_/ });
    const refundReference = (await refundLink.textContent())!;
    assert.match((await related.locator('tbody tr').first().textContent()) ?? '', /Refund.*Successful.*€5\.00/);
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

  test('a pending test bank transfer marked as its money having arrived, once confirmed, with its webhook attempt', async () => {
    const { context, page, cspViolations } = await harness.context();
    const { reference } = await harness.createPayment({ webhookUrl, method: 'banktransfer', amount: '29.95' });
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    await signIn(page, 'ops@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);
    await page.goto(`${harness.baseUrl}/dashboard/payments/${reference}`);
    const completion = page.getByRole('form', { name: 'Complete the test payment' });
    await assertAccessible(page, 'test payment');
    await screenshot(page, 'console-test-payment');
    await completion.getByRole('button', { name: 'The money arrived' }).click();
    await page.getByText(`Complete test payment ${reference} of €29.95: The money arrived?`).waitFor();
    assert.equal((await harness.transaction(reference)).status, 'pending', 'nothing changes before confirming');
    await assertAccessible(page, 'test payment confirmation');
    await screenshot(page, 'console-test-payment-confirm');
    await page.getByRole('button', { name: 'Complete the test payment' }).click();
    await page.getByRole('status').filter({ hasText: 'The test payment was completed.' }).waitFor();
    assert.equal((await harness.transaction(reference)).status, 'success');
    assert.equal(await completion.count(), 0, 'final: no longer offered');
    const attempts = page.locator('.delivery tbody tr');
    for (let i = 0; i < 100 && (await attempts.count()) === 0; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    assert.match((await attempts.first().textContent()) ?? '', /204/);
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

  test('overview, settings with a test webhook and a secret shown once, and the CSV download', async () => {
    const { context, page, cspViolations } = await harness.context();
    await paidPayment(page, { merchantOrderReference: 'order-browser-3' });
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    await signIn(page, 'ops@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(/\/dashboard\/overview$/);
    await page.getByRole('link', { name: 'Test data' }).click();
    await page.waitForURL(/\/dashboard\/overview\?.*mode=test/);
    const chart = page.getByRole('img', { name: 'Payments per day by method, and the success rate' });
    await chart.waitFor();
    assert.ok((await chart.locator('rect.bar').count()) >= 1, 'a bar for today');
    await page.getByText('The numbers of the chart, per day').click();
    assert.match((await page.getByRole('region', { name: 'The numbers of the chart, per day' }).textContent()) ?? '', new RegExp(new Date().toISOString().slice(0, 10)));
    await assertAccessible(page, 'overview');
    await screenshot(page, 'console-overview');

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/dashboard\/merchants$/);
    await assertAccessible(page, 'merchants');
    await screenshot(page, 'console-merchants');
    await page.getByRole('link', { name: 'Test Shop', exact: true }).first().click();
    await page.waitForURL(/\/dashboard\/merchants\/mer_/);
    const settingsUrl = page.url();

    await page.getByLabel('Webhook URL').fill('http://169.254.169.254/hooks');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByRole('alert').filter({ hasText: 'Not saved: Webhook URL is refused' }).waitFor();
    assert.equal(await page.getByLabel('Webhook URL').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Webhook URL').inputValue(), 'http://169.254.169.254/hooks', 'what was typed stays, to be corrected');
    await assertAccessible(page, 'settings refused');
    await screenshot(page, 'console-settings-refused');

    await page.getByLabel('Webhook URL').fill(webhookUrl);
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByRole('status').filter({ hasText: 'The webhook URL was saved.' }).waitFor();
    await page.getByRole('button', { name: 'Send a test webhook' }).click();
    await page.getByRole('status').filter({ hasText: 'The test webhook is queued' }).waitFor();
    const attempts = page.locator('.delivery tbody tr');
    for (let i = 0; i < 100 && (await attempts.count()) === 0; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    assert.match((await attempts.first().textContent()) ?? '', /204/);
    await assertAccessible(page, 'settings');
    await screenshot(page, 'console-settings');

    await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
    const secret = (await page.locator('code.secret-value').textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    await assertAccessible(page, 'settings secret');
    await screenshot(page, 'console-settings-secret');
    // The secret came in the answer to the POST, at its address: the settings page is read again at its own.
    await page.goto(settingsUrl);
    await page.getByRole('heading', { name: 'Payment methods' }).waitFor();
    assert.equal(await page.locator('code.secret-value').count(), 0, 'shown once: the settings page (GET) does not show it again');

    const methodsForm = page.locator('form', { has: page.getByRole('group', { name: 'Payment methods this merchant accepts' }) });
    await methodsForm.getByRole('checkbox', { name: 'walletpay' }).uncheck();
    await methodsForm.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'The payment methods were saved.' }).waitFor();
    assert.equal(await methodsForm.getByRole('checkbox', { name: 'walletpay' }).isChecked(), false);
    assert.equal(await methodsForm.getByRole('checkbox', { name: 'card' }).isChecked(), true);
    await methodsForm.getByRole('checkbox', { name: 'walletpay' }).check();
    await methodsForm.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'The payment methods were saved.' }).waitFor();
    assert.equal(await methodsForm.getByRole('checkbox', { name: 'walletpay' }).isChecked(), true);

    await page.goto(`${harness.baseUrl}/dashboard/payments?mode=test&q=order-browser-3`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download this list as CSV' }).click()]);
    assert.match(download.suggestedFilename(), /^kassa-transactions-.*\.csv$/);
    const csv = await new Promise<string>((resolve, reject) => {
      void download.createReadStream().then((stream) => {
        let text = '';
        stream.on('data', (chunk) => (text += chunk));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
      }, reject);
    });
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1], /,"order-browser-3",""$/);
    assert.deepEqual(cspViolations, []);
    await context.close();
  });

  test('setting a password from the link', async () => {
    const invited = await createOperator(harness.kassa.store, { email: 'invited@kassa.test', publicUrl: harness.baseUrl });
    const { context, page } = await harness.context();
    await page.goto(invited.setPasswordUrl!);
    await assertAccessible(page, 'set password');
    await screenshot(page, 'console-set-password');
    await page.getByLabel('New password').fill('a long new password 2');
    await page.getByLabel('Repeat the password').fill('a long new password 2');
    await page.getByRole('button', { name: 'Save password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is saved.' }).waitFor();
    await context.close();
  });

  test('changing one’s own password from the account page, then signing out everywhere', async () => {
    await makeAccount(harness.kassa.store, 'own-password@kassa.test');
    const { context, page, cspViolations } = await harness.context();
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    await signIn(page, 'own-password@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);
    await page.getByRole('link', { name: 'Signed in as own-password@kassa.test' }).click();
    await page.waitForURL(/\/dashboard\/account$/);
    await assertAccessible(page, 'account');
    await screenshot(page, 'console-account');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('no digits in this one');
    await page.getByLabel('Repeat the password').fill('no digits in this one');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The password must contain at least one digit.' }).waitFor();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('a changed password 3');
    await page.getByLabel('Repeat the password').fill('a changed password 3');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(/\/dashboard\/sign-in\?signedOut$/);
    assert.deepEqual(cspViolations, []);
    await context.close();
  });

  test('the list fits 1280 px with amount, status and reference first and merchants by name; at 390 px it shows just those three', async () => {
    const { context, page } = await harness.context();
    for (let i = 0; i < 3; i++) await harness.createPayment({ merchantOrderReference: `order-wide-${i}-with-a-rather-long-order-reference` });
    await paidPayment(page, { merchantOrderReference: 'order-browser-wide' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    await signIn(page, 'ops@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);
    await page.goto(`${harness.baseUrl}/dashboard/payments?mode=test`);
    const headers = async () =>
      page.locator('table.list thead th').evaluateAll((cells) => cells.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => c.textContent));
    assert.deepEqual((await headers()).slice(0, 3), ['Amount', 'Status', 'Reference']);
    assert.ok((await headers()).includes('Merchant'));
    assert.ok(await page.locator('table.list tbody td', { hasText: 'Test Shop' }).count(), 'merchants by name');
    assert.equal(await page.locator('table.list tbody td', { hasText: /^mer_/ }).count(), 0, 'not by id');
    const wide = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      table: document.querySelector('.table-wrap')!.scrollWidth - document.querySelector('.table-wrap')!.clientWidth,
    }));
    assert.ok(wide.page <= 1280, `the page is ${wide.page}px wide`);
    assert.ok(wide.table <= 0, `the list scrolls ${wide.table}px sideways`);
    await assertAccessible(page, 'payments (1280)');
    await screenshot(page, 'console-payments-1280');

    await page.setViewportSize({ width: 390, height: 844 });
    assert.deepEqual(await headers(), ['Amount', 'Status', 'Reference']);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    await assertAccessible(page, 'payments (390)');
    await screenshot(page, 'console-payments-390');
    await context.close();
  });

  test('the list fits 1280 px with long real values, in English and Dutch: each cut value whole on hover (title) and to assistive technology', async () => {
    const shop = await createMerchant(harness.kassa.store, 'Stichting Vrienden van het Openluchtmuseum Arnhem – Webwinkel en Kaartverkoop');
    const orderReference = 'WEB-NL-2026-000123456789-7f3e9a2c-4b1d-4e8a-9c3f-2a1b0c9d8e7f';
    const row = (overrides: Partial<NewTransaction>) => ({
      ...pendingPaymentRow(harness.kassa.store.secrets, shop.merchantId),
      merchant_order_reference: orderReference,
      ...overrides,
    });
    const paid = row({
      status: 'success',
      brand: 'mastercard',
      amount_minor: 99_999_999_999,
      details: JSON.stringify({ refundedAmount: 1, disputes: [{ status: 'success' }] }),
    });
    const rows = [
      paid,
      row({ status: 'failed', failure_code: 'unsufficient_balance', method: 'landingpage', type: 'authorise' }),
      row({ status: 'manualintervention', method: 'banktransfer' }),
      row({ status: 'success', type: 'chargeback', parent_reference: paid.reference, details: JSON.stringify({ stage: 'prearbitration_lost' }) }),
    ];
    await harness.kassa.store.transact(async (db) => {
      for (const each of rows) await insertTransaction(db, each, 'created');
    });
    for (const locale of ['en-GB', 'nl-NL']) {
      const { context, page } = await harness.context({ locale });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
      await page.locator('#email').fill('ops@kassa.test');
      await page.locator('#password').fill(PASSWORD);
      await page.locator('main form button[type=submit]').click();
      await page.waitForURL(/\/dashboard\/payments$/);
      await page.goto(`${harness.baseUrl}/dashboard/payments?mode=test&merchant=${shop.merchantId}`);
      assert.equal(await page.locator('table.list tbody tr').count(), rows.length);
      const fit = await page.evaluate(() => {
        const wrap = document.querySelector('.table-wrap')!;
        const cells = [...document.querySelectorAll('table.list th, table.list td')];
        return {
          page: document.documentElement.scrollWidth,
          table: wrap.scrollWidth - wrap.clientWidth,
          right: Math.max(...cells.map((cell) => cell.getBoundingClientRect().right)),
        };
      });
      assert.ok(fit.page <= 1280, `${locale}: the page is ${fit.page}px wide`);
      assert.ok(fit.table <= 0, `${locale}: the list scrolls ${fit.table}px sideways`);
      assert.ok(fit.right <= 1280, `${locale}: the last column ends at ${fit.right}px`);
      // A value cut to fit is whole in its title (hover) and in the page's text (screen readers, copying).
      const order = page.locator('table.list tbody td', { hasText: orderReference }).first();
      assert.equal(await order.getAttribute('title'), orderReference);
      const merchant = page.locator('table.list tbody td', { hasText: 'Webwinkel en Kaartverkoop' }).first();
      assert.equal(await merchant.getAttribute('title'), 'Stichting Vrienden van het Openluchtmuseum Arnhem – Webwinkel en Kaartverkoop');
      await assertAccessible(page, `payments with long values (1280, ${locale})`);
      await screenshot(page, `console-payments-1280-long-${locale}`);
      await context.close();
    }
  });

  test('the overview is one volume chart with a part per method, a page of reasonable height at 1280 px', async () => {
    const shop = await createMerchant(harness.kassa.store, 'Many Methods Shop');
    const methods = ['card', 'landingpage', 'walletpay', 'ideal', 'paypal', 'klarna', 'banktransfer'];
    await harness.kassa.store.transact(async (db) => {
      for (const [i, method] of methods.entries()) {
        for (let day = 0; day < 20; day += i + 1) {
          const row = pendingPaymentRow(harness.kassa.store.secrets, shop.merchantId);
          const created = Date.now() - day * 24 * 3600 * 1000;
          await insertTransaction(db, { ...row, method, created, last_update: created, status: day % 3 === 0 ? 'failed' : 'success' }, 'created');
        }
      }
    });
    const { context, page } = await harness.context();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${harness.baseUrl}/dashboard/sign-in`);
    await signIn(page, 'ops@kassa.test');
    await page.waitForURL(/\/dashboard\/payments$/);
    await page.goto(`${harness.baseUrl}/dashboard/overview?mode=test&merchant=${shop.merchantId}`);
    const chart = page.getByRole('img', { name: 'Payments per day by method, and the success rate' });
    await chart.waitFor();
    assert.equal(await page.locator('svg.chart').count(), 1, 'one chart for every method');
    const colours = await chart.locator('rect.bar').evaluateAll((bars) => [...new Set(bars.map((bar) => bar.getAttribute('fill')))]);
    assert.equal(colours.length, methods.length, 'a colour per method');
    const legend = (await page.locator('ul.legend li').allTextContents()).map((text) => text.trim());
    assert.deepEqual(legend, [...[...methods].sort(), 'Success rate']);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    // Seven charts stacked made it 3,900 px; one chart, its legend and the totals by method fit in well under two screens.
    assert.ok(height <= 1700, `the overview is ${height}px tall`);
    await assertAccessible(page, 'overview with many methods');
    await screenshot(page, 'console-overview-methods');
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
    await page.getByRole('link', { name: 'Testgegevens', exact: true }).click();
    await page.getByRole('heading', { name: 'Betalingen Testgegevens' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await assertAccessible(page, 'payments (nld, phone)');
    await screenshot(page, 'console-payments-phone-nld');
    await page.locator('tbody a').first().click();
    await page.getByRole('heading', { name: /^Transactie / }).waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0);
    await assertAccessible(page, 'payment (nld, phone)');
    await screenshot(page, 'console-payment-phone-nld');
    for (const [link, heading, name] of [
      ['Overzicht', 'Overzicht', 'overview'],
      ['Instellingen', 'Merchants', 'merchants'],
    ] as const) {
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: new RegExp(`^${heading}( |$)`) }).waitFor();
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0, name);
      await assertAccessible(page, `${name} (nld, phone)`);
      await screenshot(page, `console-${name}-phone-nld`);
    }
    await page.getByRole('link', { name: 'Test Shop', exact: true }).first().click();
    await page.getByRole('heading', { name: /^Instellingen van / }).waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0);
    await assertAccessible(page, 'settings (nld, phone)');
    await screenshot(page, 'console-settings-phone-nld');
    await context.close();
  });
});
