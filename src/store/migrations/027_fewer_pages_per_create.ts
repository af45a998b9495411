/**
 * Fewer B-tree pages per create (docs/decisions.md "What each page of a create costs"). A create
 * that commits alone writes every page it touches to the WAL and fsyncs them; two of those
 * pages served nothing a reader needs:
 * - `transactions_newest (created, reference)` and `transactions_daily` (014, the overview's
 *   covering index, led by `created`) become one index led by `(created, reference)` that carries
 *   every column the overview's GROUP BY reads (store/payment-stats.ts): the newest-first list
 *   walks it as before, and the overview's counts and amounts read the index alone (the amounts,
 *   a second statement before, read each row: 183 ms for all merchants' 30 days at 1,000,000
 *   transactions).
 * - SQLite: `transaction_events` loses AUTOINCREMENT, whose counter row in `sqlite_sequence` was a
 *   page of its own in every commit that added an event. The table is append-only (a trigger
 *   refuses deletes, 001), so its largest id is never freed and SQLite's next id is still
 *   always one more than any given before: the same ids, without the counter.
 * The rebuilt table keeps every row, id, index and trigger; PostgreSQL's events keep their sequence.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

const eventColumns = 'id, reference, from_status, to_status, failure_code, cause, at, detail';

async function eventsWithoutCounter(db: Kysely<any>) {
  await sql`CREATE TABLE transaction_events_rebuilt (id integer PRIMARY KEY, reference text NOT NULL, from_status text,
    to_status text NOT NULL, failure_code text, cause text NOT NULL, at bigint NOT NULL, detail text)`.execute(db);
  await sql`INSERT INTO transaction_events_rebuilt (${sql.raw(eventColumns)}) SELECT ${sql.raw(eventColumns)} FROM transaction_events`.execute(db);
  await sql`DROP TABLE transaction_events`.execute(db);
  await sql`ALTER TABLE transaction_events_rebuilt RENAME TO transaction_events`.execute(db);
  await sql`CREATE INDEX transaction_events_reference ON transaction_events (reference)`.execute(db);
  for (const op of ['UPDATE', 'DELETE']) {
    await sql`CREATE TRIGGER ${sql.raw(`transaction_events_no_${op.toLowerCase()}`)} BEFORE ${sql.raw(op)} ON transaction_events
      BEGIN SELECT RAISE(ABORT, 'transaction_events is append-only'); END`.execute(db);
  }
}

async function oneNewestIndex(db: Kysely<any>) {
  await sql`DROP INDEX transactions_newest`.execute(db);
  await sql`DROP INDEX transactions_daily`.execute(db);
  await db.schema
    .createIndex('transactions_newest')
    .on('transactions')
    .columns(['created', 'reference', 'type', 'method', 'status', 'mode', 'merchant_id', 'parent_reference', 'currency', 'amount_minor'])
    .execute();
}

export const fewerPagesPerCreate = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    if (dialect === 'sqlite') {
      await db.transaction().execute(async (trx) => {
        await eventsWithoutCounter(trx);
        await oneNewestIndex(trx);
      });
    } else {
      await oneNewestIndex(db);
    }
  },
});
