/**
 * The simulated issuer's pages (pages/acs-pages.ts) serve test-mode payments only: an ACS
 * transaction of a live payment gets the "unknown transaction" page on every simulator
 * route and is never answered, while the same for a test payment shows the bank's page. The
 * bank's pages speak the payment's page language, whatever the browser's own language.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { insertThreeDSSession } from '../../src/store/payment-pages.ts';
import { ACS_SIMULATOR_PATH } from '../../src/threeds/ds-simulator.ts';
import { translator, type PageLanguage } from '../../src/pages/i18n.ts';
import { card, csrfOf, hiddenValue, postForm } from './flow.ts';

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

for (const backend of backends) {
  describe(`ACS simulator routes (${backend})`, () => {
    const t = suiteApp(backend);

    /** A payment of `key`'s mode with a 3-D Secure session in challenge and an open ACS transaction of `protocol`, as the simulated DS leaves them. */
    async function challengeOf(key: string, protocol: '2.2.0' | '1.0.2') {
      const created = await t.client.post('/payment', cardPayment({ amount: '20.11' }), { key });
      assert.equal(created.statusCode, 200, created.body);
      const { reference, payUrl } = created.json();
      const sessionId = randomUUID();
      const now = Date.now();
      await t.store.transact((db) =>
        insertThreeDSSession(db, {
          id: sessionId,
          reference,
          protocol,
          state: 'challenge',
          session_secret: 'secret',
          acs_trans_id: null,
          ds_trans_id: null,
          acs_url: null,
          window_size: 'FULL_SCREEN',
          brand: 'visa',
          result: null,
          created: now,
          expires_at: now + 600_000,
        }),
      );
      const acsTransID = await t.app.ports.acs.open({
        threeDSServerTransID: sessionId,
        dsTransID: sessionId,
        protocol,
        brand: 'visa',
        merchantName: 'Test Shop',
        amountText: '20.11 EUR',
        notificationUrl: `${new URL(payUrl).origin}${new URL(payUrl).pathname}/3ds/notify`,
      });
      const row = await t.store.read.selectFrom('acs_sim_transactions').selectAll().where('acs_trans_id', '=', acsTransID).executeTakeFirstOrThrow();
      return { sessionId, acsTransID, formToken: row.form_token, termUrl: `${t.config.publicUrl}${new URL(payUrl).pathname}/3ds1` };
    }

    const acsState = async (acsTransID: string) =>
      (await t.store.read.selectFrom('acs_sim_transactions').select('state').where('acs_trans_id', '=', acsTransID).executeTakeFirstOrThrow()).state;

    /** The four simulator routes, each with what a browser would post for this transaction. */
    async function visit(key: string) {
      const two = await challengeOf(key, '2.2.0');
      const one = await challengeOf(key, '1.0.2');
      const answers = {
        challenge: await postForm(t.app, `${ACS_SIMULATOR_PATH}/challenge`, {
          creq: encode({ acsTransID: two.acsTransID, threeDSServerTransID: two.sessionId }),
          threeDSSessionData: 'data',
        }),
        challengeAnswer: await postForm(t.app, `${ACS_SIMULATOR_PATH}/challenge/answer`, { acsTransID: two.acsTransID, token: two.formToken, code: '1234' }),
        redirect3ds1: await postForm(t.app, `${ACS_SIMULATOR_PATH}/3ds1`, {
          PaReq: encode({ acsTransID: one.acsTransID, xid: one.sessionId }),
          TermUrl: one.termUrl,
          MD: 'md',
        }),
        answer3ds1: await postForm(t.app, `${ACS_SIMULATOR_PATH}/3ds1/answer`, { acsTransID: one.acsTransID, token: one.formToken, TermUrl: one.termUrl, code: '1234' }),
      };
      return { answers, states: [await acsState(two.acsTransID), await acsState(one.acsTransID)] };
    }

    test('a test payment’s ACS transaction is served on every simulator route', async () => {
      const { answers, states } = await visit(t.merchant.testApiKey);
      for (const [route, res] of Object.entries(answers)) assert.equal(res.statusCode, 200, `${route}: ${res.body}`);
      assert.match(answers.challenge.body, /autocomplete="one-time-code"/);
      assert.match(answers.redirect3ds1.body, /autocomplete="one-time-code"/);
      assert.deepEqual(states, ['done', 'done']);
    });

    test('a live payment’s ACS transaction is refused on every simulator route and never answered', async () => {
      const { answers, states } = await visit(t.merchant.liveApiKey);
      for (const [route, res] of Object.entries(answers)) {
        assert.equal(res.statusCode, 404, `${route}: ${res.body}`);
        assert.doesNotMatch(res.body, /one-time-code|name="cres"|name="PaRes"/, route);
      }
      assert.deepEqual(states, ['pending', 'pending']);
    });

    /**
     * The issuer's pages in the language of the payment's pages, as a shopper walks them: the
     * browser's own language (the AReq's browserLanguage, Accept-Language) differs on purpose.
     */
    const bankLanguages: { name: string; language: string; amount: string; acceptLanguage: string; expected: PageLanguage }[] = [
      { name: 'a Dutch payment in an English browser: 3DS2 challenge', language: 'nld', amount: '20.11', acceptLanguage: 'en-GB', expected: 'nld' },
      { name: 'a German payment in an English browser: 3DS1 page', language: 'deu', amount: '20.13', acceptLanguage: 'en-GB', expected: 'deu' },
      { name: 'a Spanish payment (no pages) in a French browser: 3DS2 challenge', language: 'spa', amount: '20.11', acceptLanguage: 'fr-FR', expected: 'fra' },
      { name: 'a Spanish payment (no pages) in a French browser: 3DS1 page', language: 'spa', amount: '20.13', acceptLanguage: 'fr-FR', expected: 'fra' },
    ];
    for (const c of bankLanguages) {
      test(`the bank speaks the payment's page language: ${c.name}`, async () => {
        const headers = { 'accept-language': c.acceptLanguage };
        const expected = translator(c.expected);
        const created = await t.client.post('/payment', cardPayment({ amount: c.amount, language: c.language }), { key: t.merchant.testApiKey });
        assert.equal(created.statusCode, 200, created.body);
        const path = new URL(created.json().payUrl).pathname;
        const page = await t.app.inject({ method: 'GET', url: path, headers });
        const lang = (body: string) => /<html lang="([^"]+)"/.exec(body)?.[1];
        assert.equal(lang(page.body), expected('htmlLang'));
        const paid = await postForm(
          t.app,
          `${path}/card`,
          {
            csrf: csrfOf(page.body),
            ...card({ js: '1', browserLanguage: c.acceptLanguage, timeZone: '0', screenWidth: '1280', screenHeight: '900', colorDepth: '24', windowWidth: '1280' }),
          },
          headers,
        );
        assert.equal(paid.statusCode, 200, paid.body);
        assert.equal(lang(paid.body), expected('htmlLang'), "Kassa's own step page");
        let bank;
        let answer;
        if (c.amount.endsWith('11')) {
          const frame = await t.app.inject({ method: 'GET', url: /<iframe[^>]+src="([^"]+)"/.exec(paid.body)![1], headers });
          bank = await postForm(
            t.app,
            `${ACS_SIMULATOR_PATH}/challenge`,
            { creq: hiddenValue(frame.body, 'creq'), threeDSSessionData: hiddenValue(frame.body, 'threeDSSessionData') },
            headers,
          );
          answer = await postForm(
            t.app,
            `${ACS_SIMULATOR_PATH}/challenge/answer`,
            {
              acsTransID: hiddenValue(bank.body, 'acsTransID'),
              token: hiddenValue(bank.body, 'token'),
              threeDSSessionData: hiddenValue(bank.body, 'threeDSSessionData'),
              code: '1234',
            },
            headers,
          );
        } else {
          bank = await postForm(
            t.app,
            `${ACS_SIMULATOR_PATH}/3ds1`,
            { PaReq: hiddenValue(paid.body, 'PaReq'), TermUrl: hiddenValue(paid.body, 'TermUrl'), MD: hiddenValue(paid.body, 'MD') },
            headers,
          );
          answer = await postForm(
            t.app,
            `${ACS_SIMULATOR_PATH}/3ds1/answer`,
            {
              acsTransID: hiddenValue(bank.body, 'acsTransID'),
              token: hiddenValue(bank.body, 'token'),
              TermUrl: hiddenValue(bank.body, 'TermUrl'),
              MD: hiddenValue(bank.body, 'MD'),
              code: '1234',
            },
            headers,
          );
        }
        assert.equal(bank.statusCode, 200, bank.body);
        assert.equal(lang(bank.body), expected('htmlLang'));
        assert.ok(bank.body.includes(`<h1>${expected('acsTitle')}</h1>`), bank.body);
        assert.ok(bank.body.includes(expected('acsSubmit')), bank.body);
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(lang(answer.body), expected('htmlLang'));
        assert.ok(answer.body.includes(expected('acsDone')), answer.body);
      });
    }
  });
}
