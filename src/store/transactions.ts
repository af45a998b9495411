/** Transaction queries, nothing else. A status changes only through `changeStatus`. */
import type { Db, Dialect } from './store.ts';
import type { Mode, NewTransaction, TransactionRow } from './schema.ts';
import { prepare, standInRow } from './prepared.ts';
import { identifierShaped, pageTokenHash } from '../lib/tokens.ts';
import { statusTransitions, transactionsCreated } from '../lib/metrics.ts';
import { afterCommit } from './after-commit.ts';
import type { EventCause } from '../ground/event-causes.ts';

const transactionColumns = [
  'reference',
  'merchant_id',
  'mode',
  'method',
  'type',
  'status',
  'failure_code',
  'amount_minor',
  'currency',
  'language',
  'return_url',
  'merchant_order_reference',
  'description',
  'metadata',
  'brand',
  'webhook_url',
  'page_token_hash',
  'flow',
  'echo',
  'request',
  'details',
  'authentication',
  'parent_reference',
  'created',
  'last_update',
  'expires_at',
  'page_token_sealed',
] as const satisfies readonly (keyof TransactionRow)[];

const insertTransactionRow = prepare((db, row: Record<string, unknown>) => db.insertInto('transactions').values(standInRow(transactionColumns, row)), {
  deferrable: true,
});
const insertEvent = prepare(
  (db, e: { reference: string; from: string | null; to: string; failureCode: string | null; cause: EventCause; at: number; detail: string | null }) =>
    db
      .insertInto('transaction_events')
      .values({ reference: e.reference, from_status: e.from, to_status: e.to, failure_code: e.failureCode, cause: e.cause, at: e.at, detail: e.detail }),
  { deferrable: true },
);
const selectOwnTransaction = prepare((db, p: { reference: string; merchantId: string; mode: Mode }) =>
  db.selectFrom('transactions').selectAll().where('reference', '=', p.reference).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode),
);
/** Everything the payment object shows: all columns but the large `request` document. */
const paymentColumns = [...transactionColumns.filter((column) => column !== 'request'), 'version' as const];
const selectOwnPayment = prepare((db, p: { reference: string; merchantId: string; mode: Mode }) =>
  db.selectFrom('transactions').select(paymentColumns).where('reference', '=', p.reference).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode),
);
const selectOwnPaymentVersion = prepare((db, p: { reference: string; merchantId: string; mode: Mode }) =>
  db.selectFrom('transactions').select('version').where('reference', '=', p.reference).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode),
);
const selectByPageTokenHash = prepare((db, p: { hash: string }) => db.selectFrom('transactions').selectAll().where('page_token_hash', '=', p.hash));

export interface StatusChange {
  reference: string;
  from: string;
  to: string;
  failureCode?: string | null;
  /** Why it changed: `customer_cancel`, `expired`, `test_helper`, … kept in the event row. */
  cause: EventCause;
  at: number;
  /** What the acquirer said of it, kept with its event (023_event_details). */
  detail?: string | null;
  /** Extra columns written in the same conditional update (e.g. authentication). */
  set?: Partial<Pick<TransactionRow, 'authentication' | 'brand' | 'details' | 'card_last_four'>>;
}

export async function insertTransaction(db: Db, row: NewTransaction, cause: EventCause, detail: string | null = null): Promise<void> {
  await insertTransactionRow(db, { ...row });
  await insertEvent(db, { reference: row.reference, from: null, to: row.status, failureCode: null, cause, at: row.created, detail });
  // Counted here, where every writer passes, and only once the unit commits.
  afterCommit(db, () => transactionsCreated.inc({ method: row.method, type: row.type, status: row.status, mode: row.mode }));
}

/**
 * Compare-and-set: the update applies only if the status is still `from`, so two
 * processes can never both move the same payment. Returns false when it did not apply.
 */
export async function changeStatus(db: Db, change: StatusChange): Promise<boolean> {
  const moved = await db
    .updateTable('transactions')
    .set((eb) => ({ ...change.set, status: change.to, failure_code: change.failureCode ?? null, last_update: change.at, version: eb('version', '+', 1) }))
    .where('reference', '=', change.reference)
    .where('status', '=', change.from)
    .returning(['method', 'mode'])
    .executeTakeFirst();
  if (!moved) return false;
  await insertEvent(db, {
    reference: change.reference,
    from: change.from,
    to: change.to,
    failureCode: change.failureCode ?? null,
    cause: change.cause,
    at: change.at,
    detail: change.detail ?? null,
  });
  afterCommit(db, () => statusTransitions.inc({ method: moved.method, status: change.to, mode: moved.mode }));
  return true;
}

/**
 * An event of a transaction's timeline that changes neither its status nor anything the state
 * machine knows: the acquirer's word on it (a dispute stage, a report, a final outcome the acquirer
 * later undid), with what it said (`detail`). The status is the transaction's as it is.
 */
export async function recordTimelineEntry(db: Db, entry: { reference: string; status: string; cause: EventCause; detail: string | null; at: number }): Promise<void> {
  await db
    .insertInto('transaction_events')
    .values({
      reference: entry.reference,
      from_status: entry.status,
      to_status: entry.status,
      failure_code: null,
      cause: entry.cause,
      at: entry.at,
      detail: entry.detail,
    })
    .execute();
}

/** Whose a transaction is: its merchant and mode, as callers and connections name them. */
export const ownerOf = (row: Pick<TransactionRow, 'merchant_id' | 'mode'>) => ({ merchantId: row.merchant_id, mode: row.mode });

/** A transaction as its owner sees it: another merchant's or the other mode's is simply not there. */
export async function findOwnTransaction(db: Db, owner: { merchantId: string; mode: Mode }, reference: string): Promise<TransactionRow | undefined> {
  return (await selectOwnTransaction(db, { reference, merchantId: owner.merchantId, mode: owner.mode })).rows[0];
}

/** The row's version (incremented by every update), or undefined when the owner has no such transaction. */
export async function ownPaymentVersion(db: Db, owner: { merchantId: string; mode: Mode }, reference: string): Promise<number | undefined> {
  return (await selectOwnPaymentVersion(db, { reference, merchantId: owner.merchantId, mode: owner.mode })).rows[0]?.version;
}

/** As findOwnTransaction, without the `request` document: for reading the payment object. */
export async function findOwnPayment(
  db: Db,
  owner: { merchantId: string; mode: Mode },
  reference: string,
): Promise<Omit<TransactionRow, 'request' | 'card_last_four'> | undefined> {
  return (await selectOwnPayment(db, { reference, merchantId: owner.merchantId, mode: owner.mode })).rows[0];
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

/**
 * Up to `limit` pending payments whose `expires_at` is past `now`, soonest first, but none whose
 * authorisation is in flight: its outcome, not the clock, ends it (payment_pages). On
 * PostgreSQL they are locked until the unit of work ends and rows another unit holds are
 * skipped (FOR UPDATE SKIP LOCKED, PostgreSQL docs, SELECT "The Locking Clause"), so
 * processes sweeping at once each take their own; SQLite runs one unit at a time anyway.
 */
export async function claimDuePayments(db: Db, dialect: Dialect, now: number, limit: number) {
  let query = db
    .selectFrom('transactions')
    .select('reference')
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('payment_pages')
            .select('payment_pages.reference')
            .whereRef('payment_pages.reference', '=', 'transactions.reference')
            .where('payment_pages.authorisation_in_flight', 'is not', null),
        ),
      ),
    )
    .orderBy('expires_at')
    .limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return query.execute();
}

/**
 * A sale, locked until the unit of work ends (PostgreSQL: FOR UPDATE), so that units
 * reserving refunds of it run one after another in every process; SQLite runs one unit
 * at a time anyway.
 */
export async function lockTransaction(db: Db, dialect: Dialect, reference: string) {
  let query = db.selectFrom('transactions').selectAll().where('reference', '=', reference);
  if (dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * What a sale's refunds hold: `reserved` counts pending and successful ones (docs/decisions.md#refunds)
 * and those held for an operator, whose money may be gone (docs/acquirers.md "Claims and leases");
 * `refunded` the successful.
 */
export async function refundTotals(db: Db, saleReference: string): Promise<{ reserved: number; refunded: number }> {
  const rows = await db
    .selectFrom('transactions')
    .select(['status', 'amount_minor', 'details'])
    .where('parent_reference', '=', saleReference)
    .where('type', '=', 'credit')
    .where('status', 'in', ['pending', 'success', 'manualintervention'])
    .execute();
  // A successful refund the acquirer undid afterwards (failed, or its money came back) holds nothing: docs/decisions.md "An acquirer undoing a final outcome".
  const holding = rows.filter((row) => row.status !== 'success' || !undoneByAcquirer(row));
  const total = (statuses: string[]) => holding.filter((row) => statuses.includes(row.status)).reduce((sum, row) => sum + Number(row.amount_minor), 0);
  return { reserved: total(['pending', 'success', 'manualintervention']), refunded: total(['success']) };
}

/** What undid a successful capture or refund afterwards, by the acquirer's word (`details.undoneByAcquirer`), if anything did. */
export const undoneByAcquirer = (row: Pick<TransactionRow, 'details'>) => (JSON.parse(row.details) as { undoneByAcquirer?: string }).undoneByAcquirer;

/**
 * Replaces a transaction's `details` (what its payment object shows), bumping its version for
 * the readers' caches. Its status and `lastUpdate` stay: they tell of its own state changes.
 */
export async function setTransactionDetails(db: Db, reference: string, details: string): Promise<void> {
  await db
    .updateTable('transactions')
    .set((eb) => ({ details, version: eb('version', '+', 1) }))
    .where('reference', '=', reference)
    .execute();
}

/** The payment whose capability token this is: found by the token's hash, the only form stored. */
export async function findByPageToken(db: Db, pageToken: string): Promise<TransactionRow | undefined> {
  if (!identifierShaped(pageToken)) return undefined;
  return (await selectByPageTokenHash(db, { hash: pageTokenHash(pageToken) })).rows[0];
}

export async function findTransaction(db: Db, reference: string) {
  return db.selectFrom('transactions').selectAll().where('reference', '=', reference).executeTakeFirst();
}

export async function eventsOf(db: Db, reference: string) {
  return db.selectFrom('transaction_events').selectAll().where('reference', '=', reference).orderBy('id').execute();
}
