/**
 * The request log (docs/api.md "Request log"): one row per merchant API request made with an API
 * key, written in batches by api/request-log.ts and deleted after REQUEST_LOG_RETENTION by the
 * housekeeping. It holds what a developer debugs with and never a body, a query string or a key
 * (docs/operations.md "Request log").
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

export const requestLog = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('request_log')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('duration_ms', 'real', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('problem_title', 'text')
      .execute();
    // The console's and the CLI's list (a merchant's mode, newest first) and the purge (oldest first).
    await db.schema.createIndex('request_log_merchant_newest').on('request_log').columns(['merchant_id', 'mode', 'id']).execute();
    await db.schema.createIndex('request_log_at').on('request_log').column('at').execute();
  },
});
