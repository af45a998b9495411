/**
 * What the acquirer said, kept with a transaction's event (docs/acquirers.md "Notifications"):
 * a notification that changes nothing for the payment (a report, a dispute stage, waiting for the
 * disputes feature) or that undoes a final outcome (a capture failed, a refund reversed: final
 * states never change, docs/decisions.md "An acquirer undoing a final outcome") is an event of the
 * payment's timeline, with the acquirer's name of the event, its amount and its reason here.
 * Earlier events have none. The table stays append-only (001): a column added changes no row.
 */
import type { Kysely } from 'kysely';

export const eventDetails = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('transaction_events').addColumn('detail', 'text').execute();
  },
});
