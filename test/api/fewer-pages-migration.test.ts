/**
 * 027_fewer_pages_per_create on a database as the migrations before it left it: the events keep
 * every row and id, stay append-only, and the next event's id follows the largest (SQLite, where
 * the table loses AUTOINCREMENT); the transactions have one index led by (created, reference)
 * carrying the overview's columns instead of two. On SQLite and PostgreSQL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { SecretBox } from '../../src/lib/secret-box.ts';
import { migrations, migrateToLatest } from '../../src/store/migrations.ts';
import { backends, createTestDatabase, rawDatabase } from '../support/app.ts';

const MIGRATION = '027_fewer_pages_per_create';

for (const backend of backends) {
  describe(`${MIGRATION} on a database as 026 left it (${backend})`, () => {
    test('events keep their rows and ids and stay append-only; the newest-first list and the overview share one index', async () => {
      const database = await createTestDatabase(backend);
      const secrets = new SecretBox(randomBytes(32));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema as each migration leaves it, not as the code reads it now
      const db = rawDatabase<any>(backend, database);
      try {
        const before = { ...migrations(backend, secrets) };
        delete before[MIGRATION];
        const upTo026 = await new Migrator({ db, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true }).migrateToLatest();
        assert.equal(upTo026.error, undefined);

        const event = (reference: string, to: string, at: number) => ({
          reference,
          from_status: null,
          to_status: to,
          failure_code: null,
          cause: 'created',
          at,
          detail: null,
        });
        await db
          .insertInto('transaction_events')
          .values([event('tr_a', 'pending', 1), event('tr_b', 'pending', 2), event('tr_a', 'success', 3)])
          .execute();
        const stored = await db.selectFrom('transaction_events').selectAll().orderBy('id').execute();

        assert.deepEqual(await migrateToLatest(db, backend, secrets), [MIGRATION]);

        const kept = await db.selectFrom('transaction_events').selectAll().orderBy('id').execute();
        assert.deepEqual(kept, stored, 'every event with its id');
        await db
          .insertInto('transaction_events')
          .values(event('tr_b', 'failed', 4))
          .execute();
        const ids = (await db.selectFrom('transaction_events').select('id').orderBy('id').execute()).map((row) => Number(row.id));
        assert.equal(ids.at(-1), Math.max(...stored.map((row) => Number(row.id))) + 1, 'the next id follows the largest');
        await assert.rejects(db.updateTable('transaction_events').set({ cause: 'edited' }).execute(), /append-only/);
        await assert.rejects(db.deleteFrom('transaction_events').execute(), /append-only/);

        if (backend === 'sqlite') {
          const table = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE name = 'transaction_events'`.execute(db);
          assert.doesNotMatch(table.rows[0]!.sql, /autoincrement/i);
          const counters = await sql<{ name: string }>`SELECT name FROM sqlite_sequence WHERE name = 'transaction_events'`.execute(db);
          assert.deepEqual(counters.rows, [], 'no counter row for the events');
          const indexes = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transaction_events'`.execute(db);
          assert.deepEqual(
            indexes.rows.map((row) => row.name),
            ['transaction_events_reference'],
          );
        }

        const columns =
          backend === 'sqlite'
            ? (await sql<{ name: string }>`SELECT name FROM pragma_index_info('transactions_newest') ORDER BY seqno`.execute(db)).rows.map((row) => row.name)
            : (
                await sql<{ name: string }>`SELECT a.attname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                  CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                  WHERE c.relname = 'transactions_newest' ORDER BY k.n`.execute(db)
              ).rows.map((row) => row.name);
        assert.deepEqual(columns, ['created', 'reference', 'type', 'method', 'status', 'mode', 'merchant_id', 'parent_reference', 'currency', 'amount_minor']);
        const daily =
          backend === 'sqlite'
            ? await sql`SELECT name FROM sqlite_master WHERE name = 'transactions_daily'`.execute(db)
            : await sql`SELECT indexname FROM pg_indexes WHERE indexname = 'transactions_daily'`.execute(db);
        assert.deepEqual(daily.rows, []);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
