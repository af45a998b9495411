/**
 * Webhooks (docs/decisions.md#webhooks): the merchant's webhook endpoint and signing secret, the
 * outbox of deliveries (one row per final state change, written with the change),
 * and every delivery attempt for the operator view.
 */
import { Kysely, sql } from 'kysely';
import type { Dialect } from '../schema.ts';

const bigint = 'bigint';

export const webhooks = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('merchant_webhooks')
      .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
      .addColumn('url', 'text')
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('updated', bigint, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('created', bigint, (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('next_attempt_at', bigint)
      .addColumn('claim', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_attempt_at', bigint)
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('delivered_at', bigint)
      .execute();
    // Only pending deliveries are ever scanned for work; delivered ones pile up outside this index.
    await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'`.execute(db);
    await db.schema.createIndex('webhook_deliveries_merchant').on('webhook_deliveries').columns(['merchant_id', 'created']).execute();
    await db.schema.createIndex('webhook_deliveries_reference').on('webhook_deliveries').column('reference').execute();
    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('at', bigint, (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('next_retry_at', bigint)
      .execute();
    await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('delivery_id').execute();
  },
});
