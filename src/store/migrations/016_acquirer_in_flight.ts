/**
 * The write-ahead record of an authorisation sent to the acquirer (docs/acquirers.md "Unknown
 * outcomes"): on the payment's page row, the idempotency key of the authorisation whose outcome
 * Kassa has not yet committed, when the recovery job is to look at it, and when that job sent a
 * technical cancel for it. A payment with one is never paid again until its outcome is known.
 */
import { sql, type Kysely } from 'kysely';

export const acquirerInFlight = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('payment_pages').addColumn('authorisation_in_flight', 'text').execute();
    await db.schema.alterTable('payment_pages').addColumn('recovery_due_at', 'bigint').execute();
    await db.schema.alterTable('payment_pages').addColumn('technical_cancel_sent_at', 'bigint').execute();
    // The recovery job walks only what is due, never every payment page.
    await sql`CREATE INDEX payment_pages_recovery_due ON payment_pages (recovery_due_at) WHERE recovery_due_at IS NOT NULL`.execute(db);
  },
});
