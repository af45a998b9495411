/**
 * What a first tester meets in test mode (README "A first payment"): the quickstart's returnUrl is
 * Kassa's own page (`GET /test/return`), which names no payment; the demo merchant's curl line and
 * the README send the tester there with the test card; and each page's test banner tells what
 * that page's tester needs, in every page language (docs/pages.md "Test mode").
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { backends, createTestDatabase, suiteApp } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { ensureDemoMerchant } from '../../src/merchants/demo.ts';
import { pageLanguages, translator } from '../../src/pages/i18n.ts';
import { card, openPage, postForm } from './flow.ts';

const TEST_CARD = '4111 1111 1111 1111';
const unescape = (text: string) =>
  text
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
/** The test banners of a page, as the tester reads them. */
const banners = (body: string) => [...body.matchAll(/<p class="test-banner" role="note">([^<]*)<\/p>/g)].map((match) => unescape(match[1]!));

describe('test mode for a first tester', () => {
  const t = suiteApp(backends[0]!);
  const returnUrl = () => `${t.config.publicUrl}/test/return`;

  test('GET /test/return stands in for a shop: in the browser’s language, naming how a shop reads the outcome, and no payment whatever the address carries', async () => {
    for (const [language, acceptLanguage] of [
      ['eng', 'en-GB'],
      ['nld', 'nl-NL,nl;q=0.9'],
      ['deu', 'de'],
      ['fra', 'fr-FR'],
    ] as const) {
      const page = await t.app.inject({ method: 'GET', url: '/test/return?reference=tr_guessed&status=success', headers: { 'accept-language': acceptLanguage } });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const tt = translator(language);
      const text = unescape(page.body);
      assert.ok(text.includes(`<h1>${tt('testReturnTitle')}</h1>`), language);
      assert.ok(text.includes(tt('testReturnRead', { api: `${t.config.publicUrl}/api/v1` })), language);
      const main = page.body.slice(page.body.indexOf('<main>'));
      assert.ok(!page.body.includes('tr_guessed') && !main.includes('success'), 'nothing of the address is shown');
    }
  });

  test('the quickstart: a card payment returning to PUBLIC_URL/test/return, paid with the test card its page names, ends on that page', async () => {
    const created = await t.client.post('/payment', { amount: '10.00', currency: 'EUR', method: 'card', returnUrl: returnUrl() });
    assert.equal(created.statusCode, 200, created.body);
    const { payUrl, reference } = created.json() as { payUrl: string; reference: string };
    const { path: pagePath, csrf, page } = await openPage(t.app, payUrl);
    assert.ok(banners(page.body)[0]!.includes(TEST_CARD), 'the card page names the test card');
    const paid = await postForm(t.app, `${pagePath}/card`, { csrf, ...card({ cardNumber: TEST_CARD }) });
    assert.equal(paid.statusCode, 303, paid.body);
    assert.equal(paid.headers.location, returnUrl());
    const back = await t.app.inject({ method: 'GET', url: new URL(paid.headers.location as string).pathname });
    assert.equal(back.statusCode, 200);
    assert.equal((await t.client.get(`/transaction?reference=${reference}`)).json().status, 'success');
  });

  test('each page’s test banner tells what its tester needs: card numbers on the card page only, the outcome buttons on a method’s page', async () => {
    const open = async (request: Record<string, unknown>) => {
      const created = await t.client.post('/payment', { amount: '10.00', currency: 'EUR', returnUrl: returnUrl(), ...request });
      assert.equal(created.statusCode, 200, created.body);
      let page = await t.app.inject({ method: 'GET', url: new URL(created.json().payUrl).pathname });
      if (page.statusCode === 303) page = await t.app.inject({ method: 'GET', url: new URL(page.headers.location as string, 'http://kassa.test').pathname });
      assert.equal(page.statusCode, 200, page.body);
      return banners(page.body);
    };
    for (const language of pageLanguages) {
      const tt = translator(language);
      assert.deepEqual(await open({ method: 'card', language }), [tt('testModeCard')], `${language} card page`);
      assert.ok(tt('testModeCard').includes(TEST_CARD));
      const landing = await open({ method: 'landingpage', language });
      assert.deepEqual(landing, [tt('testModeChoice')], `${language} landing page`);
      assert.deepEqual(await open({ method: 'walletpay', language }), [tt('walletTestSheet')], `${language} wallet page: its button's banner only`);
      const ideal = await open({ method: 'ideal', language });
      assert.deepEqual(ideal, [tt('sim_notice', { method: 'iDEAL', outcome: tt('sim_outcome'), paid: tt('sim_outcome_paid') })], `${language} iDEAL page`);
      assert.ok(ideal[0]!.includes(tt('sim_outcome_paid')));
      for (const banner of [...landing, ...ideal, tt('walletTestSheet')])
        assert.doesNotMatch(banner, /\d{4} \d{4}|Luhn/, `${language}: no card numbers off the card page`);
    }
  });
});

describe("the demo merchant's lines and the README's first payment", () => {
  test('return to PUBLIC_URL/test/return and name the test card', async () => {
    const db = await createTestDatabase('sqlite');
    const store = await openStore(loadConfig({ ...db.env, PUBLIC_URL: 'https://pay.example' }));
    try {
      await store.migrate();
      const printed = (await ensureDemoMerchant(store, loadConfig({ ...db.env, PUBLIC_URL: 'https://pay.example' })))!;
      assert.match(printed, /"returnUrl":"https:\/\/pay\.example\/test\/return"/);
      assert.ok(printed.includes(TEST_CARD), printed);
    } finally {
      await store.close();
      await db.drop();
    }
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const firstPayment = readme.slice(readme.indexOf('### A first payment'), readme.indexOf('## Configuration'));
    assert.match(firstPayment, /"returnUrl":"http:\/\/localhost:8080\/test\/return"/);
    assert.ok(firstPayment.includes(`\`${TEST_CARD}\``));
  });
});
