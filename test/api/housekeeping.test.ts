/**
 * Hourly housekeeping, on SQLite and PostgreSQL: idempotency records go after 24 hours
 * (a retry within them still replays), finished webhook deliveries and their attempts
 * after WEBHOOK_RETENTION while pending ones stay whatever their age, and a backlog
 * larger than one batch is purged whole.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { insertDelivery } from '../../src/store/webhooks.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

for (const backend of backends) {
  describe(`housekeeping (${backend})`, () => {
    const t = suiteApp(backend);

    const countRows = async (table: 'idempotency_records' | 'webhook_deliveries' | 'webhook_attempts') =>
      Number(
        (
          await t.store.read
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('idempotency records are kept 24 hours, then purged in batches', async () => {
      const created = await t.client.post('/payment', cardPayment(), { headers: { 'idempotency-reference': 'kept-a-day' } });
      assert.equal(created.statusCode, 200);
      // A backlog of more than one batch, older than a day.
      const old = Date.now() - 2 * DAY;
      await t.store.transact(async (db) => {
        for (let i = 0; i < 2500; i += 500) {
          await db
            .insertInto('idempotency_records')
            .values(
              Array.from({ length: 500 }, (_, j) => ({
                merchant_id: t.merchant.merchantId,
                mode: 'test' as const,
                route: 'payment',
                idempotency_reference: `old-${i + j}`,
                fingerprint: 'x',
                status_code: 200,
                response_body: '{}',
                created: old,
              })),
            )
            .execute();
        }
      });

      assert.deepEqual((await runHousekeeping(t.config, t.store)).idempotencyRecords, 2500);
      const replay = await t.client.post('/payment', cardPayment(), { headers: { 'idempotency-reference': 'kept-a-day' } });
      assert.equal(replay.headers['idempotent-replayed'], 'true', 'a retry within the day still replays');

      assert.equal((await runHousekeeping(t.config, t.store, Date.now() + DAY + HOUR)).idempotencyRecords, 1);
      assert.equal(await countRows('idempotency_records'), 0);
    });

    test('finished webhook deliveries and their attempts go after the retention; pending ones stay', async () => {
      const now = Date.now();
      const retention = t.config.webhooks.retentionMs;
      const deliveries = [
        { id: 'msg_old_delivered', at: now - retention - DAY, state: 'delivered', gone: true },
        { id: 'msg_old_given_up', at: now - retention - DAY, state: 'failed', gone: true },
        { id: 'msg_old_pending', at: now - retention - DAY, state: 'pending', gone: false },
        { id: 'msg_recent_delivered', at: now - DAY, state: 'delivered', gone: false },
      ] as const;
      await t.store.transact(async (db) => {
        for (const d of deliveries) {
          await insertDelivery(db, { id: d.id, merchantId: t.merchant.merchantId, mode: 'test', reference: 'tr_x', event: 'payment.success', at: d.at });
          await db.updateTable('webhook_deliveries').set({ state: d.state }).where('id', '=', d.id).execute();
          await db
            .insertInto('webhook_attempts')
            .values({ delivery_id: d.id, at: d.at, duration_ms: 5, url: 'https://shop.example/hook', status_code: 200, error: null, next_retry_at: null })
            .execute();
        }
      });

      assert.equal((await runHousekeeping(t.config, t.store, now)).webhookDeliveries, 2);
      const left = (await t.store.read.selectFrom('webhook_deliveries').select('id').orderBy('id').execute()).map((r) => r.id);
      assert.deepEqual(
        left,
        deliveries
          .filter((d) => !d.gone)
          .map((d) => d.id)
          .sort(),
      );
      const attempts = (await t.store.read.selectFrom('webhook_attempts').select('delivery_id').orderBy('delivery_id').execute()).map((r) => r.delivery_id);
      assert.deepEqual(attempts, left, 'attempts go with their delivery');
    });
  });
}
