/**
 * Refunds (docs/decisions.md#refunds): a refund is a transaction of its own whose
 * `parent_reference` is the sale it gives money back from. Reserving a refund sums the
 * sale's pending and successful refunds, so they are found by that column.
 */
import { Kysely, sql } from 'kysely';

export const refunds = () => ({
  async up(db: Kysely<any>) {
    await sql`CREATE INDEX transactions_refunds ON transactions (parent_reference) WHERE parent_reference IS NOT NULL`.execute(db);
  },
});
