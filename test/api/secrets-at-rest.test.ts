/**
 * Secrets at rest (docs/operations.md "Files and keys", "Secrets at rest"), on SQLite and
 * PostgreSQL: a copy of the database alone holds no capability token and no webhook signing
 * secret, the database files are for their owner only, and a database never meets a second
 * secrets key.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { backends, cardPayment, createTestDatabase, suiteApp } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { SECRETS_KEY_FILE } from '../../src/store/secrets.ts';
import { rotateWebhookSecret, setWebhookUrl } from '../../src/events/admin.ts';
import type { Database } from '../../src/store/schema.ts';
import { card, openPage, playChallenge, postForm } from '../pages/flow.ts';

const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

/** Every row of every table as text: what a dump of the database (pg_dump, `.dump`) would hold. */
async function dumpOf(store: Store): Promise<string> {
  const tables: (keyof Database)[] = [
    'merchants',
    'api_keys',
    'transactions',
    'transaction_events',
    'idempotency_records',
    'merchant_webhooks',
    'webhook_deliveries',
    'webhook_attempts',
    'payment_pages',
    'threeds_sessions',
    'acs_sim_transactions',
    'vault_cards',
    'wallet_token_uses',
    'secrets_key',
  ];
  const rows = await Promise.all(tables.map((table) => store.read.selectFrom(table).selectAll().execute()));
  return JSON.stringify(rows);
}

/** The bytes of the SQLite database files, as they would be copied. */
const filesOf = (dataDir: string) =>
  ['kassa.db', 'kassa.db-wal', 'kassa.db-shm'].filter((name) => fs.existsSync(path.join(dataDir, name))).map((name) => fs.readFileSync(path.join(dataDir, name)));

for (const backend of backends) {
  describe(`secrets at rest (${backend})`, () => {
    const t = suiteApp(backend);

    test('after every flow a payment meets, no table (nor on SQLite the database, WAL or shm file) holds a capability token or a signing secret', async () => {
      const secrets = [(await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks')).secret];
      const idempotent = { headers: { 'Idempotency-Reference': 'order-secrets-1' } };
      const created = await t.client.post('/payment', cardPayment({ amount: '10.00' }), idempotent);
      const replayed = await t.client.post('/payment', cardPayment({ amount: '10.00' }), idempotent);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(replayed.json().payUrl, created.json().payUrl, 'the recorded answer, opened again, shows the same address');
      const paid = await openPage(t.app, created.json().payUrl);
      assert.equal((await postForm(t.app, `${paid.path}/card`, { csrf: paid.csrf, ...card() })).statusCode, 303);

      const challenged = (await t.client.post('/payment', cardPayment({ amount: '10.11' }))).json();
      const page = await openPage(t.app, challenged.payUrl);
      const challenge = await postForm(t.app, `${page.path}/card`, { csrf: page.csrf, ...card() });
      assert.equal((await playChallenge(t.app, page.path, challenge.body, '1234')).statusCode, 303);

      const cancelled = (await t.client.post('/payment', cardPayment())).json();
      assert.equal((await t.app.inject({ method: 'POST', url: new URL(cancelled.cancelUrl).pathname })).json().failureCode, 'cancelled');
      secrets.push((await rotateWebhookSecret(t.store, t.merchant.merchantId)).secret);

      const payments = [created.json(), challenged, cancelled];
      for (const payment of payments) {
        assert.equal((await t.client.get(`/transaction?reference=${payment.reference}`)).json().payUrl, payment.payUrl, 'every read shows the same address');
      }
      const tokens = payments.flatMap((payment) => [tokenOf(payment.payUrl), tokenOf(payment.cancelUrl)]);
      const dump = await dumpOf(t.store);
      for (const value of [...tokens, ...secrets]) assert.ok(!dump.includes(value), `a table holds ${value.slice(0, 12)}…`);
      if (backend === 'sqlite') {
        const files = filesOf(t.config.dataDir);
        assert.ok(files.length >= 2, 'the database file and its WAL');
        for (const value of [...tokens, ...secrets]) {
          for (const bytes of files) assert.equal(bytes.indexOf(value), -1, `a database file holds ${value.slice(0, 12)}…`);
        }
      }
    });

    test('a database refuses a Kassa with another secrets key; the key of its key file given as SECRETS_KEY is the same key', async () => {
      const database = await createTestDatabase(backend);
      const open = async (env: Record<string, string> = {}) => openStore(loadConfig({ ...database.env, ...env }));
      try {
        const first = await open();
        await first.migrate();
        await first.close();
        const other = await open({ SECRETS_KEY: randomBytes(32).toString('base64') });
        await assert.rejects(other.migrate(), /sealed with another secrets key/);
        await other.close();
        const { key } = JSON.parse(fs.readFileSync(path.join(database.env.KEY_DIR, SECRETS_KEY_FILE), 'utf8')) as { key: string };
        const same = await open({ SECRETS_KEY: key, KEY_DIR: path.join(database.env.KEY_DIR, 'unused') });
        await same.migrate();
        await same.close();
      } finally {
        await database.drop();
      }
    });
  });
}

describe('database files on sqlite', () => {
  const mode = (file: string) => fs.statSync(file).mode & 0o777;

  test('are created for their owner only: DATA_DIR and KEY_DIR 0700, kassa.db, its WAL and shm file and the key files 0600', async () => {
    const database = await createTestDatabase('sqlite');
    const config = loadConfig(database.env);
    const store = await openStore(config);
    try {
      await store.migrate();
      assert.deepEqual(store.notices, [
        `made the secrets key ${path.join(config.keyDir, SECRETS_KEY_FILE)}: back it up, kept apart from the database (docs/operations.md)`,
      ]);
      assert.equal(mode(config.dataDir), 0o700);
      assert.equal(mode(config.keyDir), 0o700);
      for (const name of ['kassa.db', 'kassa.db-wal', 'kassa.db-shm']) assert.equal(mode(path.join(config.dataDir, name)), 0o600, name);
      assert.equal(mode(path.join(config.keyDir, SECRETS_KEY_FILE)), 0o600);
    } finally {
      await store.close();
      await database.drop();
    }
  });

  test('left readable by others by an earlier start, they are tightened at the next start, which says so once', async () => {
    const database = await createTestDatabase('sqlite');
    const config = loadConfig(database.env);
    try {
      const earlier = await openStore(config);
      await earlier.migrate();
      await earlier.close();
      const files = ['kassa.db', 'kassa.db-wal', 'kassa.db-shm'].map((name) => path.join(config.dataDir, name));
      for (const file of files) fs.writeFileSync(file, '', { flag: 'a' });
      for (const file of files) fs.chmodSync(file, 0o644);
      fs.chmodSync(config.dataDir, 0o755);

      const next = await openStore(config);
      try {
        assert.deepEqual(next.notices, [`took group and other permissions off ${[config.dataDir, ...files].join(', ')}: the database is for Kassa's user only`]);
        assert.equal(mode(config.dataDir), 0o700);
        for (const file of files) assert.equal(mode(file), 0o600, file);
      } finally {
        await next.close();
      }

      const after = await openStore(config);
      await after.close();
      assert.deepEqual(after.notices, [], 'nothing left to say');
    } finally {
      await database.drop();
    }
  });
});
