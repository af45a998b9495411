/**
 * 018_acquirer_claims on what the migrations before it left (its step run on the database as the
 * migrator runs it): a refund left `pending` by a process killed before its commit, with no claim.
 * After migrating it has its claim, due at once with the key it was sent with, and the recovery
 * job finishes it. On SQLite and PostgreSQL, with the simulator.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/schema.ts';
import { acquirerClaims } from '../../src/store/migrations/018_acquirer_claims.ts';
import { claimAsks } from '../../src/store/migrations/028_claim_asks.ts';
import { backends, cardPayment, rawDatabase, suiteApp } from '../support/app.ts';
import { insertTransaction } from '../../src/store/transactions.ts';
import { pendingPaymentRow } from '../events/support.ts';
import { recoverAcquirerClaims } from '../../src/payments/jobs/acquirer-recovery.ts';

for (const backend of backends) {
  describe(`018_acquirer_claims on a refund cut off before it (${backend})`, () => {
    const t = suiteApp(backend);

    /**
     * 018's own step on the test database, through a connection of its own as the migrator's; its
     * table dropped first, as before 018, and the later steps that change that table run after it.
     */
    async function applyClaims() {
      const db = rawDatabase<Database>(backend, t.database);
      try {
        await db.schema.dropTable('acquirer_claims').execute();
        await acquirerClaims().up(db);
        await claimAsks().up(db);
      } finally {
        await db.destroy();
      }
    }

    test('the pending refund gets its claim, due at once, and the recovery job finishes it', async () => {
      const sale = (await t.client.post('/payment', cardPayment({ amount: '20.00' }))).json().reference as string;
      assert.equal((await t.client.post('/test/complete', { reference: sale, outcome: 'success' })).statusCode, 200);
      const refund = { ...pendingPaymentRow(t.store.secrets, t.merchant.merchantId), type: 'credit', amount_minor: 300, parent_reference: sale, expires_at: null };
      await t.store.transact((db) => insertTransaction(db, refund, 'created'));

      await applyClaims();
      const claim = await t.store.read.selectFrom('acquirer_claims').selectAll().where('reference', '=', refund.reference).executeTakeFirstOrThrow();
      assert.deepEqual(
        [claim.action, claim.payment_reference, Number(claim.amount_minor), claim.idempotency_key, Number(claim.due_at)],
        ['refund', sale, 300, `${refund.reference}:refund`, 0],
      );

      const errors: unknown[] = [];
      assert.deepEqual(await recoverAcquirerClaims(t.app.ports, (error) => errors.push(error)), [refund.reference]);
      assert.deepEqual(errors, []);
      assert.equal((await t.client.get(`/transaction?reference=${refund.reference}`)).json().status, 'success');
      assert.equal((await t.client.get(`/transaction?reference=${sale}`)).json().details.refundedAmount, 3);
    });
  });
}
