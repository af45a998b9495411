/**
 * Two workers sharing one database (two connection pools, as two Kassa processes
 * would have) deliver a 1,000-event run: every event exactly once (docs/decisions.md#webhooks, docs/architecture.md#quality-bars).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { transition } from '../../src/payments/transition.ts';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { fastWorkerOptions, insertPendingPayment, startReceiver, waitFor, type Receiver } from './support.ts';

const EVENTS = 1000;

for (const backend of backends) {
  describe(`two workers on one ${backend} database`, () => {
    let database: TestDatabase;
    let stores: Store[];
    let receiver: Receiver;
    let secret = '';

    before(async () => {
      database = await createTestDatabase(backend);
      const config = loadConfig({ ...database.env, SQLITE_SYNCHRONOUS: 'NORMAL' });
      stores = [await openStore(config), await openStore(config)];
      await stores[0].migrate();
      receiver = await startReceiver(() => secret);
    });
    after(async () => {
      await receiver.close();
      for (const store of stores) await store.close();
      await database.drop();
    });

    test(`${EVENTS} events are each delivered exactly once`, async (t) => {
      const [first, second] = stores;
      const { merchantId } = await createMerchant(first, 'Busy Shop');
      secret = (await setWebhookUrl(first, merchantId, receiver.url)).secret;
      const references: string[] = [];
      for (let i = 0; i < EVENTS; i++) references.push(await insertPendingPayment(first, merchantId));

      const workers = stores.map((store) => new WebhookWorker(store, fastWorkerOptions({ concurrency: 32, batchSize: 25 })).start());
      try {
        // Commit the outcomes in slices while both workers are polling, half through each store.
        for (let slice = 0; slice < EVENTS; slice += 100) {
          await Promise.all(
            references
              .slice(slice, slice + 100)
              .map((reference, i) => stores[i % 2].transact((db) => transition(db, { reference, from: 'pending', to: 'success', cause: 'test_helper', at: Date.now() }))),
          );
        }
        await waitFor(
          'every delivery recorded',
          async () => {
            const row = await second.read
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('state', '=', 'delivered')
              .executeTakeFirstOrThrow();
            return Number(row.n) === EVENTS;
          },
          60_000,
        );
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }

      assert.equal(receiver.received.length, EVENTS, 'one request per event, no more');
      const acknowledged = receiver.acknowledged();
      assert.equal(acknowledged.size, EVENTS);
      for (const reference of references) assert.equal(acknowledged.get(reference)?.length, 1, reference);
      assert.equal(new Set(receiver.received.map((r) => r.webhookId)).size, EVENTS);
      assert.ok(receiver.received.every((r) => r.verified.ok));
      assert.equal(workers[0].stats.delivered + workers[1].stats.delivered, EVENTS);
      assert.equal(workers[0].stats.failedAttempts + workers[1].stats.failedAttempts, 0);
      const attempts = await first.read
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(attempts.n), EVENTS);
      t.diagnostic(`deliveries per worker: ${workers.map((w) => w.stats.delivered).join(' + ')}`);
    });
  });
}
