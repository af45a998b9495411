/** Creating and reading payments through the merchant API, on every backend. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, basic, cardPayment, suiteApp } from '../support/app.ts';
import { changePaymentMethods, createMerchant } from '../../src/merchants/merchants.ts';
import { startKassaProcess, waitForExit } from '../support/process.ts';

for (const backend of backends) {
  describe(`payments API on ${backend}`, () => {
    const t = suiteApp(backend);

    test('a card payment is created pending with exactly the fields of the payment object', async () => {
      const res = await t.client.post(
        '/payment',
        cardPayment({
          amount: '10.50',
          merchantOrderReference: 'order-1',
          description: 'Two mugs',
          metadata: 'cart=7',
          language: 'nld',
          billingCity: 'Amsterdam',
          billingCountry: 'NL',
          billingPostalCode: '1011AB',
        }),
      );
      assert.equal(res.statusCode, 200);
      const p = res.json();
      assert.deepEqual(Object.keys(p).sort(), [
        'amount',
        'billingCity',
        'billingCountry',
        'billingPostalCode',
        'cancelUrl',
        'created',
        'currency',
        'description',
        'details',
        'entryMode',
        'language',
        'lastUpdate',
        'merchantOrderReference',
        'metadata',
        'method',
        'paidout',
        'payUrl',
        'reference',
        'returnUrl',
        'status',
        'type',
      ]);
      assert.equal(p.status, 'pending');
      assert.equal(p.type, 'sale');
      assert.equal(p.method, 'card');
      assert.equal(p.amount, 10.5);
      assert.equal(p.currency, 'eur');
      assert.equal(p.language, 'nld');
      assert.equal(p.paidout, 'no');
      assert.equal(p.entryMode, 'ecom');
      assert.deepEqual(p.details, {});
      assert.equal(typeof p.created, 'number');
      assert.equal(p.created, p.lastUpdate);
      assert.ok(Math.abs(p.created - Date.now()) < 60_000);
      assert.match(p.payUrl, /^http:\/\/kassa\.test\/pay\/[0-9A-Za-z]{51}$/);
      assert.equal(p.cancelUrl, p.payUrl.replace('/pay/', '/api/v1/cancel/'));
      assert.ok(!p.payUrl.includes(p.reference), 'payUrl must not carry the guessable reference');
    });

    test('amounts arrive as numbers or numeric strings and are exact in minor units', async () => {
      const cases: [unknown, string, number][] = [
        ['10.50', 'EUR', 10.5],
        [10.5, 'eur', 10.5],
        ['0.01', 'EUR', 0.01],
        [1999.99, 'USD', 1999.99],
        ['1000', 'JPY', 1000],
        ['1.234', 'BHD', 1.234],
        ['0.10', 'EUR', 0.1],
        ['12', 'EUR', 12],
        ['12.000', 'EUR', 12],
      ];
      for (const [amount, currency, expected] of cases) {
        const res = await t.client.post('/payment', cardPayment({ amount, currency }));
        assert.equal(res.statusCode, 200, `${amount} ${currency}: ${res.body}`);
        assert.equal(res.json().amount, expected);
        assert.equal(res.json().currency, currency.toLowerCase());
      }
    });

    test('bad amounts and currencies are 422 naming the field', async () => {
      const cases: [unknown, string, string, string][] = [
        ['10.123', 'EUR', '/amount', 'decimals'],
        ['100.5', 'JPY', '/amount', 'decimals'],
        ['0', 'EUR', '/amount', 'range'],
        [0, 'EUR', '/amount', 'range'],
        ['-1', 'EUR', '/amount', 'format'],
        [-5, 'EUR', '/amount', 'format'],
        ['abc', 'EUR', '/amount', 'format'],
        ['1e3', 'EUR', '/amount', 'format'],
        [true, 'EUR', '/amount', 'type'],
        ['10.00', 'EURO', '/currency', 'format'],
        ['10.00', 'XYZ', '/currency', 'enum'],
        ['10.00', '', '/currency', 'required'],
        ['', 'EUR', '/amount', 'required'],
        ['99999999999999999', 'EUR', '/amount', 'range'],
      ];
      for (const [amount, currency, field, code] of cases) {
        const res = await t.client.post('/payment', cardPayment({ amount, currency }));
        assert.equal(res.statusCode, 422, `${amount} ${currency}`);
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.deepEqual(
          res.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
          [[field, code]],
          `${amount} ${currency}`,
        );
      }
    });

    test('every failing field is listed at once', async () => {
      const res = await t.client.post('/payment', { amount: 'x', currency: 'EU', method: 'cash', language: 'english', returnUrl: 'javascript:alert(1)' });
      assert.equal(res.statusCode, 422);
      const body = res.json();
      assert.equal(body.status, 422);
      assert.equal(body.title, 'Validation failed');
      assert.deepEqual(body.errors.map((e: { field: string }) => e.field).sort(), ['/amount', '/currency', '/language', '/method', '/returnUrl']);
      for (const e of body.errors) assert.ok(e.message.length > 3);
    });

    test('returnUrl is required for redirect flows and is an http(s) URL', async () => {
      const missing = await t.client.post('/payment', cardPayment({ returnUrl: undefined }));
      assert.equal(missing.statusCode, 422);
      assert.equal(missing.json().errors[0].field, '/returnUrl');
      assert.equal(missing.json().errors[0].code, 'required');
      const res = await t.client.post('/payment', cardPayment({ returnUrl: 'https://shop.example/r?x=1#y' }));
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().returnUrl, 'https://shop.example/r?x=1#y', 'returnUrl is kept unchanged');
      const refused = ['/relative', 'data:text/html,x', 'http://', 'not a url', 'myshop://checkout/done'];
      const schemes = ['javascript:alert(1)', 'intent://scan/#Intent;scheme=zxing;end', 'x-javascript:alert(1)', 'ms-settings:privacy'];
      for (const returnUrl of [...refused, ...schemes]) {
        for (const [url, body] of [
          ['/payment', cardPayment({ returnUrl })],
          ['/token', { dataType: 'card', returnUrl }],
        ] as const) {
          const res = await t.client.post(url, body);
          assert.equal(res.statusCode, 422, `${url} ${returnUrl}`);
          assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
          assert.deepEqual(
            res.json().errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`),
            ['/returnUrl format'],
            `${url} ${returnUrl}`,
          );
        }
      }
    });

    describe('with RETURN_URL_SCHEMES', () => {
      const withApps = suiteApp(backend, { RETURN_URL_SCHEMES: 'myshop, com.shop.app' });

      test('a returnUrl may be a deep link of a scheme the operator allows, and still no other', async () => {
        for (const returnUrl of ['myshop://checkout/done?order=1', 'com.shop.app:/callback']) {
          const res = await withApps.client.post('/payment', cardPayment({ returnUrl }));
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().returnUrl, returnUrl, 'returnUrl is kept unchanged');
        }
        for (const returnUrl of ['intent://x#Intent;end', 'javascript:alert(1)', 'othershop://done']) {
          const res = await withApps.client.post('/payment', cardPayment({ returnUrl }));
          assert.equal(res.statusCode, 422, returnUrl);
          assert.match(res.json().errors[0].message, /myshop:, com\.shop\.app:/);
        }
      });
    });

    test('language is an ISO 639-2/T code, case-insensitive, eng by default', async () => {
      assert.equal((await t.client.post('/payment', cardPayment())).json().language, 'eng');
      assert.equal((await t.client.post('/payment', cardPayment({ language: 'NLD' }))).json().language, 'nld');
      assert.equal((await t.client.post('/payment', cardPayment({ language: 'deu' }))).json().language, 'deu');
      const bibliographic = await t.client.post('/payment', cardPayment({ language: 'ger' }));
      assert.equal(bibliographic.statusCode, 422);
      assert.match(bibliographic.json().errors[0].message, /deu/);
      assert.equal((await t.client.post('/payment', cardPayment({ language: 'en' }))).statusCode, 422);
    });

    test('empty optional strings from existing clients mean absent', async () => {
      const res = await t.client.post('/payment', cardPayment({ metadata: '', description: '', merchantOrderReference: '', language: '', brand: '', webhookUrl: '' }));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().metadata, undefined);
      assert.equal(res.json().language, 'eng');
    });

    test('a landing page payment has details.expirationDuration and no cancelUrl', async () => {
      const res = await t.client.post('/payment', cardPayment({ method: 'landingpage' }));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().details, { expirationDuration: 'PT15M' });
      assert.equal(res.json().cancelUrl, undefined);
      const custom = await t.client.post('/payment', cardPayment({ method: 'landingpage', details: { expirationDuration: 'PT30M' } }));
      assert.deepEqual(custom.json().details, { expirationDuration: 'PT30M' });
      const bad = await t.client.post('/payment', cardPayment({ method: 'landingpage', details: { expirationDuration: 'soon' } }));
      assert.equal(bad.json().errors[0].field, '/details/expirationDuration');
    });

    test('a hosted wallet payment is created; authorise is card-only', async () => {
      const wallet = await t.client.post('/payment', cardPayment({ method: 'walletpay' }));
      assert.equal(wallet.statusCode, 200);
      assert.equal(wallet.json().method, 'walletpay');
      assert.equal(wallet.json().cancelUrl, undefined);
      const authorise = await t.client.post('/payment', cardPayment({ transactionType: 'authorise' }));
      assert.equal(authorise.json().type, 'authorise');
      const walletAuthorise = await t.client.post('/payment', cardPayment({ method: 'walletpay', type: 'authorise' }));
      assert.equal(walletAuthorise.statusCode, 422);
      assert.equal(walletAuthorise.json().errors[0].field, '/type');
    });

    test('an unknown vault access token is 422 on the token field', async () => {
      const res = await t.client.post('/payment', cardPayment({ details: { vaultAccessToken: 'vat_nothing' } }));
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().errors[0].field, '/details/vaultAccessToken');
    });

    test('unknown top-level fields are ignored and not echoed', async () => {
      const res = await t.client.post('/payment', cardPayment({ somethingNew: 'x', billingCity: 'Utrecht' }));
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().somethingNew, undefined);
      assert.equal(res.json().billingCity, 'Utrecht');
    });

    test('reading a transaction returns the current payment object', async () => {
      const created = (await t.client.post('/payment', cardPayment({ billingCountry: 'NL' }))).json();
      const read = await t.client.get(`/transaction?reference=${created.reference}`);
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json(), created);
    });

    test('a read after a change made elsewhere shows the change (payment objects are cached per row version)', async () => {
      const created = (await t.client.post('/payment', cardPayment())).json();
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).json().status, 'pending');
      // Another Kassa process on the same database cancels it.
      const { buildServer } = await import('../../src/server.ts');
      const other = await buildServer(t.config, t.store, { logger: false });
      try {
        await other.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname });
      } finally {
        await other.close();
      }
      const read = (await t.client.get(`/transaction?reference=${created.reference}`)).json();
      assert.equal(read.status, 'failed');
      assert.equal(read.failureCode, 'cancelled');
      assert.ok(read.lastUpdate >= created.lastUpdate);
    });

    test('a read after another Kassa process changed the payment shows the change at once', async () => {
      const created = (await t.client.post('/payment', cardPayment())).json();
      // Read twice: the second answer comes from this process's cache.
      for (let i = 0; i < 2; i++) assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).json().status, 'pending');
      const other = await startKassaProcess({ ...t.database.env, HTTP_PROCESSES: '1' });
      try {
        const cancelled = await fetch(new URL(new URL(created.cancelUrl).pathname, other.baseUrl), { method: 'POST', redirect: 'manual' });
        assert.ok(cancelled.status < 400, `the other process cancels: ${cancelled.status}`);
      } finally {
        other.child.kill('SIGTERM');
        await waitForExit(other.child);
      }
      const read = (await t.client.get(`/transaction?reference=${created.reference}`)).json();
      assert.equal(read.status, 'failed');
      assert.equal(read.failureCode, 'cancelled');
    });

    test('a payment read from the cache is still shown to its owner only: not to another merchant, not to the other mode', async () => {
      // Made first: nothing is committed between the owner's reads and the others'.
      const stranger = await createMerchant(t.store, 'Stranger');
      const created = (await t.client.post('/payment', cardPayment())).json();
      for (let i = 0; i < 2; i++) assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).statusCode, 200);
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`, { key: stranger.testApiKey })).statusCode, 404);
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`, { key: t.merchant.liveApiKey })).statusCode, 404);
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).json().reference, created.reference);
    });

    test('references=a,b returns an array in the order asked, leaving out unknown ones', async () => {
      const a = (await t.client.post('/payment', cardPayment())).json();
      const b = (await t.client.post('/payment', cardPayment({ amount: '2.00' }))).json();
      const res = await t.client.get(`/transaction?references=${b.reference},nope,${a.reference}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        res.json().map((p: { reference: string }) => p.reference),
        [b.reference, a.reference],
      );
      const tooMany = await t.client.get(`/transaction?references=${Array.from({ length: 51 }, (_, i) => `r${i}`).join(',')}`);
      assert.equal(tooMany.statusCode, 422);
      const neither = await t.client.get('/transaction');
      assert.equal(neither.statusCode, 422);
    });

    test("an unknown reference, another merchant's and the other mode's are all 404", async () => {
      const mine = (await t.client.post('/payment', cardPayment())).json();
      assert.equal((await t.client.get('/transaction?reference=tr_doesnotexist')).statusCode, 404);
      const other = await createMerchant(t.store, 'Other Shop');
      const otherRead = await t.client.get(`/transaction?reference=${mine.reference}`, { key: other.testApiKey });
      assert.equal(otherRead.statusCode, 404);
      assert.equal(otherRead.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal((await t.client.get(`/transaction?reference=${mine.reference}`, { key: t.merchant.liveApiKey })).statusCode, 404);
      const otherList = await t.client.get(`/transaction?references=${mine.reference}`, { key: other.testApiKey });
      assert.deepEqual(otherList.json(), []);
    });

    test('GET /method lists enabled methods with card brands as options', async () => {
      const res = await t.client.get('/method');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), [
        { method: 'card', options: ['visa', 'mastercard', 'amex', 'maestro', 'bcmc'].map((brand) => ({ brand })) },
        { method: 'landingpage' },
        { method: 'walletpay' },
        { method: 'ideal' },
        { method: 'paypal' },
        { method: 'klarna' },
        { method: 'banktransfer' },
      ]);
    });

    test('a new merchant accepts card, landingpage and walletpay: GET /method lists them, in both modes', async () => {
      const shop = await createMerchant(t.store, 'New Shop');
      for (const key of [shop.testApiKey, shop.liveApiKey]) {
        const listed = await t.client.get('/method', { key });
        assert.deepEqual(
          listed.json().map((m: { method: string }) => m.method),
          ['card', 'landingpage', 'walletpay'],
          key.slice(0, 5),
        );
      }
    });

    test('a method the merchant has not enabled is refused at POST /payment with a problem naming /method, and GET /method leaves it out', async () => {
      const shop = await createMerchant(t.store, 'Card Only Shop');
      await changePaymentMethods(t.store, shop.merchantId, { disable: ['walletpay', 'landingpage'] });
      const hostedWallet = { method: 'walletpay', amount: '10.00', currency: 'EUR', returnUrl: 'https://shop.example/return' };
      for (const key of [shop.testApiKey, shop.liveApiKey]) {
        for (const body of [hostedWallet, { ...hostedWallet, method: 'landingpage' }]) {
          const refused = await t.client.post('/payment', body, { key });
          assert.equal(refused.statusCode, 422, `${key.slice(0, 5)} ${body.method}`);
          assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8');
          const problem = refused.json();
          assert.equal(problem.status, 422);
          assert.equal(problem.title, 'Validation failed');
          assert.deepEqual(problem.errors, [{ field: '/method', code: 'not_enabled', message: `${body.method} is not enabled for this merchant` }]);
        }
        assert.deepEqual(
          (await t.client.get('/method', { key })).json().map((m: { method: string }) => m.method),
          ['card'],
        );
        assert.equal((await t.client.post('/payment', cardPayment(), { key })).statusCode, 200, 'card still accepted');
      }

      await changePaymentMethods(t.store, shop.merchantId, { enable: ['walletpay'], disable: ['card'] });
      assert.deepEqual(
        (await t.client.get('/method', { key: shop.testApiKey })).json(),
        [{ method: 'walletpay' }],
        'enabled again, and card off: its brands are no longer listed',
      );
      assert.equal((await t.client.post('/payment', hostedWallet, { key: shop.testApiKey })).statusCode, 200);
      const card = await t.client.post('/payment', cardPayment(), { key: shop.testApiKey });
      assert.deepEqual(card.json().errors, [{ field: '/method', code: 'not_enabled', message: 'card is not enabled for this merchant' }]);

      await changePaymentMethods(t.store, shop.merchantId, { disable: ['walletpay'] });
      assert.deepEqual((await t.client.get('/method', { key: shop.liveApiKey })).json(), [], 'a merchant with no method enabled lists none');
    });

    test('a live payment refuses a webhookUrl that is not https or points at a private address', async () => {
      for (const webhookUrl of ['http://shop.example/hook', 'https://127.0.0.1/hook', 'https://10.0.0.8/hook', 'https://[::1]/hook']) {
        const res = await t.client.post('/payment', cardPayment({ webhookUrl }), { key: t.merchant.liveApiKey });
        assert.equal(res.statusCode, 422, webhookUrl);
        assert.equal(res.json().errors[0].field, '/webhookUrl');
      }
      assert.equal((await t.client.post('/payment', cardPayment({ webhookUrl: 'https://shop.example/hook' }), { key: t.merchant.liveApiKey })).statusCode, 200);
      assert.equal((await t.client.post('/payment', cardPayment({ webhookUrl: 'http://127.0.0.1:9000/hook' }))).statusCode, 200, 'test mode allows local receivers');
    });

    test('a test payment refuses a webhookUrl at a link-local or cloud-metadata address', async () => {
      for (const webhookUrl of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/hook', 'http://100.100.100.200/latest/meta-data/', 'http://0.0.0.0:80/']) {
        const res = await t.client.post('/payment', cardPayment({ webhookUrl }));
        assert.equal(res.statusCode, 422, webhookUrl);
        assert.equal(res.json().errors[0].field, '/webhookUrl');
      }
      assert.equal(
        (await t.client.post('/payment', cardPayment({ webhookUrl: 'http://10.0.0.8:9000/hook' }))).statusCode,
        200,
        'private networks, as the default allows',
      );
    });

    test('live keys create live payments that test keys cannot see', async () => {
      const live = await t.client.post('/payment', cardPayment(), { key: t.merchant.liveApiKey });
      assert.equal(live.statusCode, 200);
      assert.equal((await t.client.get(`/transaction?reference=${live.json().reference}`)).statusCode, 404);
      assert.equal((await t.client.get(`/transaction?reference=${live.json().reference}`, { key: t.merchant.liveApiKey })).statusCode, 200);
    });

    test('cancelUrl cancels a pending payment once and is idempotent', async () => {
      const p = (await t.client.post('/payment', cardPayment())).json();
      const path = new URL(p.cancelUrl).pathname;
      const first = await t.app.inject({ method: 'POST', url: path });
      assert.equal(first.statusCode, 200);
      assert.equal(first.json().status, 'failed');
      assert.equal(first.json().failureCode, 'cancelled');
      const again = await t.app.inject({ method: 'POST', url: path });
      assert.equal(again.json().status, 'failed');
      assert.equal(again.json().lastUpdate, first.json().lastUpdate);
      const other = await createMerchant(t.store, 'Intruder');
      const foreign = await t.app.inject({ method: 'POST', url: path, headers: { authorization: basic(other.testApiKey) } });
      assert.equal(foreign.statusCode, 404);
      assert.equal((await t.app.inject({ method: 'POST', url: '/api/v1/cancel/nothing' })).statusCode, 404);
    });
  });
}
