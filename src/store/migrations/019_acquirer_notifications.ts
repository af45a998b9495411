/**
 * The acquirer's notifications as they were applied (docs/acquirers.md "Notifications"): one row
 * per signed item, keyed by what the acquirer names it with (its reference of the event and the
 * event's code), written in the unit of work that applies it. An item sent again (the acquirer's
 * retries, a replay) finds its row and changes nothing, whatever state the payment is in by then.
 */
import type { Kysely } from 'kysely';

export const acquirerNotifications = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('acquirer_notifications')
      .addColumn('connector', 'text', (c) => c.notNull())
      .addColumn('acquirer_reference', 'text', (c) => c.notNull())
      .addColumn('event_code', 'text', (c) => c.notNull())
      .addColumn('original_reference', 'text')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('success', 'integer', (c) => c.notNull())
      .addColumn('received', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('acquirer_notifications_key', ['connector', 'acquirer_reference', 'event_code'])
      .execute();
    await db.schema.createIndex('acquirer_notifications_reference').on('acquirer_notifications').column('reference').execute();
  },
});
