/**
 * Units of work, on SQLite and PostgreSQL. Units that finish together share a commit
 * (SQLite's group commit) or one statement (PostgreSQL's held inserts), and still each
 * one commits or fails alone: a duplicate key fails only its own unit. A unit reads its
 * own writes, and a unit that throws leaves nothing behind.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, suiteApp } from '../support/app.ts';
import { eventsOf, findTransaction, insertTransaction } from '../../src/store/transactions.ts';
import { pendingPaymentRow } from '../events/support.ts';

for (const backend of backends) {
  describe(`units of work (${backend})`, () => {
    const t = suiteApp(backend);

    test('of units finishing together, only the one with a duplicate key fails', async () => {
      const existing = pendingPaymentRow(t.store.secrets, t.merchant.merchantId);
      await t.store.transact((db) => insertTransaction(db, existing, 'created'));
      const rows = Array.from({ length: 12 }, (_, i) => pendingPaymentRow(t.store.secrets, t.merchant.merchantId, i === 5 ? { reference: existing.reference } : {}));
      const outcomes = await Promise.allSettled(rows.map((row) => t.store.transact((db) => insertTransaction(db, row, 'created'))));
      assert.deepEqual(
        outcomes.map((o) => o.status),
        rows.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')),
      );
      const code = ((outcomes[5] as PromiseRejectedResult).reason as { code?: string }).code;
      assert.ok(code === '23505' || code?.startsWith('SQLITE_CONSTRAINT'), `a unique violation, got ${code}`);
      for (const [i, row] of rows.entries()) {
        if (i === 5) continue;
        assert.ok(await findTransaction(t.store.read, row.reference), `unit ${i} is stored`);
        assert.equal((await eventsOf(t.store.read, row.reference)).length, 1, `unit ${i} has its event`);
      }
      assert.equal((await eventsOf(t.store.read, existing.reference)).length, 1, 'the duplicate added no event to the existing payment');
    });

    test('a unit reads its own held inserts, and a unit that throws leaves nothing', async () => {
      const row = pendingPaymentRow(t.store.secrets, t.merchant.merchantId);
      const seen = await t.store.transact(async (db) => {
        await insertTransaction(db, row, 'created');
        return findTransaction(db, row.reference);
      });
      assert.equal(seen?.reference, row.reference);

      const doomed = pendingPaymentRow(t.store.secrets, t.merchant.merchantId);
      await assert.rejects(
        t.store.transact(async (db) => {
          await insertTransaction(db, doomed, 'created');
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.equal(await findTransaction(t.store.read, doomed.reference), undefined);
      assert.deepEqual(await eventsOf(t.store.read, doomed.reference), []);
    });
  });
}
