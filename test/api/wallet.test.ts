/**
 * The wallet flows through the merchant API and the hosted page, on every backend: the
 * direct flow (token on creation), the hybrid flow (merchant session, token posted to
 * cardDataUrl), and the hosted flow's test wallet sheet. Tokens are real EC_v1 tokens
 * minted with Kassa's test PKI, so verification and decryption run for real.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, basic, cardPayment, startTestApp, suiteApp } from '../support/app.ts';
import { openPage, postForm } from '../pages/flow.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { mintTestWalletToken, type WalletPaymentToken } from '../../src/wallet/index.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';

const VALIDATION_URL = 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession';

const testToken = (amountMinor: number, overrides: { currencyNumeric?: string; network?: string; pan?: string } = {}, signedAt?: Date) =>
  mintTestWalletToken(
    {
      pan: overrides.pan ?? '4111111111111111',
      expiry: '301231',
      amountMinor,
      currencyNumeric: overrides.currencyNumeric ?? '978',
      cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=',
      eci: '05',
      network: overrides.network ?? 'Visa',
      displayName: 'Visa 1111',
      type: 'debit',
    },
    signedAt,
  );

/** The customer's browser as the merchant's checkout saw it: required when the merchant's page takes the payment (docs/api.md#browser-data). */
const { browserInfo } = exampleThreeDSRequest();

const directPayment = (amount: string, token: WalletPaymentToken, overrides: Record<string, unknown> = {}) => ({
  amount,
  currency: 'EUR',
  method: 'walletpay',
  details: { walletPayEncryptedToken: token },
  browserInfo,
  ...overrides,
});

const hybridPayment = (details: Record<string, unknown>) => ({ amount: '25.00', currency: 'EUR', method: 'walletpay', details, browserInfo });

for (const backend of backends) {
  describe(`wallet flows on ${backend}`, () => {
    const t = suiteApp(backend);

    /** Reads the payment until it leaves pending (the wallet flows pay after answering). */
    async function settled(reference: string, withinMs = 10_000) {
      const until = Date.now() + withinMs;
      for (;;) {
        const payment = (await t.client.get(`/transaction?reference=${reference}`)).json();
        if (payment.status !== 'pending' || Date.now() > until) return payment;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    test('direct flow: the token is checked on creation, the payment is pending, then paid', async () => {
      const res = await t.client.post('/payment', directPayment('10.00', await testToken(1000)));
      assert.equal(res.statusCode, 200, res.body);
      const created = res.json();
      assert.equal(created.status, 'pending');
      assert.equal(created.method, 'walletpay');
      assert.equal(created.cardDataUrl, undefined);
      assert.deepEqual(created.details, {});
      const paid = await settled(created.reference);
      assert.equal(paid.status, 'success');
      assert.equal(paid.brand, 'visa');
      assert.ok(!JSON.stringify(paid).includes('4111111111111111'), 'the device card number is never shown');
    });

    test('direct flow: the scenario cents decide, and .41 reaches its final state only after 2 s', async () => {
      const refused = (await t.client.post('/payment', directPayment('10.21', await testToken(1021)))).json();
      assert.equal((await settled(refused.reference)).failureCode, 'card_refused');
      const started = Date.now();
      const slow = (await t.client.post('/payment', directPayment('10.41', await testToken(1041)))).json();
      assert.equal((await t.client.get(`/transaction?reference=${slow.reference}`)).json().status, 'pending');
      const final = await settled(slow.reference);
      assert.equal(final.status, 'success');
      assert.ok(Date.now() - started >= 2000, 'final only after the 2 s of the scenario');
    });

    test('direct flow: a token pays once; a replayed creation does not pay twice', async () => {
      const token = await testToken(1500);
      const first = await t.client.post('/payment', directPayment('15.00', token), { headers: { 'idempotency-reference': `wallet-${backend}` } });
      assert.equal(first.statusCode, 200);
      const replay = await t.client.post('/payment', directPayment('15.00', token), { headers: { 'idempotency-reference': `wallet-${backend}` } });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().reference, first.json().reference);
      const reused = await t.client.post('/payment', directPayment('15.00', token));
      assert.equal(reused.statusCode, 422);
      assert.deepEqual(
        reused.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/details/walletPayEncryptedToken', 'token_used']],
      );
      assert.equal((await settled(first.json().reference)).status, 'success');
      const racing = await testToken(1600);
      const both = await Promise.all([t.client.post('/payment', directPayment('16.00', racing)), t.client.post('/payment', directPayment('16.00', racing))]);
      assert.deepEqual(both.map((r) => r.statusCode).sort(), [200, 422], 'one token, two creations at once: one payment');
    });

    test('direct flow: a token that does not match, verify or parse is a 422 naming the field', async () => {
      const codeOf = async (body: unknown) => {
        const res = await t.client.post('/payment', body);
        assert.equal(res.statusCode, 422, res.body);
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        return res.json().errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`);
      };
      assert.deepEqual(await codeOf(directPayment('10.00', await testToken(999))), ['/details/walletPayEncryptedToken amount_mismatch']);
      assert.deepEqual(await codeOf(directPayment('10.00', await testToken(1000, { currencyNumeric: '840' }))), ['/details/walletPayEncryptedToken currency_mismatch']);
      const stale = await testToken(1000, {}, new Date(Date.now() - 3600_000));
      assert.deepEqual(await codeOf(directPayment('10.00', stale)), ['/details/walletPayEncryptedToken token_stale']);
      const tampered = await testToken(1000);
      const data = Buffer.from(tampered.paymentData.data, 'base64');
      data[5] ^= 1;
      tampered.paymentData.data = data.toString('base64');
      assert.deepEqual(await codeOf(directPayment('10.00', tampered)), ['/details/walletPayEncryptedToken token_signature']);
      const errors = await codeOf(directPayment('10.00', { paymentData: { version: 'EC_v1', header: {} } } as unknown as WalletPaymentToken));
      assert.ok(errors.length >= 3, errors.join());
      assert.ok(
        errors.every((e: string) => e.startsWith('/details/walletPayEncryptedToken/paymentData/')),
        errors.join(),
      );
    });

    test('a stopping server finishes the wallet payments it accepted before its store closes', async () => {
      const own = await startTestApp(backend);
      try {
        const created = (await own.client.post('/payment', directPayment('10.41', await testToken(1041)))).json();
        assert.equal(created.status, 'pending');
        await own.app.close();
        const row = await own.store.read.selectFrom('transactions').select('status').where('reference', '=', created.reference).executeTakeFirstOrThrow();
        assert.equal(row.status, 'success');
      } finally {
        await own.store.close();
        await own.database.drop();
      }
    });

    test('a live key with a wallet token needs the live wallet keys and an acquirer: 503, nothing stored', async () => {
      const res = await t.client.post('/payment', directPayment('10.00', await testToken(1000)), { key: t.merchant.liveApiKey });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    });

    test('hybrid flow: the merchant session comes back with cardDataUrl and cancelUrl; the posted token pays', async () => {
      const res = await t.client.post('/payment', hybridPayment({ walletPayValidationUrl: VALIDATION_URL, walletPayDomainName: 'Shop.Example' }));
      assert.equal(res.statusCode, 200, res.body);
      const created = res.json();
      const session = JSON.parse(created.details.walletPayPaymentSession);
      assert.equal(session.domainName, 'shop.example');
      assert.equal(session.displayName, 'Test Shop');
      assert.ok(session.expiresAt > session.epochTimestamp);
      assert.match(created.cardDataUrl, /^http:\/\/kassa\.test\/api\/v1\/card-data\/[0-9A-Za-z]{51}$/);
      assert.ok(created.cancelUrl);
      const intake = new URL(created.cardDataUrl).pathname;
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        t.app.inject({ method: 'POST', url: intake, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });

      const missing = await post({});
      assert.equal(missing.statusCode, 422);
      assert.equal(missing.json().errors[0].field, '/encryptedToken');
      const wrongAmount = await post({ encryptedToken: await testToken(2400) });
      assert.equal(wrongAmount.json().errors[0].code, 'amount_mismatch');
      const other = await createMerchant(t.store, 'Intruder');
      assert.equal((await post({ encryptedToken: await testToken(2500) }, { authorization: basic(other.testApiKey) })).statusCode, 404);

      const token = await testToken(2500);
      const accepted = await post({ encryptedToken: token }, { authorization: basic(t.merchant.testApiKey) });
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().reference, created.reference);
      assert.equal((await settled(created.reference)).status, 'success');
      assert.equal((await post({ encryptedToken: await testToken(2500) })).statusCode, 409, 'a final payment takes no token');
    });

    test('hybrid flow: of two tokens posted at once for one payment exactly one is accepted; the same token twice is a retry', async () => {
      const intakeOf = async () => {
        const created = (await t.client.post('/payment', hybridPayment({ walletPayValidationUrl: VALIDATION_URL, walletPayDomainName: 'shop.example' }))).json();
        const url = new URL(created.cardDataUrl).pathname;
        const post = (token: WalletPaymentToken) =>
          t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ encryptedToken: token }) });
        return { created, post };
      };
      const race = await intakeOf();
      const answers = await Promise.all([race.post(await testToken(2500)), race.post(await testToken(2500))]);
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409], answers.map((a) => a.body).join('\n'));
      assert.equal((await settled(race.created.reference)).status, 'success');

      const retry = await intakeOf();
      const token = await testToken(2500);
      const twice = await Promise.all([retry.post(token), retry.post(token)]);
      assert.deepEqual(
        twice.map((a) => a.statusCode),
        [200, 200],
      );
      assert.equal((await settled(retry.created.reference)).status, 'success');
      const events = await t.store.read.selectFrom('transaction_events').select('to_status').where('reference', '=', retry.created.reference).execute();
      assert.equal(events.filter((e) => e.to_status === 'success').length, 1);
    });

    test('hybrid flow: validation URL and domain are checked before any request; cancelUrl cancels', async () => {
      const res = await t.client.post('/payment', hybridPayment({ walletPayValidationUrl: 'https://evil.example/startSession' }));
      assert.equal(res.statusCode, 422);
      assert.deepEqual(
        res
          .json()
          .errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`)
          .sort(),
        ['/details/walletPayDomainName conditional_required', '/details/walletPayValidationUrl not_allowed'],
      );
      const created = (await t.client.post('/payment', hybridPayment({ walletPayValidationUrl: VALIDATION_URL, walletPayDomainName: 'shop.example' }))).json();
      const cancelled = await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname });
      assert.equal(cancelled.json().failureCode, 'cancelled');
      const card = (await t.client.post('/payment', cardPayment())).json();
      const notWallet = await t.app.inject({
        method: 'POST',
        url: `/api/v1/card-data/${new URL(card.payUrl).pathname.split('/').pop()}`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(notWallet.statusCode, 404);
    });

    test('hosted flow: the test wallet sheet pays and returns the customer to returnUrl', async () => {
      const created = (await t.client.post('/payment', cardPayment({ method: 'walletpay', amount: '12.00' }))).json();
      const { path, csrf, page } = await openPage(t.app, created.payUrl);
      assert.match(page.body, new RegExp(`action="${path}/wallet"`));
      const paid = await postForm(t.app, `${path}/wallet`, { csrf });
      assert.equal(paid.statusCode, 303, paid.body);
      assert.equal(paid.headers.location, 'https://shop.example/return');
      const payment = (await t.client.get(`/transaction?reference=${created.reference}`)).json();
      assert.equal(payment.status, 'success');
      assert.equal(payment.brand, 'visa');
      const again = await postForm(t.app, `${path}/wallet`, { csrf });
      assert.equal(again.statusCode, 303, 'a final payment is not paid twice');
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).json().lastUpdate, payment.lastUpdate);
    });

    test('landing page: in test mode the customer may choose the wallet', async () => {
      const created = (await t.client.post('/payment', cardPayment({ method: 'landingpage', amount: '13.00' }))).json();
      const { path, csrf, page } = await openPage(t.app, created.payUrl);
      assert.match(page.body, /value="walletpay"/);
      assert.equal((await postForm(t.app, `${path}/method`, { csrf, method: 'walletpay' })).statusCode, 303);
      const walletPage = await t.app.inject({ method: 'GET', url: path });
      assert.match(walletPage.body, new RegExp(`action="${path}/wallet"`));
      assert.equal((await postForm(t.app, `${path}/wallet`, { csrf })).statusCode, 303);
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).json().status, 'success');
    });
  });
}
