/**
 * `POST {base_url}/test/complete` (README "Test mode: the amount decides"): completes a pending test-mode payment
 * through the same state change and webhook path; 404 for a live key; 409 when the
 * payment is no longer pending; 422 listing every bad field.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { deliveriesFor, insertPendingPayment } from './support.ts';

for (const backend of backends) {
  describe(`test helper /test/complete (${backend})`, () => {
    const t = suiteApp(backend);
    const newPayment = async () => (await t.client.post('/payment', cardPayment())).json().reference as string;

    before(async () => {
      // Nothing listens there: the worker does not run in this test, only the outbox row is checked.
      await setWebhookUrl(t.store, t.merchant.merchantId, 'http://127.0.0.1:9/webhooks');
    });

    test('outcome success completes a pending payment, records the cause and writes its webhook', async () => {
      const reference = await newPayment();
      const response = await t.client.post('/test/complete', { reference, outcome: 'success' });
      assert.equal(response.statusCode, 200);
      const payment = response.json();
      assert.equal(payment.reference, reference);
      assert.equal(payment.status, 'success');
      assert.equal(payment.failureCode, undefined);
      assert.equal(typeof payment.payUrl, 'string');
      assert.equal((await t.client.get(`/transaction?reference=${reference}`)).json().status, 'success');
      assert.equal((await eventsOf(t.store.read, reference)).at(-1)!.cause, 'test_helper');
      assert.deepEqual(
        (await deliveriesFor(t.store, reference)).map((d) => d.event),
        ['success'],
      );
    });

    test('outcome failed takes the given failureCode, or rejected when none is given', async () => {
      const refused = await newPayment();
      const response = await t.client.post('/test/complete', { reference: refused, outcome: 'failed', failureCode: 'card_refused' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().status, 'failed');
      assert.equal(response.json().failureCode, 'card_refused');
      assert.deepEqual(
        (await deliveriesFor(t.store, refused)).map((d) => d.event),
        ['failed/card_refused'],
      );

      const rejected = await newPayment();
      const plain = await t.client.post('/test/complete', { reference: rejected, outcome: 'failed', failureCode: '' });
      assert.equal(plain.json().failureCode, 'rejected');
    });

    test('a live key gets 404, as if the route did not exist, and the live payment stays pending', async () => {
      const live = await insertPendingPayment(t.store, t.merchant.merchantId, { mode: 'live' });
      const response = await t.client.post('/test/complete', { reference: live, outcome: 'success' }, { key: t.merchant.liveApiKey });
      assert.equal(response.statusCode, 404);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(response.json().detail, 'There is nothing at POST /api/v1/test/complete.');
      const row = await t.store.read.selectFrom('transactions').select('status').where('reference', '=', live).executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending');
      assert.equal((await deliveriesFor(t.store, live)).length, 0);
    });

    test('a payment that is no longer pending is 409 and keeps its state and its single webhook (success on a failed one plays its late payment: late-payments.test.ts)', async () => {
      const reference = await newPayment();
      assert.equal((await t.client.post('/test/complete', { reference, outcome: 'failed' })).statusCode, 200);
      const again = await t.client.post('/test/complete', { reference, outcome: 'failed' });
      assert.equal(again.statusCode, 409);
      assert.match(again.json().detail, /is failed, not pending/);
      assert.equal((await t.client.get(`/transaction?reference=${reference}`)).json().status, 'failed');
      assert.equal((await deliveriesFor(t.store, reference)).length, 1);
      const paid = await newPayment();
      assert.equal((await t.client.post('/test/complete', { reference: paid, outcome: 'success' })).statusCode, 200);
      for (const outcome of ['success', 'failed']) {
        const completed = await t.client.post('/test/complete', { reference: paid, outcome });
        assert.equal(completed.statusCode, 409);
        assert.match(completed.json().detail, /is success, not pending; only a pending payment can be completed\.$/);
      }
      assert.equal((await deliveriesFor(t.store, paid)).length, 1);
    });

    test("an unknown reference, or another merchant's, is 404", async () => {
      assert.equal((await t.client.post('/test/complete', { reference: 'tr_doesnotexist', outcome: 'success' })).statusCode, 404);
      const { createMerchant } = await import('../../src/merchants/merchants.ts');
      const other = await createMerchant(t.store, 'Other Shop');
      const theirs = await insertPendingPayment(t.store, other.merchantId);
      assert.equal((await t.client.post('/test/complete', { reference: theirs, outcome: 'success' })).statusCode, 404);
    });

    test('invalid input is 422 listing every failing field', async () => {
      const missing = await t.client.post('/test/complete', {});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(
        missing.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [
          ['/reference', 'required'],
          ['/outcome', 'required'],
        ],
      );
      const reference = await newPayment();
      const wrong = await t.client.post('/test/complete', { reference, outcome: 'maybe', failureCode: 'because' });
      assert.deepEqual(
        wrong.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [
          ['/outcome', 'enum'],
          ['/failureCode', 'enum'],
        ],
      );
      const contradictory = await t.client.post('/test/complete', { reference, outcome: 'success', failureCode: 'expired' });
      assert.deepEqual(
        contradictory.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/failureCode', 'not_allowed']],
      );
      assert.equal((await t.client.get(`/transaction?reference=${reference}`)).json().status, 'pending');
      assert.equal((await t.client.post('/test/complete', [reference])).statusCode, 400);
    });
  });
}
