/**
 * Every customer page kind in each page language (docs/pages.md "Languages"), in headless
 * Chromium: the card form at 1280 and 390 px (expiry and CVC on one row, margins at 390), the
 * challenge pop-up with the simulated issuer's page inside and its one cancel, the 3DS1 issuer
 * page, the landing page, the wallet test sheet, the stored card, the test pages of the methods
 * paid elsewhere, the outcomes, the "not found" message and Kassa's own `GET /`. Each is checked with axe-core (no serious or critical
 * violation) and photographed under test-output/screenshots/languages.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { amountText } from '../../src/ground/amount.ts';
import { formatDateTime, pageLanguages, translator, type PageLanguage, type Translate } from '../../src/pages/i18n.ts';
import { assertAccessible, chromiumMissing, payWithCard, SCREENSHOTS, screenshot, suiteHarness } from './browser.ts';
import { card, openPage, postForm } from './flow.ts';
import { needs } from '../support/dependencies.ts';

const SHOTS = 'languages';
/** A browser in the page's language: its catalogue's locale. */
const locale = (language: PageLanguage) => translator(language)('locale');
const otherLocale = (language: PageLanguage) => (language === 'eng' ? locale('nld') : locale('eng'));
// Accessible names have their no-break spaces (amounts, French punctuation) as plain ones.
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s/g, '\\s');

fs.mkdirSync(path.join(SCREENSHOTS, SHOTS), { recursive: true });

describe('every page kind in every page language, in Chromium', { skip: needs(chromiumMissing) }, () => {
  const h = suiteHarness();

  /** The pay button's label for an amount in EUR, as the page writes it. */
  const payLabel = (t: Translate, amount: string) =>
    new RegExp(`^${escape(t('pay', { amount: amountText({ amount_minor: Math.round(Number(amount) * 100), currency: 'eur' }, t('locale')) }))}$`);

  /** Photographs the page and runs axe on it (and on `frame`, the issuer's window, when given); every Kassa page links Kassa's icon. */
  async function check(page: Page, kind: string, language: PageLanguage, frame?: Frame) {
    await screenshot(page, path.join(SHOTS, `${kind}-${language}`));
    await assertAccessible(page, `${kind} (${language})`);
    if (frame) await assertAccessible(frame, `${kind}, issuer's window (${language})`);
    assert.equal(await page.getAttribute('link[rel=icon]', 'href'), '/favicon.svg', `${kind} links the favicon`);
  }

  /** Expiry and CVC side by side: the same top, the CVC to the right; the card inside the window with a margin. */
  async function assertCardLayout(page: Page, width: number, label: string) {
    const expiry = (await page.locator('#expiry').boundingBox())!;
    const cvc = (await page.locator('#cvc').boundingBox())!;
    assert.ok(Math.abs(expiry.y - cvc.y) < 1, `${label} at ${width}px: the CVC field is on the expiry's row (${expiry.y} vs ${cvc.y})`);
    assert.ok(cvc.x > expiry.x + expiry.width, `${label} at ${width}px: the CVC is right of the expiry`);
    const main = (await page.locator('main').boundingBox())!;
    assert.ok(main.x >= 8 && width - (main.x + main.width) >= 8, `${label} at ${width}px: the page keeps a margin (${main.x}, ${width - main.x - main.width})`);
  }

  test('screenshots are kept', (t) => t.diagnostic(`screenshots: ${path.join(SCREENSHOTS, SHOTS)}`));

  for (const language of pageLanguages) {
    const t = translator(language);

    test(`${language}: card form at 1280 and 390 px, cancel and the failed outcome`, async () => {
      const payment = await h.createPayment({ amount: '25.00', language, description: 'Order 42' });
      const { context, page, cspViolations } = await h.context({ locale: locale(language) });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(payment.payUrl);
      await page.getByLabel(t('cardNumber'), { exact: true }).waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), t('htmlLang'));
      assert.ok((await page.locator('header.summary .amount').innerText()).includes(amountText({ amount_minor: 2500, currency: 'eur' }, t('locale'))));
      await assertCardLayout(page, 1280, language);
      await check(page, 'card-1280', language);
      await page.setViewportSize({ width: 390, height: 844 });
      await assertCardLayout(page, 390, language);
      await check(page, 'card-390', language);

      await page.getByRole('button', { name: t('cancel') }).click();
      await page.waitForURL(h.returnUrl);
      await page.goto(payment.payUrl);
      await page.getByRole('heading', { name: t('outcome_failed') }).waitFor();
      await page.getByText(t('failure_cancelled')).waitFor();
      await check(page, 'outcome-failed', language);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test(`${language}: challenge pop-up with one cancel, the issuer's page in it, and the successful outcome`, async () => {
      const payment = await h.createPayment({ amount: '25.11', language });
      // A browser in another language: the issuer's page follows the payment, as Kassa's pages do (docs/pages.md "Languages").
      const { context, page, cspViolations } = await h.context({ locale: otherLocale(language) });
      await page.goto(payment.payUrl);
      await payWithCard(page, {}, payLabel(t, '25.11'));
      await page.locator('iframe[name=challenge-window]').waitFor();
      const window = page.frameLocator('iframe[name=challenge-window]');
      await window.getByLabel(t('acsCode')).waitFor();
      await page.getByRole('dialog', { name: t('challengeTitle') }).waitFor();
      await window.getByRole('heading', { name: t('acsTitle') }).waitFor();
      assert.equal(await page.frame({ name: 'challenge-window' })!.getAttribute('html', 'lang'), t('htmlLang'), "the issuer's page is in the payment's language");
      assert.equal(await page.locator('.modal button:visible').count(), 0, 'the pop-up itself offers no second cancel');
      assert.equal(await window.getByRole('button', { name: t('acsCancel'), exact: true }).count(), 1, 'the issuer page has the one cancel');
      await check(page, 'challenge', language, page.frame({ name: 'challenge-window' })!);
      await window.getByLabel(t('acsCode')).pressSequentially('1234');
      await window.getByRole('button', { name: t('acsSubmit'), exact: true }).click();
      await page.waitForURL(h.returnUrl);
      assert.equal((await h.transaction(payment.reference)).status, 'success');
      await page.goto(payment.payUrl);
      await page.getByRole('heading', { name: t('outcome_success') }).waitFor();
      await check(page, 'outcome-success', language);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test(`${language}: the 3-D Secure 1 issuer page`, async () => {
      const payment = await h.createPayment({ amount: '25.13', language });
      const { context, page } = await h.context({ locale: locale(language) });
      await page.goto(payment.payUrl);
      await payWithCard(page, {}, payLabel(t, '25.13'));
      await page.getByLabel(t('acsCode')).waitFor();
      await page.getByRole('heading', { name: t('acsTitle') }).waitFor();
      await check(page, 'bank-3ds1', language);
      await page.getByLabel(t('acsCode')).pressSequentially('1234');
      await page.getByRole('button', { name: t('acsSubmit'), exact: true }).click();
      await page.waitForURL(h.returnUrl);
      assert.equal((await h.transaction(payment.reference)).status, 'success');
      await context.close();
    });

    test(`${language}: landing page with its validity in the page's locale, wallet test sheet, stored card`, async () => {
      const { context, page, cspViolations } = await h.context({ locale: locale(language) });
      const landing = await h.createPayment({ amount: '25.00', language, method: 'landingpage', details: { expirationDuration: 'PT30M' } });
      await page.goto(landing.payUrl);
      await page.getByRole('heading', { name: t('chooseMethod') }).waitFor();
      const expiresAt = (await h.row(landing.reference)).expires_at as number;
      await page.getByText(t('validUntil', { time: formatDateTime(t, expiresAt) })).waitFor();
      await check(page, 'landing', language);

      const wallet = await h.createPayment({ amount: '25.00', language, method: 'walletpay' });
      await page.goto(wallet.payUrl);
      await page.getByRole('heading', { name: t('walletTitle') }).waitFor();
      assert.equal(await page.locator('form[action$="/wallet"] button.primary').count(), 1, 'the wallet button looks like every pay button');
      await check(page, 'wallet', language);

      // A card saved through the enrollment's page (frictionless: the number ends in 00), then paid with.
      const enrollment = (await h.api.post('/token', { dataType: 'card', returnUrl: h.returnUrl, language })).json();
      const { path: enrollPath, csrf } = await openPage(h.kassa.app, enrollment.payUrl);
      await postForm(h.kassa.app, `${enrollPath}/card`, { csrf, ...card({ cardNumber: '4000 0000 0000 0200' }) });
      const enrolled = await h.transaction(enrollment.reference);
      assert.equal(enrolled.status, 'success');
      const stored = await h.createPayment({ amount: '25.00', language, details: { vaultAccessToken: enrolled.details.vaultAccessToken } });
      await page.goto(stored.payUrl);
      await page.getByRole('heading', { name: t('storedCard') }).waitFor();
      await check(page, 'stored-card', language);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test(`${language}: the test pages standing in for iDEAL, PayPal, Klarna and bank transfer`, async () => {
      const { context, page, cspViolations } = await h.context({ locale: locale(language) });
      const orderLines = [
        { type: 'PHYSICAL', name: 'Teapot', quantity: 1, unitPrice: 30, totalPrice: 30, vatRate: 21 },
        { type: 'DISCOUNT', name: 'Welcome discount', quantity: 1, unitPrice: -5, totalPrice: -5, vatRate: 21 },
      ];
      for (const method of ['ideal', 'paypal', 'klarna', 'banktransfer'] as const) {
        const payment = await h.createPayment({ amount: '25.00', language, method, ...(method === 'klarna' ? { orderLines } : {}) });
        await page.goto(payment.payUrl);
        await page.getByRole('heading', { name: t(`method_${method}`) }).waitFor();
        await page.getByRole('group', { name: t('sim_outcome') }).waitFor();
        if (method === 'klarna') await page.getByRole('cell', { name: amountText({ amount_minor: -500, currency: 'eur' }, t('locale')) }).waitFor();
        await check(page, `method-${method}`, language);
      }
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test(`${language}: a page without a payment follows the browser: "not found" and Kassa's own address`, async () => {
      const { context, page } = await h.context({ locale: locale(language) });
      await page.goto(`${h.baseUrl}/pay/no-such-payment`);
      await page.getByRole('heading', { name: t('notFoundTitle') }).waitFor();
      await check(page, 'not-found', language);
      await page.goto(`${h.baseUrl}/`);
      await page.getByRole('heading', { name: 'Kassa' }).waitFor();
      await page.getByText(t('homeIntro')).waitFor();
      assert.equal(await page.getByRole('link', { name: t('homeDocs') }).getAttribute('href'), '/docs');
      await check(page, 'home', language);
      await context.close();
    });
  }

  test("the payment's language comes first, the browser's when the payment's has no page, and the favicon is Kassa's", async () => {
    const { context, page } = await h.context({ locale: 'de-DE' });
    const french = await h.createPayment({ amount: '25.00', language: 'fra' });
    await page.goto(french.payUrl);
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    const spanish = await h.createPayment({ amount: '25.00', language: 'spa' });
    await page.goto(spanish.payUrl);
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    const icon = await page.request.get(`${h.baseUrl}/favicon.svg`);
    assert.equal(icon.status(), 200);
    assert.match(icon.headers()['content-type'], /^image\/svg\+xml/);
    assert.match(await icon.text(), /^<svg /);
    await context.close();
  });
});
