/** Dispute queries (026_disputes), nothing else: a dispute's stage changes only through `setDisputeStage`. */
import type { Db, Dialect } from './store.ts';
import type { DisputeTable, Mode } from './schema.ts';

export type DisputeRow = DisputeTable;

/**
 * Records a new dispute; false when its acquirer's reference is known already (the unique
 * constraint: the insert then does nothing, and on PostgreSQL waits for a concurrent first one's commit).
 */
export async function insertDispute(db: Db, row: DisputeRow): Promise<boolean> {
  const result = await db
    .insertInto('disputes')
    .values(row)
    .onConflict((oc) => oc.columns(['connector', 'acquirer_reference']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * The dispute the acquirer names, locked until the unit of work ends (PostgreSQL: FOR UPDATE),
 * so that two of its notifications at once take turns deciding its next stage; SQLite runs one
 * unit at a time anyway.
 */
export async function lockDisputeByAcquirerReference(db: Db, dialect: Dialect, at: { connector: string; acquirerReference: string }) {
  let query = db.selectFrom('disputes').selectAll().where('connector', '=', at.connector).where('acquirer_reference', '=', at.acquirerReference);
  if (dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findDispute(db: Db, reference: string) {
  return db.selectFrom('disputes').selectAll().where('reference', '=', reference).executeTakeFirst();
}

/** Compare-and-set: the stage moves only if it is still `from`. Returns false when it did not apply. */
export async function setDisputeStage(db: Db, change: { reference: string; from: string; to: string; at: number }): Promise<boolean> {
  const result = await db
    .updateTable('disputes')
    .set({ stage: change.to, last_update: change.at })
    .where('reference', '=', change.reference)
    .where('stage', '=', change.from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A payment's disputes, oldest first, with their chargeback transaction's amount and status. */
export async function disputesOfPayment(db: Db, paymentReference: string) {
  return db
    .selectFrom('disputes')
    .innerJoin('transactions', 'transactions.reference', 'disputes.reference')
    .select(['disputes.reference', 'disputes.stage', 'transactions.status', 'transactions.amount_minor', 'transactions.currency', 'disputes.created'])
    .where('disputes.payment_reference', '=', paymentReference)
    .orderBy('disputes.created')
    .orderBy('disputes.reference')
    .execute();
}

/** What open disputes (in `stages`) of one mode hold, per currency: how many, and the amount at stake in its minor units. */
export async function openDisputeTotals(db: Db, filter: { merchantId?: string; mode: Mode; stages: readonly string[] }) {
  let query = db
    .selectFrom('disputes')
    .innerJoin('transactions', 'transactions.reference', 'disputes.reference')
    .select((eb) => ['transactions.currency', eb.fn.countAll<number>().as('disputes'), eb.fn.sum<number>('transactions.amount_minor').as('amount')])
    .where('disputes.stage', 'in', [...filter.stages])
    .where('transactions.mode', '=', filter.mode);
  if (filter.merchantId !== undefined) query = query.where('transactions.merchant_id', '=', filter.merchantId);
  const rows = await query.groupBy('transactions.currency').orderBy('transactions.currency').execute();
  // PostgreSQL answers counts and sums of bigints as strings.
  return rows.map((row) => ({ currency: row.currency, disputes: Number(row.disputes), amountMinor: Number(row.amount) }));
}
