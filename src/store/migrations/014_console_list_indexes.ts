/**
 * Indexes for the console at 1,000,000 transactions (`npm run bench:console`; docs/console.md).
 * Without them SQLite filtered a status through `transactions_pending_expiry` and sorted every
 * row of that status (a "failed" page took ~340 ms), and a merchant's status page walked the
 * merchant's rows. `(status, created, reference)` and `(merchant_id, status, created, reference)`
 * give those pages in list order. `transactions_daily` covers the overview's GROUP BY over a
 * period (store/payment-stats.ts), so it reads the index alone instead of each row.
 */
import type { Kysely } from 'kysely';

export const consoleListIndexes = () => ({
  async up(db: Kysely<any>) {
    await db.schema.createIndex('transactions_status_newest').on('transactions').columns(['status', 'created', 'reference']).execute();
    await db.schema.createIndex('transactions_merchant_status_newest').on('transactions').columns(['merchant_id', 'status', 'created', 'reference']).execute();
    await db.schema
      .createIndex('transactions_daily')
      .on('transactions')
      .columns(['created', 'type', 'method', 'status', 'mode', 'merchant_id', 'parent_reference'])
      .execute();
  },
});
