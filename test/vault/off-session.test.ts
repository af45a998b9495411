/**
 * Off-session payments with a stored card (docs/vault.md "Paying off-session") over HTTP, on
 * SQLite and PostgreSQL, in test mode: the create answer carries the outcome the amount's cents
 * choose, no customer address, a token of another merchant is refused, and a retry with the same
 * Idempotency-Reference neither creates nor charges a second time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, suiteApp, type TestApp } from '../support/app.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { enroll } from './enroll.ts';
import { setAcquirerConnection } from '../../src/acquirer/connections.ts';

/** A subscription's next charge: the merchant's server, no customer, no returnUrl. */
const offSession = (vaultAccessToken: string, overrides: Record<string, unknown> = {}) => {
  const { returnUrl: _none, ...body } = cardPayment({
    details: { vaultAccessToken },
    sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'MIT' },
    ...overrides,
  });
  return body;
};

for (const backend of backends) {
  describe(`off-session vault payments (${backend})`, () => {
    const t = suiteApp(backend);

    const cases = [
      ['10.00', 'success', undefined],
      ['10.11', 'success', undefined],
      ['10.21', 'failed', 'card_refused'],
      ['10.22', 'failed', 'insufficient_funds'],
      ['10.23', 'failed', 'fraud_detected'],
      ['10.31', 'manualintervention', undefined],
    ] as const;
    for (const [amount, status, failureCode] of cases) {
      test(`an off-session payment of ${amount} is answered ${status}${failureCode ? `/${failureCode}` : ''} at once, without payUrl or cancelUrl`, async () => {
        const { details } = await enroll(t);
        const created = await t.client.post('/payment', offSession(details.vaultAccessToken, { amount }));
        assert.equal(created.statusCode, 200, created.body);
        const payment = created.json();
        assert.equal(payment.status, status);
        assert.equal(payment.failureCode, failureCode);
        assert.equal(payment.method, 'card');
        assert.equal(payment.brand, 'visa');
        assert.equal(payment.payUrl, undefined);
        assert.equal(payment.cancelUrl, undefined);
        assert.equal(payment.details.maskedPan, '400000******0200');
        const read = (await t.client.get(`/transaction?reference=${payment.reference}`)).json();
        assert.equal(read.status, status);
        assert.equal(read.payUrl, undefined);
        const events = await eventsOf(t.store.read, payment.reference);
        assert.equal(events.length, 2, 'created, then its one outcome');
        assert.equal(events[1]!.to_status, status);
      });
    }

    test('an off-session authorise payment holds the amount for capture', async () => {
      const { details } = await enroll(t);
      const payment = (await t.client.post('/payment', offSession(details.vaultAccessToken, { type: 'authorise' }))).json();
      assert.equal(payment.status, 'success');
      assert.equal(payment.type, 'authorise');
      assert.equal(payment.details.captureStatus, 'authorised');
    });

    test('a sequenceInfo without source MIT keeps the vault payment on its page', async () => {
      const { details } = await enroll(t);
      const created = await t.client.post(
        '/payment',
        cardPayment({ details: { vaultAccessToken: details.vaultAccessToken }, sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'CIT' } }),
      );
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(created.json().status, 'pending');
      assert.match(created.json().payUrl, /\/pay\//);
    });

    test("another merchant's token, an unknown one and the live mode's are the same 422, and nothing is charged", async () => {
      const { details } = await enroll(t);
      const other = await createMerchant(t.store, 'Other Subscriptions');
      const attempts = [
        await t.client.post('/payment', offSession(details.vaultAccessToken), { key: other.testApiKey }),
        await t.client.post('/payment', offSession('vat_unknown')),
        await t.client.post('/payment', offSession(details.vaultAccessToken), { key: t.merchant.liveApiKey }),
      ];
      for (const response of attempts) {
        assert.equal(response.statusCode, 422, response.body);
        assert.deepEqual(
          response.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
          [['/details/vaultAccessToken', 'unknown']],
        );
      }
      const theirs = await t.store.read.selectFrom('transactions').select('reference').where('merchant_id', '=', other.merchantId).execute();
      assert.deepEqual(theirs, [], 'no payment was stored for the other merchant');
    });

    test('storeInVault and brand are refused on an off-session payment', async () => {
      const { details } = await enroll(t);
      const refused = await t.client.post('/payment', offSession(details.vaultAccessToken, { storeInVault: 'yes', brand: 'visa' }));
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(
        refused
          .json()
          .errors.map((e: { field: string }) => e.field)
          .sort(),
        ['/brand', '/storeInVault'],
      );
    });

    test('a retry with the same Idempotency-Reference replays the outcome: one payment, one authorisation', async () => {
      const { details } = await enroll(t);
      const headers = { 'idempotency-reference': `mit-${backend}-${Date.now()}` };
      const body = offSession(details.vaultAccessToken, { amount: '12.00', merchantOrderReference: 'sub-42' });
      const first = await t.client.post('/payment', body, { headers });
      const second = await t.client.post('/payment', body, { headers });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.deepEqual(second.json(), first.json());
      assert.equal(first.json().status, 'success');
      const made = await t.store.read.selectFrom('transactions').select('reference').where('merchant_order_reference', '=', 'sub-42').execute();
      assert.equal(made.length, 1, 'one payment');
      const page = await t.store.read.selectFrom('payment_pages').selectAll().where('reference', '=', first.json().reference).executeTakeFirstOrThrow();
      assert.equal(page.attempts, 1, 'one authorisation');
      const changed = await t.client.post('/payment', { ...body, amount: '13.00' }, { headers });
      assert.equal(changed.statusCode, 422, 'the same reference with another body');
    });

    test('two requests at once with the same Idempotency-Reference make one payment', async () => {
      const { details } = await enroll(t);
      const headers = { 'idempotency-reference': `mit-race-${backend}-${Date.now()}` };
      const body = offSession(details.vaultAccessToken, { amount: '14.00', merchantOrderReference: 'sub-race' });
      const answers = await Promise.all([t.client.post('/payment', body, { headers }), t.client.post('/payment', body, { headers })]);
      for (const answer of answers) assert.ok([200, 409].includes(answer.statusCode), answer.body);
      const made = await t.store.read.selectFrom('transactions').select('reference').where('merchant_order_reference', '=', 'sub-race').execute();
      assert.equal(made.length, 1);
    });

    test("what the mode's acquirer would refuse is refused at creation, as for a payment on a page: an amount Adyen's CVE cannot carry", async () => {
      // A merchant of its own whose test mode is connected to Adyen before its card is stored; no call is made, so the connection needs no server.
      const shop = await createMerchant(t.store, 'Subscriptions');
      await setAcquirerConnection(
        t.store,
        {
          merchantId: shop.merchantId,
          mode: 'test',
          connector: 'adyen',
          endpoint: 'https://127.0.0.1:9/pal',
          account: 'ShopNL',
          secretsJson: JSON.stringify({ apiKey: 'k', hmacKey: '00'.repeat(32) }),
        },
        Date.now(),
      );
      const client = api(t.app, shop.testApiKey);
      // enroll() reads the app and the merchant's client only.
      const { details } = await enroll({ app: t.app, client } as TestApp);
      const refused = await client.post('/payment', offSession(details.vaultAccessToken, { amount: '10.50', currency: 'CVE', merchantOrderReference: 'sub-cve' }));
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(refused.json().errors, [
        { field: '/amount', code: 'not_served', message: "has more decimals than this merchant's test acquirer (adyen) takes in CVE" },
      ]);
      const made = await t.store.read.selectFrom('transactions').select('reference').where('merchant_order_reference', '=', 'sub-cve').execute();
      assert.equal(made.length, 0, 'nothing stored');
    });
  });
}
