/** Transaction queries, nothing else. A status changes only through `changeStatus`. */
import type { Db } from './store.ts';
import type { Mode, NewTransaction, TransactionRow } from './schema.ts';

export interface StatusChange {
  reference: string;
  from: string;
  to: string;
  failureCode?: string | null;
  /** Why it changed: `customer_cancel`, `expired`, `acquirer`, `test_helper`, … kept in the event row. */
  cause: string;
  at: number;
  /** Extra columns written in the same conditional update (e.g. authentication). */
  set?: Partial<Pick<TransactionRow, 'authentication' | 'brand' | 'details'>>;
}

export async function insertTransaction(db: Db, row: NewTransaction, cause: string): Promise<void> {
  await db.insertInto('transactions').values(row).execute();
  await db
    .insertInto('transaction_events')
    .values({ reference: row.reference, from_status: null, to_status: row.status, failure_code: null, cause, at: row.created })
    .execute();
}

/**
 * Compare-and-set: the update applies only if the status is still `from`, so two
 * processes can never both move the same payment. Returns false when it did not apply.
 */
export async function changeStatus(db: Db, change: StatusChange): Promise<boolean> {
  const result = await db
    .updateTable('transactions')
    .set({ ...change.set, status: change.to, failure_code: change.failureCode ?? null, last_update: change.at })
    .where('reference', '=', change.reference)
    .where('status', '=', change.from)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await db
    .insertInto('transaction_events')
    .values({
      reference: change.reference,
      from_status: change.from,
      to_status: change.to,
      failure_code: change.failureCode ?? null,
      cause: change.cause,
      at: change.at,
    })
    .execute();
  return true;
}

/** A transaction as its owner sees it: another merchant's or the other mode's is simply not there. */
export async function findOwnTransaction(db: Db, owner: { merchantId: string; mode: Mode }, reference: string) {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('reference', '=', reference)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

export async function findOwnTransactions(db: Db, owner: { merchantId: string; mode: Mode }, references: string[]) {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('reference', 'in', references)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .execute();
}

export async function findByPageToken(db: Db, pageToken: string) {
  return db.selectFrom('transactions').selectAll().where('page_token', '=', pageToken).executeTakeFirst();
}

export async function findTransaction(db: Db, reference: string) {
  return db.selectFrom('transactions').selectAll().where('reference', '=', reference).executeTakeFirst();
}

export async function eventsOf(db: Db, reference: string) {
  return db.selectFrom('transaction_events').selectAll().where('reference', '=', reference).orderBy('id').execute();
}
