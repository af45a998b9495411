/**
 * 008 indexed `parent_reference` a second time, exactly as 001's `transactions_parent` (the
 * same column, the same `IS NOT NULL` condition): every refund and capture paid for both.
 * The one left serves every look-up by parent.
 */
import { sql, type Kysely } from 'kysely';

export const oneParentIndex = () => ({
  async up(db: Kysely<any>) {
    await sql`DROP INDEX IF EXISTS transactions_refunds`.execute(db);
  },
});
