/**
 * 009_captures on what the migrations before it left (its step run on the database as the migrator runs it): an authorisation captured with its
 * capture in its `details` only, refunded against itself. After migrating, the capture is a
 * transaction of its own, the refunds belong to it, and what is left to refund is what it
 * was: the capture and the authorisation both refund from it. On SQLite and PostgreSQL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/schema.ts';
import { captures } from '../../src/store/migrations/009_captures.ts';
import { backends, cardPayment, rawDatabase, suiteApp } from '../support/app.ts';
import { eventsOf, insertTransaction } from '../../src/store/transactions.ts';
import { pendingPaymentRow } from '../events/support.ts';

const capturedAt = Date.UTC(2026, 10, 20);

for (const backend of backends) {
  describe(`009_captures on an earlier capture (${backend})`, () => {
    const t = suiteApp(backend);

    /** 009's own step on the test database, through a connection of its own as the migrator's. */
    async function applyCaptures() {
      const db = rawDatabase<Database>(backend, t.database);
      try {
        await captures(backend, t.store.secrets).up(db);
      } finally {
        await db.destroy();
      }
    }

    /** A captured and partly refunded authorisation, as 008 stored one. */
    async function earlierCapture() {
      const created = (await t.client.post('/payment', cardPayment({ transactionType: 'authorise', amount: '40.00' }))).json();
      await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      const refund = {
        ...pendingPaymentRow(t.store.secrets, t.merchant.merchantId),
        type: 'credit',
        status: 'success',
        amount_minor: 500,
        parent_reference: created.reference,
        expires_at: null,
      };
      await t.store.transact(async (db) => {
        const details = JSON.stringify({ captureStatus: 'captured', capturedAmount: 30, refundedAmount: 5 });
        await db.updateTable('transactions').set({ details }).where('reference', '=', created.reference).execute();
        await db
          .insertInto('transaction_events')
          .values({ reference: created.reference, from_status: 'success', to_status: 'success', failure_code: null, cause: 'capture', at: capturedAt })
          .execute();
        await insertTransaction(db, refund, 'created');
      });
      return { authorisation: created.reference as string, refund: refund.reference };
    }

    test('the capture becomes a transaction of its own, with the refunds of its authorisation', async () => {
      const earlier = await earlierCapture();
      await applyCaptures();
      const authorisation = (await t.client.get(`/transaction?reference=${earlier.authorisation}`)).json();
      assert.equal(authorisation.details.captureStatus, 'captured');
      assert.equal(authorisation.details.refundedAmount, undefined);
      const captureReference = authorisation.details.captureReference as string;
      const capture = (await t.client.get(`/transaction?reference=${captureReference}`)).json();
      assert.deepEqual(
        [capture.type, capture.status, capture.amount, capture.parentReference, capture.details],
        ['sale', 'success', 30, earlier.authorisation, { refundedAmount: 5 }],
      );
      assert.deepEqual(
        (await eventsOf(t.store.read, captureReference)).map((e) => [e.to_status, e.cause, e.at]),
        [['success', 'capture', capturedAt]],
      );
      assert.equal(capture.created, capturedAt);
      assert.equal((await t.client.get(`/transaction?reference=${earlier.refund}`)).json().parentReference, captureReference);
      const over = await t.client.post('/refund', { reference: earlier.authorisation, amount: '25.01' });
      assert.equal(over.json().errors[0].code, 'exceeds_refundable');
      assert.equal((await t.client.post('/refund', { reference: captureReference, amount: '25.00' })).json().status, 'success');
      // Applied again (a crash before the migrator recorded it), it changes nothing.
      await applyCaptures();
      assert.equal((await t.client.get(`/transaction?reference=${earlier.authorisation}`)).json().details.captureReference, captureReference);
    });
  });
}
