/** 3-D Secure 2 request data through POST /payment and POST /token, test and live keys, every backend. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { fullCardPayment } from '../../bench/fixtures.ts';
import { recordedAReqs } from '../support/areqs.ts';

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

    // docs/interop.md: the body the official PHP client builds for a Dutch order, as its shop plugins fill it.
    const officialClientPayment = {
      amount: '25.00',
      currency: 'eur',
      method: 'landingpage',
      returnUrl: 'https://shop.example/return',
      language: 'nld',
      metadata: 'PHP:8.2;OS:Linux',
      scaReady: '1',
      billingAddress: 'Damrak',
      billingCity: 'Amsterdam',
      billingState: 'Noord-Holland',
      billingPostalCode: '1012 LG',
      billingCountry: 'NLD',
      billingHouseNumber: '1',
      billingPhoneNumber: '201234567',
      billingPhoneCountry: '31',
      shippingCountry: 'nld',
      shippingState: 'zh',
      transactionType: 'sale',
      accountInfo: { accountCreationDate: { date: '2020-01-02 00:00:00.000000', timezone_type: 3, timezone: 'Europe/Amsterdam' } },
      browser: {
        acceptHeaders: `text/html,application/xhtml+xml;q=0.9,${'x'.repeat(3000)}`,
        language: 'nl-NL,nl;q=0.9,en-US;q=0.8,en;q=0.7',
        ipAddress: '203.0.113.7, 10.0.0.1',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
      },
      details: { expirationDuration: 'P60D' },
      orderLines: [{ type: 'PHYSICAL', name: 'Mug', quantity: 2, unitPrice: 12.5, totalPrice: 25, vatRate: 21, vat: 4.34 }],
    };

    test('what the official client sends for a Dutch order is accepted; countries echo as alpha-2, a region code as given', async () => {
      const res = await t.client.post('/payment', officialClientPayment);
      assert.equal(res.statusCode, 200, res.body);
      const p = res.json();
      assert.deepEqual([p.billingCountry, p.shippingCountry, p.billingState, p.shippingState, p.details.expirationDuration], ['NL', 'NL', 'Noord-Holland', 'ZH', 'P60D']);
      const read = await t.client.get(`/transaction?reference=${p.reference}`);
      assert.deepEqual(read.json(), p);
    });

    test('what is really wrong in a client spelling is still refused, each field named', async () => {
      const res = await t.client.post('/payment', {
        ...officialClientPayment,
        scaReady: 'ja',
        billingCountry: 'XXX',
        billingState: 'x'.repeat(51),
        browser: { language: '*', ipAddress: 'unknown, 10.0.0.1' },
        details: { expirationDuration: 'P61D' },
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(
        res
          .json()
          .errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`)
          .sort(),
        [
          '/billingCountry format',
          '/billingState max_length',
          '/browser/ipAddress format',
          '/browser/language format',
          '/details/expirationDuration range',
          '/scaReady enum',
        ],
      );
    });

    /** What real shops send that is off the spec's formats (docs/interop.md), without scaReady as every plugin sends it. */
    const offFormat = {
      billingAddress: 'Burgemeester van Nispen van Sevenaerstraat 123 bis achterhuis',
      billingCity: 'Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch',
      billingPostalCode: '12345-6789-ABCD-EF',
      billingPhoneNumber: '3120123456789012',
      billingPhoneCountry: '31',
      billingEmail: 'jan@bücher.de',
      shippingEmail: 'info@müller.de',
      accountInfo: { email: 'jan@exämple.com', homePhoneNumber: '3120123456789012', homePhoneCountry: '31' },
      browser: { language: '*', ipAddress: 'unknown', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
    };
    const offFormatFields = [
      '/billingAddress',
      '/billingCity',
      '/billingPostalCode',
      '/billingPhoneNumber',
      '/billingEmail',
      '/shippingEmail',
      '/accountInfo/email',
      '/accountInfo/homePhoneNumber',
      '/browser/ipAddress',
      '/browser/language',
    ];

    describe('fields off their format without scaReady', () => {
      const areqs = recordedAReqs();

      test('are left out: the payment is created, echoes them as sent, names them, and the AReq carries none of them', async () => {
        const res = await t.client.post('/payment', cardPayment(offFormat));
        assert.equal(res.statusCode, 200, res.body);
        const p = res.json();
        for (const name of ['billingAddress', 'billingCity', 'billingPostalCode', 'billingPhoneNumber', 'billingEmail', 'shippingEmail'] as const) {
          assert.equal(p[name], offFormat[name], `${name} echoed as sent`);
        }
        assert.deepEqual(
          p.threeDSFieldsLeftOut.map((e: { field: string }) => e.field),
          offFormatFields,
        );
        assert.deepEqual(p.threeDSFieldsLeftOut[6], {
          field: '/accountInfo/email',
          code: 'format',
          message: 'must be an RFC 5322 e-mail address (addr-spec, e.g. name@example.com)',
          value: 'jan@exämple.com',
        });
        const read = await t.client.get(`/transaction?reference=${p.reference}`);
        assert.deepEqual(read.json(), p);

        const { path, csrf } = await openPage(t.app, p.payUrl);
        const paid = await postForm(t.app, `${path}/card`, { csrf, ...card() });
        assert.ok([200, 303].includes(paid.statusCode), paid.body);
        assert.equal(areqs.length, 1, 'one AReq sent');
        const areq = JSON.stringify(areqs[0]);
        for (const value of ['"*"', '"unknown"', '3120123456789012', 'bücher', 'müller', 'exämple', 'Nispen', 'Llanfair', '12345-6789']) {
          assert.ok(!areq.includes(value), `${value} is not in the AReq: ${areq}`);
        }
        // What was left out of the browser object Kassa's page collected itself.
        assert.ok(isIP(String(areqs[0]!.browserIP)), `browserIP ${areqs[0]!.browserIP}`);
      });

      test('with scaReady yes are refused, every one named', async () => {
        const res = await t.client.post('/payment', cardPayment({ ...offFormat, scaReady: 'yes', billingCountry: 'NL', billingState: 'NH' }));
        assert.equal(res.statusCode, 422, res.body);
        assert.deepEqual(
          res
            .json()
            .errors.map((e: { field: string }) => e.field)
            .sort(),
          [...offFormatFields].sort(),
        );
      });

      test('what would break Kassa is still refused: a wrong type, a text far beyond the field, a control character', async () => {
        const res = await t.client.post('/payment', cardPayment({ billingPostalCode: 1012, billingAddress: 'x'.repeat(257), billingCity: 'Amster\u0000dam' }));
        assert.equal(res.statusCode, 422, res.body);
        assert.deepEqual(
          res
            .json()
            .errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`)
            .sort(),
          ['/billingAddress max_length', '/billingCity format', '/billingPostalCode type'],
        );
      });
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
