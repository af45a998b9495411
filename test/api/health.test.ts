/**
 * Health (api/cockpit.ts): `/health` as before, `/health/live`, and `/health/ready` naming the
 * database, its migrations and the background workers, 503 when one is not as it should be:
 * a database gone, a migration not applied, workers not running where they are asked for. A
 * database that answers reads but takes no write is in test/api/database-faults.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backends, createTestDatabase, startTestApp, suiteApp } from '../support/app.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, startKassaProcess, waitForExit } from '../support/process.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { buildServer } from '../../src/server.ts';
import { DATABASE_CHECK_SHARED_MS } from '../../src/api/cockpit.ts';

/** Readiness shares a database check's answer for a moment: a change is seen once that has passed. */
const pastSharedAnswer = () => new Promise((resolve) => setTimeout(resolve, DATABASE_CHECK_SHARED_MS + 50));

for (const backend of backends) {
  describe(`health on ${backend}`, () => {
    const t = suiteApp(backend);

    test('/health and /health/live answer ok', async () => {
      for (const url of ['/health', '/health/live']) {
        const res = await t.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { status: 'ok' });
      }
    });

    test('/health/ready is 200 with every part named', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { status: 'ready', checks: { database: 'ok', migrations: 'current', workers: 'off' } });
    });

    test('a migration the database lacks makes it 503, naming the migration', async () => {
      const [row] = (await sql<{ name: string; timestamp: string }>`SELECT name, timestamp FROM kysely_migration WHERE name = '008_refunds'`.execute(t.store.read)).rows;
      await t.store.transact((db) => sql`DELETE FROM kysely_migration WHERE name = '008_refunds'`.execute(db));
      try {
        await pastSharedAnswer();
        const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
        assert.equal(res.statusCode, 503);
        assert.deepEqual(res.json(), { status: 'not ready', checks: { database: 'ok', migrations: 'pending: 008_refunds', workers: 'off' } });
      } finally {
        await t.store.transact((db) => sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${row!.name}, ${row!.timestamp})`.execute(db));
      }
      await pastSharedAnswer();
      assert.equal((await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200);
    });

    test('a database that is gone makes it 503 while /health/live stays 200', async () => {
      const gone = await startTestApp(backend);
      await gone.store.close();
      try {
        const res = await gone.app.inject({ method: 'GET', url: '/health/ready' });
        assert.equal(res.statusCode, 503);
        assert.deepEqual(res.json().checks, { database: 'unreachable', migrations: 'unknown', workers: 'off' });
        assert.equal((await gone.app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200);
      } finally {
        await gone.app.close();
        await gone.database.drop();
      }
    });
  });
}

describe('health with a PostgreSQL server that is not there', () => {
  test('/health/ready is 503 naming the database', async () => {
    const port = await freePort();
    const config = loadConfig({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none`,
      KEY_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-keys-')),
      SECRETS_KEY: randomBytes(32).toString('hex'),
    });
    const store = await openStore(config);
    const app = await buildServer(config, store, { logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/health/ready' });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), { status: 'not ready', checks: { database: 'unreachable', migrations: 'unknown', workers: 'off' }, reason: 'ECONNREFUSED' });
    } finally {
      await app.close();
      await store.close();
      fs.rmSync(config.keyDir, { recursive: true, force: true });
    }
  });
});

describe('health of a running Kassa', () => {
  test('one process running its workers is ready', async () => {
    const db = await createTestDatabase('sqlite');
    const kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: '1' });
    try {
      const ready = await fetch(`${kassa.baseUrl}/health/ready`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready', checks: { database: 'ok', migrations: 'current', workers: 'running' } });
    } finally {
      kassa.child.kill('SIGTERM');
      assert.equal(await waitForExit(kassa.child), 0);
      await db.drop();
    }
  });
});
