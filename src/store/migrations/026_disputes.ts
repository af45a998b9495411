/**
 * Disputes (docs/disputes.md): a dispute is a transaction of its own (type `chargeback`, its
 * `parent_reference` the payment); this table keeps what makes it one dispute at its acquirer
 * and where it stands. The acquirer's reference of the dispute is unique per connector, so two
 * notifications of a new dispute arriving at once make one transaction; `stage` is what each
 * later notification compares and sets, so stages only move forward (ground/dispute-stages.ts).
 */
import type { Kysely } from 'kysely';

export const disputes = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('disputes')
      .addColumn('reference', 'text', (c) => c.primaryKey())
      .addColumn('payment_reference', 'text', (c) => c.notNull())
      .addColumn('connector', 'text', (c) => c.notNull())
      .addColumn('acquirer_reference', 'text', (c) => c.notNull())
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('last_update', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('disputes_acquirer_reference', ['connector', 'acquirer_reference'])
      .execute();
    await db.schema.createIndex('disputes_payment').on('disputes').column('payment_reference').execute();
  },
});
