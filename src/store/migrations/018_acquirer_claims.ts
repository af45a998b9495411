/**
 * Acquirer claims (docs/acquirers.md "Claims and leases"): one row per capture, reversal or refund
 * being asked of the acquirer, written in the unit of work that claims it, before the call. It
 * keeps what asking again needs — the same idempotency key, the same amount — and until when
 * the request that claimed it may still answer (`due_at`); after that the recovery job finishes
 * it. Deleting the row is what ends the claim.
 *
 * A refund left `pending` before this migration (its process killed between its reservation and
 * its commit, or taken by the acquirer and waiting for its notification) gets its claim, due at
 * once: the recovery job asks the acquirer again with the key it was sent with (a refund's was
 * already `<refund reference>:refund`), instead of it staying pending and reserved for ever.
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
    // The acquirer knows a refund's money by the authorisation's reference: its sale's, or for a capture its parent's.
    await sql`
      INSERT INTO acquirer_claims (reference, action, payment_reference, acquirer_reference, amount_minor, currency, idempotency_key, due_at, created)
      SELECT refund.reference, 'refund', refund.parent_reference, COALESCE(page.acquirer_reference, ''), refund.amount_minor, refund.currency,
             refund.reference || ':refund', 0, refund.created
      FROM transactions refund
      JOIN transactions sale ON sale.reference = refund.parent_reference
      LEFT JOIN payment_pages page ON page.reference = COALESCE(sale.parent_reference, sale.reference)
      WHERE refund.type = 'credit' AND refund.status = 'pending'`.execute(db);
  },
});
