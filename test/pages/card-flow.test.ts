/**
 * The hosted card flow over HTTP, on SQLite and PostgreSQL: outcomes and their single
 * state change, 3-D Secure data kept, CSRF and CSP, the attempt limit, double submits,
 * a final payment that cannot be paid again, and no card data anywhere in storage.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { MAX_CARD_ATTEMPTS } from '../../src/payments/card/reserve.ts';
import type { AuthoriseRequest } from '../../src/acquirer/connector.ts';
import { httpInjector } from '../support/process.ts';
import { card, hiddenValue, openPage, play3ds1, playChallenge, postForm } from './flow.ts';

const RETURN_URL = 'https://shop.example/return?order=42&x=%20y';

for (const backend of backends) {
  describe(`hosted card flow (${backend})`, () => {
    const t = suiteApp(backend);

    async function create(overrides: Record<string, unknown> = {}) {
      const response = await t.client.post('/payment', cardPayment({ returnUrl: RETURN_URL, ...overrides }));
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { reference: string; payUrl: string };
    }
    const read = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();
    const row = (reference: string) => t.store.read.selectFrom('transactions').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();

    test('a frictionless card payment succeeds in one state change and redirects to returnUrl unchanged', async () => {
      const payment = await create({ amount: '12.00' });
      const { path, csrf, page } = await openPage(t.app, payment.payUrl);
      assert.match(page.body, /autocomplete="cc-number"/);
      assert.match(page.body, /autocomplete="cc-exp"/);
      assert.match(page.body, /autocomplete="cc-csc"/);
      assert.match(page.body, /autocomplete="cc-name"/);
      assert.equal(page.body.match(/type="submit"/g)?.length, 2, 'the card form has one submit button; the other is cancel');
      const response = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, RETURN_URL);
      const transaction = await read(payment.reference);
      assert.equal(transaction.status, 'success');
      assert.equal(transaction.brand, 'visa');
      const stored = await row(payment.reference);
      const authentication = JSON.parse(stored.authentication!);
      assert.equal(authentication.transStatus, 'Y');
      assert.equal(authentication.eci, '05');
      assert.ok(authentication.authenticationValue);
      const events = await eventsOf(t.store.read, payment.reference);
      assert.deepEqual(
        events.map((e) => `${e.from_status}>${e.to_status}`),
        ['null>pending', 'pending>success'],
      );
    });

    const outcomes: [string, string, string | undefined][] = [
      ['12.12', 'failed', 'rejected'],
      ['12.21', 'failed', 'card_refused'],
      ['12.22', 'failed', 'insufficient_funds'],
      ['12.23', 'failed', 'fraud_detected'],
      ['12.31', 'manualintervention', undefined],
      ['12.14', 'success', undefined],
    ];
    for (const [amount, status, failureCode] of outcomes) {
      test(`amount ${amount} ends ${status}${failureCode ? `/${failureCode}` : ''}`, async () => {
        const payment = await create({ amount });
        const { path, csrf } = await openPage(t.app, payment.payUrl);
        const response = await postForm(t.app, `${path}/card`, { csrf, ...card() });
        assert.equal(response.statusCode, 303);
        const transaction = await read(payment.reference);
        assert.equal(transaction.status, status);
        assert.equal(transaction.failureCode, failureCode);
      });
    }

    test('a challenge passed with 1234 succeeds; the outcome comes from the RReq', async () => {
      const payment = await create({ amount: '12.11' });
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const challenge = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(challenge.statusCode, 200);
      assert.match(challenge.headers['content-security-policy'] as string, /frame-src 'self'/);
      assert.doesNotMatch(challenge.body, /4111/, 'the card number is not in the page (it is sealed)');
      const done = await playChallenge(t.app, path, challenge.body, '1234');
      assert.equal(done.statusCode, 303, done.body);
      assert.equal(done.headers.location, RETURN_URL);
      assert.equal((await read(payment.reference)).status, 'success');
      const authentication = JSON.parse((await row(payment.reference)).authentication!);
      assert.equal(authentication.challenged, true);
      assert.equal(authentication.transStatus, 'Y');
    });

    test("the challenge window is sized by the merchant's challengeWindowSize", async () => {
      const browserInfo = {
        javaEnabled: false,
        acceptHeaders: 'text/html',
        ipAddress: '192.0.2.1',
        language: 'nl-NL',
        screenColorDepth: '24',
        screenHeight: '800',
        screenWidth: '1280',
        timeZone: '-60',
        userAgent: 'Mozilla/5.0',
        challengeWindowSize: 'W250H400',
      };
      const payment = await create({ amount: '12.11', browserInfo });
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const challenge = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.match(challenge.body, /<iframe name="challenge-window" class="window-01"/);
      const frame = await t.app.inject({ method: 'GET', url: /<iframe[^>]+src="([^"]+)"/.exec(challenge.body)![1] });
      assert.match(frame.headers['content-security-policy'] as string, /frame-ancestors 'self'/);
      const creq = JSON.parse(Buffer.from(hiddenValue(frame.body, 'creq'), 'base64url').toString());
      assert.equal(creq.challengeWindowSize, '01');
      assert.equal(creq.messageType, 'CReq');
    });

    test('a challenge failed with another code → failed/rejected', async () => {
      const payment = await create({ amount: '12.11' });
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const challenge = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      const done = await playChallenge(t.app, path, challenge.body, '9999');
      assert.equal(done.statusCode, 303);
      const transaction = await read(payment.reference);
      assert.deepEqual([transaction.status, transaction.failureCode], ['failed', 'rejected']);
    });

    test('a tampered sealed card or a foreign session is refused without a state change', async () => {
      const payment = await create({ amount: '12.11' });
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const challenge = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      const sealed = hiddenValue(challenge.body, 'sealedCard');
      const forged = await postForm(t.app, `${path}/3ds/complete`, { csrf, session: hiddenValue(challenge.body, 'session'), sealedCard: `${sealed.slice(0, -2)}AA` });
      assert.equal(forged.statusCode, 303);
      assert.equal(forged.headers.location, path);
      const early = await postForm(t.app, `${path}/3ds/complete`, { csrf, session: hiddenValue(challenge.body, 'session'), sealedCard: sealed });
      assert.equal(early.statusCode, 409, 'completing before the challenge is answered shows the challenge again');
      assert.equal((await read(payment.reference)).status, 'pending');
    });

    test('the 3DS1 fallback (.13) runs as a redirect step and succeeds', async () => {
      const payment = await create({ amount: '12.13' });
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const step = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(step.statusCode, 200);
      const back = await play3ds1(t.app, path, step.body, '1234');
      assert.equal(back.statusCode, 200);
      assert.match(back.body, /http-equiv="refresh"/);
      const transaction = await read(payment.reference);
      assert.equal(transaction.status, 'success');
      assert.equal(JSON.parse((await row(payment.reference)).authentication!).protocolVersion, '1.0.2');
    });

    test('forms without the CSRF token, or posted cross-site, are refused', async () => {
      const payment = await create();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      assert.equal((await postForm(t.app, `${path}/card`, card())).statusCode, 403);
      assert.equal((await postForm(t.app, `${path}/card`, { csrf: csrf.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')), ...card() })).statusCode, 403);
      assert.equal((await postForm(t.app, `${path}/cancel`, { csrf }, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
      assert.equal((await read(payment.reference)).status, 'pending');
    });

    test('pages send a strict CSP with a nonce and refuse framing', async () => {
      const payment = await create();
      const { page } = await openPage(t.app, payment.payUrl);
      const csp = page.headers['content-security-policy'] as string;
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
      assert.ok(nonce);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self' https:\/\/shop\.example/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      for (const tag of page.body.match(/<script(?![^>]*application\/json)[^>]*>/g) ?? []) assert.ok(tag.includes(`nonce="${nonce}"`), tag);
      assert.equal(page.headers['x-frame-options'], 'DENY');
    });

    test(`after ${MAX_CARD_ATTEMPTS} failed card attempts the payment is failed/fraud_detected`, async () => {
      const payment = await create();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      for (let attempt = 1; attempt < MAX_CARD_ATTEMPTS; attempt++) {
        const response = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '4111 1111 1111 1112' }) });
        assert.equal(response.statusCode, 422);
        assert.match(response.body, new RegExp(`Attempts left: ${MAX_CARD_ATTEMPTS - attempt}`));
        assert.match(response.body, /id="cardNumber-error">This card number is not valid/);
      }
      const last = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '4111 1111 1111 1112' }) });
      assert.equal(last.statusCode, 303);
      const transaction = await read(payment.reference);
      assert.deepEqual([transaction.status, transaction.failureCode], ['failed', 'fraud_detected']);
    });

    test('a double submit authorises once: one state change, the other request does not pay', async () => {
      const payment = await create();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const [a, b] = await Promise.all([postForm(t.app, `${path}/card`, { csrf, ...card() }), postForm(t.app, `${path}/card`, { csrf, ...card() })]);
      // The loser either found the lease taken (409, "being processed") or the payment already final (303).
      assert.ok(
        [a.statusCode, b.statusCode].every((code) => code === 303 || code === 409),
        `${a.statusCode} ${b.statusCode}`,
      );
      assert.ok([a.statusCode, b.statusCode].includes(303));
      const events = await eventsOf(t.store.read, payment.reference);
      assert.equal(events.filter((e) => e.to_status === 'success').length, 1);
    });

    test('8 simultaneous submits on each of 20 payments over HTTP: each pays once, with one authorisation, the others see it in progress', async (context) => {
      const SUBMITS = 8;
      const payments = await Promise.all(Array.from({ length: 20 }, () => create({ amount: '14.00' })));
      const opened = await Promise.all(payments.map((payment) => openPage(t.app, payment.payUrl)));
      const http = httpInjector(await t.app.listen({ port: 0, host: '127.0.0.1' }));

      // The acquirer holds each authorisation until every other submit of its payment has been answered, so all of
      // them meet it in flight, as a customer's clicks on a slow network do. Two authorisations of one payment release too.
      const simulator = t.app.ports.acquirers.simulator;
      const authorise = simulator.authorise.bind(simulator);
      const authorisations = new Map<string, number>();
      const answered = new Map<string, number>();
      const held = new Map<string, (() => void)[]>();
      const releaseWhenAllMet = (reference: string) => {
        if ((answered.get(reference) ?? 0) + (authorisations.get(reference) ?? 0) < SUBMITS) return;
        for (const release of held.get(reference) ?? []) release();
      };
      context.mock.method(simulator, 'authorise', async (request: AuthoriseRequest, key: string) => {
        authorisations.set(request.reference, (authorisations.get(request.reference) ?? 0) + 1);
        await new Promise<void>((release) => {
          held.set(request.reference, [...(held.get(request.reference) ?? []), release]);
          releaseWhenAllMet(request.reference);
        });
        return authorise(request, key);
      });
      const reversals = context.mock.method(simulator, 'reversal');

      const answers = await Promise.all(
        payments.map((payment, i) =>
          Promise.all(
            Array.from({ length: SUBMITS }, async () => {
              const response = await postForm(http, `${opened[i].path}/card`, { csrf: opened[i].csrf, ...card() });
              answered.set(payment.reference, (answered.get(payment.reference) ?? 0) + 1);
              releaseWhenAllMet(payment.reference);
              return response;
            }),
          ),
        ),
      );

      for (const [i, payment] of payments.entries()) {
        const codes = answers[i].map((response) => response.statusCode).sort();
        assert.deepEqual(codes, [303, ...Array<number>(SUBMITS - 1).fill(409)], `${payment.reference}: one submit pays, the others find it in progress`);
        for (const busy of answers[i].filter((response) => response.statusCode === 409)) assert.match(busy.body, /Payment in progress/);
        const transaction = await read(payment.reference);
        assert.deepEqual([transaction.status, transaction.failureCode], ['success', undefined]);
        assert.equal(authorisations.get(payment.reference), 1, `${payment.reference} was authorised once`);
        const events = await eventsOf(t.store.read, payment.reference);
        assert.deepEqual(
          events.map((e) => `${e.from_status}>${e.to_status}`),
          ['null>pending', 'pending>success'],
        );
        const page = await t.store.read
          .selectFrom('payment_pages')
          .select(['attempts', 'acquirer_reference'])
          .where('reference', '=', payment.reference)
          .executeTakeFirstOrThrow();
        assert.equal(page.attempts, 1, 'the submits turned away as busy are not attempts');
        assert.ok(page.acquirer_reference, 'the authorisation in flight is the one the payment keeps');
      }
      assert.equal(reversals.mock.callCount(), 0, 'no authorisation was reversed');
    });

    test('a final payment shows its outcome and cannot be paid again', async () => {
      const payment = await create();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card() });
      const again = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(again.statusCode, 303);
      const page = await t.app.inject({ method: 'GET', url: path });
      assert.match(page.body, /Payment successful/);
      assert.doesNotMatch(page.body, /<form/);
      assert.equal((await eventsOf(t.store.read, payment.reference)).length, 2);
    });

    test('cancel on the page → failed/cancelled and back to returnUrl', async () => {
      const payment = await create();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const response = await postForm(t.app, `${path}/cancel`, { csrf });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, RETURN_URL);
      const transaction = await read(payment.reference);
      assert.deepEqual([transaction.status, transaction.failureCode], ['failed', 'cancelled']);
    });

    test('a payment in nld, deu or fra is shown in its language; one without pages falls back to English', async () => {
      for (const [language, lang, label] of [
        ['nld', 'nl', 'Kaartnummer'],
        ['deu', 'de', 'Kartennummer'],
        ['fra', 'fr', 'Numéro de carte'],
        ['spa', 'en', 'Card number'],
      ]) {
        const { page } = await openPage(t.app, (await create({ language })).payUrl);
        assert.match(page.body, new RegExp(`<html lang="${lang}">`), language);
        assert.match(page.body, new RegExp(label), language);
      }
    });

    test('the merchant preselected brand is the only one accepted', async () => {
      const payment = await create({ brand: 'mastercard' });
      const { path, csrf, page } = await openPage(t.app, payment.payUrl);
      assert.match(page.body, /Accepted cards: Mastercard</);
      const visa = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(visa.statusCode, 422);
      assert.match(visa.body, /can only be paid with Mastercard/);
      const mastercard = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '5555555555554444' }) });
      assert.equal(mastercard.statusCode, 303);
      assert.equal((await read(payment.reference)).brand, 'mastercard');
    });

    test('a bcmc-only merchant is not subject to 3-D Secure', async () => {
      const settings = { methods: ['card', 'landingpage'], cardBrands: ['bcmc'], vaultPaymentPath: 'direct' };
      await t.store.transact((db) =>
        db
          .updateTable('merchants')
          .set({ settings: JSON.stringify(settings) })
          .where('id', '=', t.merchant.merchantId)
          .execute(),
      );
      try {
        const payment = await create();
        const { path, csrf, page } = await openPage(t.app, payment.payUrl);
        assert.doesNotMatch(page.body, /autocomplete="cc-csc"/, 'Bancontact has no security code');
        const response = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '6703444444444449', cvc: '' }) });
        assert.equal(response.statusCode, 303, response.body);
        const stored = await row(payment.reference);
        assert.equal(stored.status, 'success');
        assert.equal(stored.brand, 'bcmc');
        assert.equal(stored.authentication, null);
      } finally {
        await t.store.transact((db) =>
          db
            .updateTable('merchants')
            .set({
              settings: JSON.stringify({
                methods: ['card', 'landingpage', 'walletpay'],
                cardBrands: ['visa', 'mastercard', 'amex', 'maestro', 'bcmc'],
                vaultPaymentPath: 'direct',
              }),
            })
            .where('id', '=', t.merchant.merchantId)
            .execute(),
        );
      }
    });

    test('the landing page offers the enabled methods and honours expirationDuration', async () => {
      const payment = await create({ method: 'landingpage', details: { expirationDuration: 'PT20M' } });
      const { path, csrf, page } = await openPage(t.app, payment.payUrl);
      assert.match(page.body, /How would you like to pay\?/);
      assert.equal((await read(payment.reference)).details.expirationDuration, 'PT20M');
      const stored = await row(payment.reference);
      assert.equal(stored.expires_at! - stored.created, 20 * 60_000);
      const chosen = await postForm(t.app, `${path}/method`, { csrf, method: 'card' });
      assert.equal(chosen.statusCode, 303);
      assert.equal((await read(payment.reference)).details.paidWith, 'card');
      const cardPage = await t.app.inject({ method: 'GET', url: path });
      assert.match(cardPage.body, /autocomplete="cc-number"/);
      // An expired landing page cannot be paid even before the sweeper ran.
      await t.store.transact((db) =>
        db
          .updateTable('transactions')
          .set({ expires_at: Date.now() - 1 })
          .where('reference', '=', payment.reference)
          .execute(),
      );
      await postForm(t.app, `${path}/card`, { csrf, ...card() });
      const transaction = await read(payment.reference);
      assert.deepEqual([transaction.status, transaction.failureCode], ['failed', 'expired']);
    });

    test('no card number or CVC is stored anywhere, the vault included', async () => {
      const pan = '4012888888881881';
      for (const [amount, storeInVault] of [
        ['13.00', 'no'],
        ['13.11', 'no'],
        ['13.00', 'yes'],
      ]) {
        const payment = await create({ amount, storeInVault });
        const { path, csrf } = await openPage(t.app, payment.payUrl);
        const response = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: pan, cvc: '987' }) });
        if (amount === '13.11') await playChallenge(t.app, path, response.body, '1234');
      }
      assert.equal((await t.store.read.selectFrom('vault_cards').selectAll().execute()).length, 1, 'the storeInVault payment stored its card');
      for (const table of [
        'transactions',
        'transaction_events',
        'payment_pages',
        'threeds_sessions',
        'acs_sim_transactions',
        'idempotency_records',
        'vault_cards',
      ] as const) {
        const dump = JSON.stringify(await t.store.read.selectFrom(table).selectAll().execute());
        assert.ok(!dump.includes(pan) && !dump.includes('888888881881'), `${table} holds no card number`);
        // Whole words only: "cvc" can occur by chance inside a random base62 token.
        assert.ok(!dump.includes('"987"') && !/\bcvc\b/i.test(dump), `${table} holds no CVC`);
      }
    });

    test('an unknown payUrl is a 404 page', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/pay/notavalidtoken' });
      assert.equal(response.statusCode, 404);
      assert.match(response.headers['content-type'] as string, /text\/html/);
    });
  });
}
