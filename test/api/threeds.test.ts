/** 3-D Secure 2 request data through POST /payment and POST /token, test and live keys, every backend. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, suiteApp } from '../support/app.ts';
import { fullCardPayment } from '../../bench/fixtures.ts';

const enrollment = (overrides: Record<string, unknown> = {}) => {
  const { amount, currency, method, sequenceInfo, browserInfo, threeds2RequestInfo, ...rest } = fullCardPayment;
  void amount;
  void currency;
  void method;
  void sequenceInfo;
  void browserInfo;
  return { ...rest, dataType: 'card', threeds2RequestInfo: { transactionType: threeds2RequestInfo.transactionType }, ...overrides };
};

for (const backend of backends) {
  describe(`3-D Secure 2 data through the API on ${backend}`, () => {
    const t = suiteApp(backend);

    for (const mode of ['test', 'live'] as const) {
      const key = () => (mode === 'test' ? t.merchant.testApiKey : t.merchant.liveApiKey);

      test(`a fully populated card payment is accepted and its billing fields echoed (${mode})`, async () => {
        const res = await t.client.post('/payment', fullCardPayment, { key: key() });
        assert.equal(res.statusCode, 200, res.body);
        const p = res.json();
        assert.equal(p.billingCity, 'Amsterdam');
        assert.equal(p.billingState, 'NH');
        assert.equal(p.billingPhoneNumber, '201234567');
        assert.equal(p.billingPhoneCountry, '31');
        assert.equal(p.accountInfo, undefined, 'nested 3DS objects are stored, not echoed');
      });

      test(`a fully populated vault enrollment is accepted as method vault, type token (${mode})`, async () => {
        const res = await t.client.post('/token', enrollment(), { key: key() });
        assert.equal(res.statusCode, 200, res.body);
        const p = res.json();
        assert.equal(p.method, 'vault');
        assert.equal(p.type, 'token');
        assert.equal(p.status, 'pending');
        assert.match(p.payUrl, /\/pay\//);
        assert.equal(p.billingCountry, 'NL');
        const read = await t.client.get(`/transaction?reference=${p.reference}`, { key: key() });
        assert.deepEqual(read.json(), p);
      });

      test(`invalid 3-D Secure 2 fields are all named, with the same rules (${mode})`, async () => {
        const body = {
          ...fullCardPayment,
          billingCountry: 'XX',
          billingAddress: 'x'.repeat(51),
          accountInfo: { ...fullCardPayment.accountInfo, accountCreationDate: '20230231', email: 'not-an-email' },
          merchantRiskIndicator: { ...fullCardPayment.merchantRiskIndicator, shippingIndicator: 'DIGITAL_GOODS' },
          browserInfo: { ...fullCardPayment.browserInfo, screenColorDepth: '30' },
          sequenceInfo: { type: 'RECURRING', mode: 'INITIAL', source: 'CIT', initialTransactionId: 'x' },
        };
        for (const route of ['/payment', '/token']) {
          const res = await t.client.post(route, route === '/token' ? { ...enrollment(), ...body, method: undefined } : body, { key: key() });
          assert.equal(res.statusCode, 422, route);
          const fields = res.json().errors.map((e: { field: string }) => e.field);
          for (const field of [
            '/billingCountry',
            '/billingAddress',
            '/accountInfo/accountCreationDate',
            '/accountInfo/email',
            '/merchantRiskIndicator/shippingIndicator',
          ]) {
            assert.ok(fields.includes(field), `${route}: ${field} in ${fields}`);
          }
          if (route === '/payment') {
            for (const field of ['/browserInfo/screenColorDepth', '/sequenceInfo/recurringExpiry', '/sequenceInfo/recurringFrequency'])
              assert.ok(fields.includes(field), field);
          }
        }
      });
    }

    test('scaReady yes makes the S fields required', async () => {
      const res = await t.client.post('/payment', { amount: '1.00', currency: 'EUR', method: 'card', returnUrl: 'https://s.example/r', scaReady: 'yes' });
      assert.equal(res.statusCode, 422);
      const required = res
        .json()
        .errors.filter((e: { code: string }) => e.code === 'required')
        .map((e: { field: string }) => e.field)
        .sort();
      assert.deepEqual(required, [
        '/billingAddress',
        '/billingCity',
        '/billingCountry',
        '/billingPhoneCountry',
        '/billingPhoneNumber',
        '/billingPostalCode',
        '/billingState',
      ]);
    });

    test('a combined international phone number is split and the split values echoed', async () => {
      const res = await t.client.post('/payment', {
        amount: '1.00',
        currency: 'EUR',
        method: 'card',
        returnUrl: 'https://s.example/r',
        billingPhoneNumber: '+31 20 123 4567',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().billingPhoneNumber, '201234567');
      assert.equal(res.json().billingPhoneCountry, '31');
    });

    test('an enrollment needs dataType card and a returnUrl', async () => {
      const res = await t.client.post('/token', { dataType: 'iban' });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(
        res
          .json()
          .errors.map((e: { field: string }) => e.field)
          .sort(),
        ['/dataType', '/returnUrl'],
      );
    });
  });
}
