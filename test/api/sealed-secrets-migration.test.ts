/**
 * 007_sealed_secrets on a database made by the migrations before it, holding what they held in
 * clear: a pending payment with its random page token, an idempotency record answering with its
 * payUrl (and one the housekeeping deleted), a merchant's webhook secret, a merchant without one,
 * an ACS simulator record. After migrating, everything works as before — the old payUrl opens
 * its page and every read shows it, the replay answers the same, webhooks verify with the old
 * secret — and none of those values is left in the database (on SQLite: in its files, free
 * space included). On SQLite and PostgreSQL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Migrator } from 'kysely';
import { stringify as sortedJson } from 'safe-stable-stringify';
import { api, backends, cardPayment, createTestDatabase, rawDatabase, type Backend, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import type { Database, TransactionTable } from '../../src/store/schema.ts';
import { migrations } from '../../src/store/migrations.ts';
import { SecretBox } from '../../src/lib/secret-box.ts';
import { newApiKey, newMerchantId, newTransactionReference, newWebhookSecret, randomBase62, sha256Hex } from '../../src/lib/tokens.ts';
import { buildServer } from '../../src/server.ts';
import { setWebhookUrl, showWebhook } from '../../src/events/admin.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { defaultSettings } from '../../src/merchants/merchants.ts';
import { fastWorkerOptions, startReceiver, waitFor } from '../events/support.ts';

const PUBLIC_URL = 'http://kassa.test';

/** The tables as the migrations up to 006 made them, where they differ from today's. */
interface EarlierDatabase extends Omit<Database, 'transactions'> {
  transactions: Omit<TransactionTable, 'page_token_hash' | 'page_token_sealed'> & { page_token: string };
}

/** What the earlier version wrote, in clear. */
async function earlierDatabase(backend: Backend, database: TestDatabase) {
  const db = rawDatabase<EarlierDatabase>(backend, database);
  const provider = { getMigrations: async () => migrations(backend, new SecretBox(randomBytes(32))) };
  const { error } = await new Migrator({ db, provider }).migrateTo('006_wallet');
  assert.equal(error, undefined);
  const now = Date.now();
  const merchantId = newMerchantId();
  const quietMerchantId = newMerchantId();
  const testApiKey = newApiKey('test');
  for (const [id, name] of [
    [merchantId, 'Earlier Shop'],
    [quietMerchantId, 'Quiet Shop'],
  ]) {
    await db
      .insertInto('merchants')
      .values({ id, name, settings: JSON.stringify(defaultSettings()), created: now })
      .execute();
  }
  await db
    .insertInto('api_keys')
    .values({ key_hash: sha256Hex(testApiKey), merchant_id: merchantId, mode: 'test', key_prefix: testApiKey.slice(0, 12), created: now })
    .execute();
  const secret = newWebhookSecret();
  await db.insertInto('merchant_webhooks').values({ merchant_id: merchantId, url: null, secret, updated: now }).execute();

  // A pending card payment as 001 stored it: its page token random, in clear.
  const reference = newTransactionReference();
  const pageToken = `${reference.slice(3, 11)}${randomBase62(43)}`;
  await db
    .insertInto('transactions')
    .values({
      reference,
      merchant_id: merchantId,
      mode: 'test',
      method: 'card',
      type: 'sale',
      status: 'pending',
      failure_code: null,
      amount_minor: 1000,
      currency: 'eur',
      language: 'eng',
      return_url: 'https://shop.example/return',
      merchant_order_reference: null,
      description: null,
      metadata: null,
      brand: null,
      webhook_url: null,
      page_token: pageToken,
      flow: 'card',
      echo: '{}',
      request: JSON.stringify({ threeDS: { scaReady: 'no' } }),
      details: '{}',
      authentication: null,
      parent_reference: null,
      created: now,
      last_update: now,
      expires_at: now + 15 * 60_000,
    })
    .execute();
  await db.insertInto('transaction_events').values({ reference, from_status: null, to_status: 'pending', failure_code: null, cause: 'created', at: now }).execute();

  // The answer its creation recorded under an Idempotency-Reference, in clear.
  const requestBody = cardPayment();
  const answer = JSON.stringify({
    reference,
    created: now,
    lastUpdate: now,
    method: 'card',
    type: 'sale',
    status: 'pending',
    amount: 10,
    currency: 'eur',
    language: 'eng',
    returnUrl: requestBody.returnUrl,
    payUrl: `${PUBLIC_URL}/pay/${pageToken}`,
    cancelUrl: `${PUBLIC_URL}/api/v1/cancel/${pageToken}`,
    paidout: 'no',
    entryMode: 'ecom',
    details: {},
  });
  await db
    .insertInto('idempotency_records')
    .values({
      merchant_id: merchantId,
      mode: 'test',
      route: 'payment',
      idempotency_reference: 'order-earlier',
      fingerprint: sha256Hex(sortedJson(requestBody)!),
      status_code: 200,
      response_body: answer,
      created: now,
    })
    .execute();

  // A record the housekeeping deleted, long enough to spill into overflow pages: freed, they keep
  // their bytes until reused or the file is rebuilt.
  await db
    .insertInto('idempotency_records')
    .values({
      merchant_id: merchantId,
      mode: 'test',
      route: 'payment',
      idempotency_reference: 'order-expired',
      fingerprint: sha256Hex('{}'),
      status_code: 200,
      response_body: JSON.stringify({ description: 'x'.repeat(6000), payUrl: `${PUBLIC_URL}/pay/${pageToken}` }),
      created: now - 25 * 3600_000,
    })
    .execute();
  await db.deleteFrom('idempotency_records').where('idempotency_reference', '=', 'order-expired').execute();

  const acsTransId = 'acs-earlier';
  const notificationUrl = `${PUBLIC_URL}/pay/${pageToken}/3ds/notify`;
  // The simulator answers only for a test-mode payment's 3-D Secure session (docs/decisions.md#decisions-where-the-api-contract-is-silent).
  await db
    .insertInto('threeds_sessions')
    .values({
      id: 'tds-earlier',
      reference,
      protocol: '2.2.0',
      state: 'challenge',
      session_secret: randomBase62(32),
      acs_trans_id: acsTransId,
      ds_trans_id: 'ds-earlier',
      acs_url: `${PUBLIC_URL}/acs-simulator/challenge`,
      window_size: null,
      brand: 'visa',
      result: null,
      created: now,
      expires_at: now + 600_000,
    })
    .execute();
  await db
    .insertInto('acs_sim_transactions')
    .values({
      acs_trans_id: acsTransId,
      three_ds_server_trans_id: 'tds-earlier',
      ds_trans_id: 'ds-earlier',
      protocol: '2.2.0',
      brand: 'visa',
      language: 'eng',
      merchant_name: 'Earlier Shop',
      amount_text: '€10.00',
      notification_url: notificationUrl,
      form_token: randomBase62(32),
      state: 'pending',
      outcome: null,
      created: now,
    })
    .execute();
  await db.destroy();
  return { merchantId, quietMerchantId, testApiKey, secret, reference, pageToken, requestBody, answer, acsTransId, notificationUrl };
}

for (const backend of backends) {
  describe(`007_sealed_secrets on an earlier database (${backend})`, () => {
    test('the old payUrl, the recorded answer and the webhook secret keep working, and none of them stays in the database', async () => {
      const database = await createTestDatabase(backend);
      const vaultEnv = backend === 'postgres' ? { VAULT_KEY: randomBytes(32).toString('base64') } : {};
      const config = loadConfig({ PUBLIC_URL, API_KEY_CACHE_MS: '0', ...vaultEnv, ...database.env });
      const earlier = await earlierDatabase(backend, database);
      const store = await openStore(config);
      const app = await buildServer(config, store, { logger: false });
      const receiver = await startReceiver(() => earlier.secret);
      const worker = new WebhookWorker(store, fastWorkerOptions());
      try {
        // The earlier database had 001–006: every later migration runs, 007 first.
        const later = Object.keys(migrations(backend, store.secrets)).filter((name) => name > '006_wallet');
        assert.equal(later[0], '007_sealed_secrets');
        assert.deepEqual(await store.migrate(), later);
        assert.deepEqual(await store.migrate(), [], 'applied once');
        // Right after the upgrade, before anything reuses the space the old values were freed into.
        const dump = JSON.stringify(
          await Promise.all(
            (['transactions', 'idempotency_records', 'merchant_webhooks', 'acs_sim_transactions'] as const).map((table) =>
              store.read.selectFrom(table).selectAll().execute(),
            ),
          ),
        );
        for (const value of [earlier.pageToken, earlier.secret]) assert.ok(!dump.includes(value), `a table still holds ${value.slice(0, 12)}…`);
        if (backend === 'sqlite') {
          for (const name of ['kassa.db', 'kassa.db-wal', 'kassa.db-shm']) {
            const file = path.join(config.dataDir, name);
            if (!fs.existsSync(file)) continue;
            const bytes = fs.readFileSync(file);
            for (const value of [earlier.pageToken, earlier.secret]) assert.equal(bytes.indexOf(value), -1, `${name} still holds ${value.slice(0, 12)}…`);
          }
        }

        const client = api(app, earlier.testApiKey);
        const page = await app.inject({ method: 'GET', url: `/pay/${earlier.pageToken}` });
        assert.equal(page.statusCode, 200, 'the old payUrl opens its page');
        assert.match(page.body, /autocomplete="cc-number"/);
        const read = (await client.get(`/transaction?reference=${earlier.reference}`)).json();
        assert.equal(read.payUrl, `${PUBLIC_URL}/pay/${earlier.pageToken}`, 'every read shows the same payUrl');
        assert.equal(read.cancelUrl, `${PUBLIC_URL}/api/v1/cancel/${earlier.pageToken}`);

        const replay = await client.post('/payment', earlier.requestBody, { headers: { 'Idempotency-Reference': 'order-earlier' } });
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.body, earlier.answer, 'the recorded answer, as recorded');

        const acs = await app.ports.acs.find(earlier.acsTransId);
        assert.equal(acs?.notification_url, earlier.notificationUrl);

        assert.equal((await showWebhook(store, earlier.merchantId)).secret, earlier.secret);
        assert.match((await showWebhook(store, earlier.quietMerchantId)).secret, /^whsec_/, 'a merchant without a secret got one');
        await setWebhookUrl(store, earlier.merchantId, receiver.url);
        worker.start();
        const completed = await client.post('/test/complete', { reference: earlier.reference, outcome: 'success' });
        assert.equal(completed.statusCode, 200, completed.body);
        const [delivery] = await waitFor('the webhook', () => receiver.received.length > 0 && receiver.received);
        assert.equal(delivery.verified.ok, true, 'signed with the old secret');
      } finally {
        await worker.stop();
        await receiver.close();
        await app.close();
        await store.close();
        await database.drop();
      }
    });
  });
}
