/**
 * The audit trail an assessor reads (docs/console.md "Audit log"): each entry says whether the
 * action was allowed, refused or failed (`outcome`) and what it was done to (`subject`: a
 * merchant, an account, an e-mail signed in with, a delivery) besides a payment's `reference`.
 * Entries written before this migration read `allowed`: the table refuses updates, so one refused
 * then says so only in its detail (`refused`). Adding a column changes no row, so the triggers
 * stay. The index serves `kassa audit list --since`.
 */
import type { Kysely } from 'kysely';

export const auditTrail = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('audit_log')
      .addColumn('outcome', 'text', (c) => c.notNull().defaultTo('allowed'))
      .execute();
    await db.schema.alterTable('audit_log').addColumn('subject', 'text').execute();
    await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
  },
});
