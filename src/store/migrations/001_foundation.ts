/** Foundation schema: merchants, API keys, transactions, their append-only events, idempotency records. */
import { Kysely, sql } from 'kysely';
import type { Dialect } from '../schema.ts';

const bigint = 'bigint';

export const foundation = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('merchants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('created', bigint, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('key_hash', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('created', bigint, (c) => c.notNull())
      .addColumn('revoked_at', bigint)
      .execute();
    await db.schema.createIndex('api_keys_merchant').on('api_keys').columns(['merchant_id', 'mode']).execute();
    await db.schema
      .createTable('transactions')
      .addColumn('reference', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failure_code', 'text')
      .addColumn('amount_minor', bigint, (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('return_url', 'text')
      .addColumn('merchant_order_reference', 'text')
      .addColumn('description', 'text')
      .addColumn('metadata', 'text')
      .addColumn('brand', 'text')
      .addColumn('webhook_url', 'text')
      .addColumn('page_token', 'text', (c) => c.notNull().unique())
      .addColumn('flow', 'text', (c) => c.notNull())
      .addColumn('echo', 'text', (c) => c.notNull())
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('authentication', 'text')
      .addColumn('parent_reference', 'text')
      .addColumn('created', bigint, (c) => c.notNull())
      .addColumn('last_update', bigint, (c) => c.notNull())
      // Incremented by every update of the row: readers cache a payment's JSON per version.
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expires_at', bigint)
      // Last on purpose: the request document is large and spills into overflow pages; every column
      // before it stays on the row's own page, so reading a payment never walks that overflow chain.
      .addColumn('request', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('transactions_pending_expiry').on('transactions').columns(['status', 'expires_at']).execute();
    // Partial: only refunds have a parent, so creating a sale touches no entry of this index.
    await db.schema.createIndex('transactions_parent').on('transactions').column('parent_reference').where('parent_reference', 'is not', null).execute();
    await db.schema
      .createTable('transaction_events')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('failure_code', 'text')
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', bigint, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('transaction_events_reference').on('transaction_events').column('reference').execute();
    await db.schema
      .createTable('idempotency_records')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('idempotency_reference', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('created', bigint, (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_records_pk', ['merchant_id', 'mode', 'route', 'idempotency_reference'])
      .execute();
    await db.schema.createIndex('idempotency_records_created').on('idempotency_records').column('created').execute();
    // An append-only table: a trigger refuses edits, so history cannot be rewritten by accident.
    if (dialect === 'postgres') {
      await sql`CREATE FUNCTION kassa_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'transaction_events is append-only'; END $$`.execute(db);
      await sql`CREATE TRIGGER transaction_events_append_only BEFORE UPDATE OR DELETE ON transaction_events
        FOR EACH ROW EXECUTE FUNCTION kassa_refuse_change()`.execute(db);
    } else {
      for (const op of ['UPDATE', 'DELETE']) {
        await sql`CREATE TRIGGER ${sql.raw(`transaction_events_no_${op.toLowerCase()}`)} BEFORE ${sql.raw(op)} ON transaction_events
          BEGIN SELECT RAISE(ABORT, 'transaction_events is append-only'); END`.execute(db);
      }
    }
  },
});
