/**
 * Hosted payment pages and card processing: per-payment page state (CSRF token, card
 * attempts, the processing lease), 3-D Secure sessions of Kassa's 3DS Server, and the
 * test-mode ACS simulator's transactions. No card number or CVC has a column anywhere.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

const bigint = 'bigint';

export const pages = (_dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('payment_pages')
      .addColumn('reference', 'text', (c) => c.primaryKey())
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('chosen_method', 'text')
      .addColumn('processing_until', bigint)
      .addColumn('acquirer_reference', 'text')
      .addColumn('created', bigint, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('threeds_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('session_secret', 'text', (c) => c.notNull())
      .addColumn('acs_trans_id', 'text')
      .addColumn('ds_trans_id', 'text')
      .addColumn('acs_url', 'text')
      .addColumn('window_size', 'text')
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('created', bigint, (c) => c.notNull())
      .addColumn('expires_at', bigint, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('threeds_sessions_reference').on('threeds_sessions').column('reference').execute();
    await db.schema
      .createTable('acs_sim_transactions')
      .addColumn('acs_trans_id', 'text', (c) => c.primaryKey())
      .addColumn('three_ds_server_trans_id', 'text', (c) => c.notNull())
      .addColumn('ds_trans_id', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('merchant_name', 'text', (c) => c.notNull())
      .addColumn('amount_text', 'text', (c) => c.notNull())
      .addColumn('notification_url', 'text')
      .addColumn('form_token', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text')
      .addColumn('created', bigint, (c) => c.notNull())
      .execute();
  },
});
