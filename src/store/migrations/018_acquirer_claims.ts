/**
 * Acquirer claims (docs/acquirers.md "Claims and leases"): one row per capture, reversal or refund
 * being asked of the acquirer, written in the unit of work that claims it, before the call. It
 * keeps what asking again needs — the same idempotency key, the same amount — and until when
 * the request that claimed it may still answer (`due_at`); after that the recovery job finishes
 * it. Deleting the row is what ends the claim.
 */
import { sql, type Kysely } from 'kysely';

export const acquirerClaims = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('acquirer_claims')
      .addColumn('reference', 'text', (c) => c.primaryKey())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('payment_reference', 'text', (c) => c.notNull())
      .addColumn('acquirer_reference', 'text', (c) => c.notNull())
      .addColumn('amount_minor', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('due_at', 'bigint', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    // The recovery job walks only what is due.
    await sql`CREATE INDEX acquirer_claims_due ON acquirer_claims (due_at)`.execute(db);
  },
});
