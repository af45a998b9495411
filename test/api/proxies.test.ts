/**
 * Behind a reverse proxy (TRUST_PROXY, docs/operations.md "Behind a reverse proxy"): the
 * customer's address the 3-D Secure AReq carries (`browserIP`) comes from X-Forwarded-For only
 * when the connection is from a trusted proxy, and then it is the nearest address no trusted
 * proxy added; the addresses Kassa hands out keep PUBLIC_URL's scheme whatever X-Forwarded-Proto says.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, startTestApp, type TestApp } from '../support/app.ts';
import { card, openPage } from '../pages/flow.ts';
import { recordedAReqs } from '../support/areqs.ts';
import { loadConfig } from '../../src/config.ts';

const PROXY = '127.0.0.1';

for (const backend of backends) {
  describe(`behind a proxy on ${backend}`, () => {
    const areqs = recordedAReqs();

    /** Pays by card on the hosted page through a connection from `PROXY` with these forwarding headers; returns the AReq's browserIP. */
    async function browserIpBehindProxy(t: TestApp, headers: Record<string, string>) {
      const payment = (await t.client.post('/payment', cardPayment())).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const res = await t.app.inject({
        method: 'POST',
        url: `${path}/card`,
        remoteAddress: PROXY,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: new URLSearchParams({ csrf, ...card() }).toString(),
      });
      assert.ok([200, 303].includes(res.statusCode), res.body);
      assert.equal(areqs.length, 1, 'one AReq sent');
      return areqs[0]!.browserIP;
    }

    const cases: [string, Record<string, string>, Record<string, string>, string][] = [
      ['without TRUST_PROXY the connection is the customer, whatever X-Forwarded-For says', {}, { 'x-forwarded-for': '203.0.113.9' }, PROXY],
      ['a trusted proxy names the customer', { TRUST_PROXY: PROXY }, { 'x-forwarded-for': '203.0.113.9' }, '203.0.113.9'],
      ['an address the customer put in front of the chain is not believed', { TRUST_PROXY: PROXY }, { 'x-forwarded-for': '198.51.100.66, 203.0.113.9' }, '203.0.113.9'],
      [
        'a chain of trusted proxies (an address and a CIDR range) is walked back',
        { TRUST_PROXY: `${PROXY},10.0.0.0/8` },
        { 'x-forwarded-for': '203.0.113.9, 10.1.2.3' },
        '203.0.113.9',
      ],
      ['IPv6 customers come through as they are', { TRUST_PROXY: 'loopback' }, { 'x-forwarded-for': '2001:db8::7' }, '2001:db8::7'],
    ];
    for (const [behaviour, env, headers, expected] of cases) {
      test(behaviour, async () => {
        const t = await startTestApp(backend, env);
        try {
          assert.equal(await browserIpBehindProxy(t, headers), expected);
        } finally {
          await t.close();
        }
      });
    }

    test("the scheme of every address Kassa hands out is PUBLIC_URL's, never X-Forwarded-Proto's", async () => {
      const t = await startTestApp(backend, { TRUST_PROXY: PROXY, PUBLIC_URL: 'https://pay.example' });
      try {
        for (const proto of ['http', 'https']) {
          const res = await t.app.inject({
            method: 'POST',
            url: '/api/v1/payment',
            remoteAddress: PROXY,
            headers: {
              authorization: `Basic ${Buffer.from(`${t.merchant.testApiKey}:`).toString('base64')}`,
              'content-type': 'application/json',
              'x-forwarded-proto': proto,
            },
            payload: JSON.stringify(cardPayment()),
          });
          assert.equal(res.statusCode, 200, res.body);
          assert.ok(res.json().payUrl.startsWith('https://pay.example/pay/'));
          assert.equal(res.headers['strict-transport-security'], 'max-age=31536000');
        }
      } finally {
        await t.close();
      }
    });
  });
}

describe('TRUST_PROXY', () => {
  const accepted: [string, string[]][] = [
    ['127.0.0.1', ['127.0.0.1']],
    ['127.0.0.1, 10.0.0.0/8 ,fd00::/8', ['127.0.0.1', '10.0.0.0/8', 'fd00::/8']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ];
  for (const [raw, expected] of accepted) {
    test(`"${raw}" is taken as ${expected.join(' ')}`, () => assert.deepEqual(loadConfig({ TRUST_PROXY: raw }).trustProxy, expected));
  }
  for (const raw of ['true', '1', '*', '10.0.0.0/33', 'proxy.internal', '::1/129']) {
    test(`"${raw}" stops the start, naming TRUST_PROXY`, () => assert.throws(() => loadConfig({ TRUST_PROXY: raw }), /TRUST_PROXY/));
  }
});
