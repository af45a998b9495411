/**
 * The vault end to end over HTTP, on SQLite and PostgreSQL: enrollment (POST /token) completed
 * on the hosted card page with 3-D Secure, the read showing the new token and the card, vault
 * payments on both customer paths, storeInVault, and the token bound to its merchant and mode.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, startTestApp, suiteApp, type TestApp } from '../support/app.ts';
import { createMerchant, setVaultPaymentPath } from '../../src/merchants/merchants.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { sha256Hex } from '../../src/lib/tokens.ts';
import { card, csrfOf, openPage, playChallenge, postForm } from '../pages/flow.ts';
import { ATTEMPT_VISA, CHALLENGE_VISA, enroll, enrollmentBody, FAILING_VISA, FRICTIONLESS_VISA, RETURN_URL } from './enroll.ts';

for (const backend of backends) {
  describe(`vault (${backend})`, () => {
    const t = suiteApp(backend);
    const read = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();
    const createVaultPayment = async (token: string, overrides: Record<string, unknown> = {}) =>
      t.client.post('/payment', cardPayment({ returnUrl: RETURN_URL, details: { vaultAccessToken: token }, ...overrides }));

    test('an enrollment completed on the card page stores the card: success, scaToken, token and card in the read', async () => {
      const enrollment = await enroll(t);
      assert.equal(enrollment.status, 'success');
      assert.equal(enrollment.method, 'vault');
      assert.equal(enrollment.type, 'token');
      assert.equal(enrollment.amount, 0);
      assert.equal(enrollment.brand, 'visa');
      assert.match(enrollment.details.vaultAccessToken, /^vat_[0-9A-Za-z]{43}$/);
      assert.equal(enrollment.details.maskedPan, '400000******0200');
      assert.equal(enrollment.details.cardholderFirstName, 'Jo van');
      assert.equal(enrollment.details.cardholderLastName, 'Tester');
      assert.equal(enrollment.details.scaToken, true);
      const events = await eventsOf(t.store.read, enrollment.reference);
      assert.deepEqual(
        events.map((e) => `${e.from_status}>${e.to_status}/${e.cause}`),
        ['null>pending/created', 'pending>success/card_enrolled'],
      );
      const stored = await t.store.read.selectFrom('vault_cards').selectAll().where('enrollment_reference', '=', enrollment.reference).execute();
      assert.equal(stored.length, 1);
      assert.notEqual(stored[0].access_token_hash, enrollment.details.vaultAccessToken, 'only the hash of the token is in the vault');
    });

    test("an enrollment's outcome is announced by webhook like a payment's", async () => {
      const created = (await t.client.post('/token', enrollmentBody({ webhookUrl: 'https://shop.example/hooks' }))).json();
      const { path, csrf } = await openPage(t.app, created.payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: FRICTIONLESS_VISA }) });
      const deliveries = await t.store.read.selectFrom('webhook_deliveries').selectAll().where('reference', '=', created.reference).execute();
      assert.deepEqual(
        deliveries.map((d) => d.event),
        ['success'],
      );
    });

    test('an enrollment whose card asks for a challenge succeeds once the customer passes it', async () => {
      const enrollment = await enroll(t, CHALLENGE_VISA);
      assert.equal(enrollment.status, 'success');
      assert.equal(enrollment.details.scaToken, true);
      const row = await t.store.read.selectFrom('transactions').select('authentication').where('reference', '=', enrollment.reference).executeTakeFirstOrThrow();
      assert.equal(JSON.parse(row.authentication!).challenged, true);
    });

    test('an enrollment authenticated only by an attempt (A) stores the card with scaToken false', async () => {
      const enrollment = await enroll(t, ATTEMPT_VISA);
      assert.equal(enrollment.status, 'success');
      assert.equal(enrollment.details.scaToken, false);
    });

    test('an enrollment the issuer does not authenticate fails (rejected) and stores nothing', async () => {
      const enrollment = await enroll(t, FAILING_VISA);
      assert.deepEqual([enrollment.status, enrollment.failureCode], ['failed', 'rejected']);
      assert.equal(enrollment.details.vaultAccessToken, undefined);
      const stored = await t.store.read.selectFrom('vault_cards').selectAll().where('enrollment_reference', '=', enrollment.reference).execute();
      assert.equal(stored.length, 0);
    });

    test('a vault payment is created pending with brand, masked card, cardholder, payUrl and cancelUrl, and paid after the CVC (confirm path)', async () => {
      const { details } = await enroll(t);
      const created = await createVaultPayment(details.vaultAccessToken, { amount: '20.00' });
      assert.equal(created.statusCode, 200, created.body);
      const payment = created.json();
      assert.equal(payment.status, 'pending');
      assert.equal(payment.method, 'card');
      assert.equal(payment.brand, 'visa');
      assert.deepEqual(payment.details, { maskedPan: '400000******0200', cardholderFirstName: 'Jo van', cardholderLastName: 'Tester' });
      assert.match(payment.payUrl, /\/pay\//);
      assert.match(payment.cancelUrl, /\/api\/v1\/cancel\//);

      const { path, csrf, page } = await openPage(t.app, payment.payUrl);
      assert.match(page.body, /value="400000\*\*\*\*\*\*0200" readonly/);
      assert.match(page.body, /autocomplete="cc-csc"/);
      assert.doesNotMatch(page.body, /name="cardNumber"/, 'the card number is not asked again');
      const missing = await postForm(t.app, `${path}/vault`, { csrf, cvc: '' });
      assert.equal(missing.statusCode, 422);
      assert.match(missing.body, /Enter the security code/);
      const paid = await postForm(t.app, `${path}/vault`, { csrf, cvc: '123', js: '0' });
      assert.equal(paid.statusCode, 303, paid.body);
      assert.equal(paid.headers.location, RETURN_URL);
      const after = await read(payment.reference);
      assert.equal(after.status, 'success');
      assert.equal(after.brand, 'visa');
      assert.equal(
        JSON.parse(
          (await t.store.read.selectFrom('transactions').select('authentication').where('reference', '=', payment.reference).executeTakeFirstOrThrow()).authentication!,
        ).transStatus,
        'Y',
      );
    });

    test('a vault payment whose scenario asks for a challenge goes through the challenge pop-up', async () => {
      const { details } = await enroll(t);
      const payment = (await createVaultPayment(details.vaultAccessToken, { amount: '20.11' })).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const challenge = await postForm(t.app, `${path}/vault`, { csrf, cvc: '123' });
      assert.equal(challenge.statusCode, 200, challenge.body);
      assert.doesNotMatch(challenge.body, /4000000000000200/, 'the decrypted card number is sealed, not shown');
      const done = await playChallenge(t.app, path, challenge.body, '1234');
      assert.equal(done.statusCode, 303, done.body);
      assert.equal((await read(payment.reference)).status, 'success');
    });

    test('a vault payment declined by the issuer fails as a card payment does', async () => {
      const { details } = await enroll(t);
      const payment = (await createVaultPayment(details.vaultAccessToken, { amount: '20.21' })).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      await postForm(t.app, `${path}/vault`, { csrf, cvc: '123' });
      const after = await read(payment.reference);
      assert.deepEqual([after.status, after.failureCode], ['failed', 'card_refused']);
    });

    test("on the merchant's direct path the page has no card form, only a pay button", async () => {
      const other = await createMerchant(t.store, 'Direct Shop');
      await setVaultPaymentPath(t.store, other.merchantId, 'direct');
      const otherApp = { app: t.app, client: api(t.app, other.testApiKey) } as TestApp;
      const { details } = await enroll(otherApp);
      const payment = (await otherApp.client.post('/payment', cardPayment({ returnUrl: RETURN_URL, details: { vaultAccessToken: details.vaultAccessToken } }))).json();
      const { path, csrf, page } = await openPage(t.app, payment.payUrl);
      assert.doesNotMatch(page.body, /name="cvc"/);
      assert.doesNotMatch(page.body, /name="cardNumber"/);
      const paid = await postForm(t.app, `${path}/vault`, { csrf });
      assert.equal(paid.statusCode, 303, paid.body);
      assert.equal((await otherApp.client.get(`/transaction?reference=${payment.reference}`)).json().status, 'success');
    });

    test("an unknown token, another merchant's token and the other mode's token are 422 at /details/vaultAccessToken", async () => {
      const { details } = await enroll(t);
      const other = await createMerchant(t.store, 'Other Shop');
      const attempts = [
        await createVaultPayment('vat_unknown'),
        await t.client.post('/payment', cardPayment({ details: { vaultAccessToken: details.vaultAccessToken } }), { key: other.testApiKey }),
        await t.client.post('/payment', cardPayment({ details: { vaultAccessToken: details.vaultAccessToken } }), { key: t.merchant.liveApiKey }),
      ];
      for (const response of attempts) {
        assert.equal(response.statusCode, 422, response.body);
        assert.deepEqual(
          response.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
          [['/details/vaultAccessToken', 'unknown']],
        );
      }
    });

    test('a stored card of a brand the merchant no longer accepts is refused at /details/vaultAccessToken', async () => {
      const other = await createMerchant(t.store, 'Brand Shop');
      const otherApp = { app: t.app, client: api(t.app, other.testApiKey) } as TestApp;
      const { details } = await enroll(otherApp);
      const settings = { methods: ['card'], cardBrands: ['mastercard'], vaultPaymentPath: 'confirm' };
      await t.store.transact((db) =>
        db
          .updateTable('merchants')
          .set({ settings: JSON.stringify(settings) })
          .where('id', '=', other.merchantId)
          .execute(),
      );
      const refused = await otherApp.client.post('/payment', cardPayment({ returnUrl: RETURN_URL, details: { vaultAccessToken: details.vaultAccessToken } }));
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(
        refused.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/details/vaultAccessToken', 'brand_not_accepted']],
      );
    });

    test('a stored card past its expiry month is refused on creation at /details/vaultAccessToken', async () => {
      const { details } = await enroll(t);
      await t.store.transact((db) =>
        db.updateTable('vault_cards').set({ expiry_month: 1, expiry_year: 2020 }).where('access_token_hash', '=', sha256Hex(details.vaultAccessToken)).execute(),
      );
      const refused = await createVaultPayment(details.vaultAccessToken);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(
        refused.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/details/vaultAccessToken', 'card_expired']],
      );
    });

    test('storeInVault: yes stores the card of a successful card payment; its token pays again', async () => {
      const created = (await t.client.post('/payment', cardPayment({ returnUrl: RETURN_URL, storeInVault: 'yes' }))).json();
      const { path, csrf } = await openPage(t.app, created.payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '5555 5555 5555 4444', holderName: 'Ann Smith' }) });
      const paid = await read(created.reference);
      assert.equal(paid.status, 'success');
      assert.match(paid.details.vaultAccessToken, /^vat_/);
      assert.equal(paid.details.maskedPan, '555555******4444');
      const again = await createVaultPayment(paid.details.vaultAccessToken);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().brand, 'mastercard');
    });

    test('a declined storeInVault payment stores nothing', async () => {
      const created = (await t.client.post('/payment', cardPayment({ returnUrl: RETURN_URL, storeInVault: 'yes', amount: '10.21' }))).json();
      const { path, csrf } = await openPage(t.app, created.payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal((await read(created.reference)).details.vaultAccessToken, undefined);
      assert.equal((await t.store.read.selectFrom('vault_cards').selectAll().where('enrollment_reference', '=', created.reference).execute()).length, 0);
    });

    test('the vault holds no card number or CVC in clear', async () => {
      const pan = '4012888888881881';
      const created = await t.client.post('/token', enrollmentBody());
      const { path, csrf } = await openPage(t.app, created.json().payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: pan, cvc: '987' }) });
      const { details } = await read(created.json().reference);
      const payment = (await createVaultPayment(details.vaultAccessToken)).json();
      const page = await openPage(t.app, payment.payUrl);
      await postForm(t.app, `${page.path}/vault`, { csrf: csrfOf(page.page.body), cvc: '987' });
      assert.equal((await read(payment.reference)).status, 'success');
      const dump = JSON.stringify(await t.store.read.selectFrom('vault_cards').selectAll().execute());
      assert.ok(!dump.includes(pan) && !dump.includes('888888881881'), 'vault_cards holds no card number');
      assert.ok(!dump.includes('"987"') && !/\bcvc\b/i.test(dump), 'vault_cards holds no CVC');
    });
  });
}

if (backends.includes('postgres')) {
  test('with DATABASE_URL and no VAULT_KEY, vault operations are refused with 503', async () => {
    const t = await startTestApp('postgres', { VAULT_KEY: '' });
    try {
      const enrollment = await t.client.post('/token', enrollmentBody());
      assert.equal(enrollment.statusCode, 503);
      assert.match(enrollment.json().detail, /VAULT_KEY/);
      assert.equal((await t.client.post('/payment', cardPayment({ details: { vaultAccessToken: 'vat_x' } }))).statusCode, 503);
      assert.equal((await t.client.post('/payment', cardPayment({ storeInVault: 'yes' }))).statusCode, 503);
      assert.equal((await t.client.post('/payment', cardPayment())).statusCode, 200, 'payments without the vault still work');
    } finally {
      await t.close();
    }
  });
}
