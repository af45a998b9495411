/**
 * Resolving a payment held for review (docs/decisions.md#states): `kassa payment resolve` moves
 * `manualintervention` to `success` or `failed` through the one state change, with its
 * event and webhook; any other state is refused and left unchanged.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { eventsOf, findTransaction } from '../../src/store/transactions.ts';
import { transition } from '../../src/payments/transition.ts';
import { deliveriesFor, insertPendingPayment } from '../events/support.ts';
import { kassaCliAsync as kassa } from '../support/process.ts';

for (const backend of backends) {
  describe(`kassa payment resolve (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    let merchantId: string;
    before(async () => {
      db = await createTestDatabase(backend);
      store = await openStore(loadConfig(db.env));
      await store.migrate();
      merchantId = (await createMerchant(store, 'Review Shop')).merchantId;
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    const heldPayment = async () => {
      const reference = await insertPendingPayment(store, merchantId, { webhookUrl: 'http://127.0.0.1:9/webhooks' });
      await store.transact((tx) =>
        transition(tx, { reference, from: 'pending', to: 'manualintervention', failureCode: null, cause: 'acquirer_timeout', at: Date.now() }),
      );
      return reference;
    };

    test('a payment in manualintervention resolved as failed becomes failed with its event and webhook', async () => {
      const reference = await heldPayment();
      const { stdout } = await kassa(db.env, 'payment', 'resolve', '--reference', reference, '--outcome', 'failed', '--failure-code', 'card_refused', '--json');
      const payment = JSON.parse(stdout);
      assert.equal(payment.status, 'failed');
      assert.equal(payment.failureCode, 'card_refused');
      const events = await eventsOf(store.read, reference);
      assert.equal(events.at(-1)!.cause, 'operator_resolved');
      assert.deepEqual(
        (await deliveriesFor(store, reference)).map((d) => d.event),
        ['manualintervention', 'failed/card_refused'],
      );
    });

    test('resolved as success becomes success', async () => {
      const reference = await heldPayment();
      const { stdout } = await kassa(db.env, 'payment', 'resolve', '--reference', reference, '--outcome', 'success');
      assert.match(stdout, /is now success/);
      assert.equal((await findTransaction(store.read, reference))!.status, 'success');
    });

    test('a pending payment cannot be resolved and stays pending', async () => {
      const reference = await insertPendingPayment(store, merchantId);
      await assert.rejects(kassa(db.env, 'payment', 'resolve', '--reference', reference, '--outcome', 'success'), (error: { stderr: string; code: number }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /is pending; only a payment in manualintervention, or a reversal held for an operator, can be resolved/);
        return true;
      });
      assert.equal((await findTransaction(store.read, reference))!.status, 'pending');
    });

    test('a failure code with outcome success is refused', async () => {
      const reference = await heldPayment();
      await assert.rejects(kassa(db.env, 'payment', 'resolve', '--reference', reference, '--outcome', 'success', '--failure-code', 'rejected'), /failureCode/);
      assert.equal((await findTransaction(store.read, reference))!.status, 'manualintervention');
    });
  });
}
