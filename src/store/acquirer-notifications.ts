/** Acquirer notification queries (019_acquirer_notifications), nothing else: each signed item recorded once. */
import type { Db } from './store.ts';
import type { Mode } from './schema.ts';

export interface AcquirerNotificationRecord {
  connector: string;
  acquirerReference: string;
  eventCode: string;
  originalReference: string | undefined;
  owner: { merchantId: string; mode: Mode };
  reference: string;
  success: boolean;
  received: number;
}

/**
 * Records an item in the unit of work that applies it; false when an item with its connector,
 * acquirer reference and event code was recorded already (the primary key: the insert then does
 * nothing, and on PostgreSQL waits for a concurrent first one's commit), with what that one said.
 */
export async function recordAcquirerNotification(
  db: Db,
  item: AcquirerNotificationRecord,
): Promise<{ first: true } | { first: false; success: boolean; received: number }> {
  const result = await db
    .insertInto('acquirer_notifications')
    .values({
      connector: item.connector,
      acquirer_reference: item.acquirerReference,
      event_code: item.eventCode,
      original_reference: item.originalReference ?? null,
      merchant_id: item.owner.merchantId,
      mode: item.owner.mode,
      reference: item.reference,
      success: item.success ? 1 : 0,
      received: item.received,
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return { first: true };
  const earlier = await db
    .selectFrom('acquirer_notifications')
    .select(['success', 'received'])
    .where('connector', '=', item.connector)
    .where('acquirer_reference', '=', item.acquirerReference)
    .where('event_code', '=', item.eventCode)
    .executeTakeFirstOrThrow();
  return { first: false, success: earlier.success === 1, received: Number(earlier.received) };
}

/**
 * An item recorded already that says anew what Kassa's state no longer shows (a capture the
 * acquirer made after all, under the first one's name: docs/acquirers.md "Notifications"), applied
 * again: its record takes the time now, by a compare-and-set on the time it was recorded as read,
 * so of two deliveries at once one applies it (on PostgreSQL the second waits for the first's
 * commit, then finds the time moved). False when it had moved already.
 */
export async function recordAcquirerNotificationAgain(db: Db, item: AcquirerNotificationRecord, earlier: { received: number }): Promise<boolean> {
  const result = await db
    .updateTable('acquirer_notifications')
    .set({ received: item.received })
    .where('connector', '=', item.connector)
    .where('acquirer_reference', '=', item.acquirerReference)
    .where('event_code', '=', item.eventCode)
    .where('received', '=', earlier.received)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
