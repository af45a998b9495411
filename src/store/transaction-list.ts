/**
 * The console's payments list (docs/console.md): transactions newest first, filtered, one page
 * at a time by keyset pagination on (`created`, `reference`), so a page costs the same at any
 * depth. The search matches exactly, so it walks an index (013_console): a Kassa reference, a
 * `merchantOrderReference`, or the last four digits of the card.
 */
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from './store.ts';
import type { Database, Mode, TransactionRow } from './schema.ts';

export interface TransactionFilter {
  merchantId?: string;
  mode?: Mode;
  status?: string;
  method?: string;
  type?: string;
  /** Epoch ms, inclusive. */
  createdFrom?: number;
  /** Epoch ms, exclusive. */
  createdTo?: number;
  search?: string;
}

/** Where the previous page ended. */
export interface Cursor {
  created: number;
  reference: string;
}

/** What the list shows of a transaction. */
export const listColumns = [
  'reference',
  'merchant_id',
  'mode',
  'method',
  'type',
  'status',
  'failure_code',
  'amount_minor',
  'currency',
  'merchant_order_reference',
  'brand',
  'parent_reference',
  'created',
  // What happened after the status (captured, refunded, disputed) is read from it (console/outcomes.ts).
  'details',
] as const satisfies readonly (keyof TransactionRow)[];

export type ListedTransaction = Pick<TransactionRow, (typeof listColumns)[number]>;

const LAST_FOUR = /^\d{4}$/;

function filtered(db: Db, filter: TransactionFilter) {
  let query = filter.search === undefined ? db.selectFrom('transactions') : searched(db, filter.search);
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.createdFrom !== undefined) query = query.where('created', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created', '<', filter.createdTo);
  return query;
}

/**
 * The transactions the search matches exactly — each column through its own index — and then
 * only those. The matches come first in a CROSS JOIN, which SQLite never reorders: written as one
 * `OR` (or `reference IN (…)`), SQLite without statistics walked a merchant's whole index and
 * tested every row (2.3 s for a large merchant at 1,000,000 rows; `npm run bench:console`).
 * PostgreSQL plans the join on its own statistics.
 */
function searched(db: Db, search: string) {
  const byColumn = (column: 'reference' | 'merchant_order_reference' | 'card_last_four') =>
    db.selectFrom('transactions').select('reference as matched').where(column, '=', search);
  let matches = byColumn('reference').union(byColumn('merchant_order_reference'));
  if (LAST_FOUR.test(search)) matches = matches.union(byColumn('card_last_four'));
  // Only `transactions` has the columns the list names (the matches' one is `matched`), so the
  // query reads as one over `transactions` alone.
  return db.selectFrom(matches.as('search')).crossJoin('transactions').whereRef('transactions.reference', '=', 'search.matched') as unknown as SelectQueryBuilder<
    Database,
    'transactions',
    object
  >;
}

/** The query of one page of the list, newest first, after `cursor` (bench/console-list.ts plans it as it is). */
export function listQuery(db: Db, filter: TransactionFilter, cursor: Cursor | undefined, limit: number) {
  let query = filtered(db, filter).select(listColumns);
  if (cursor) {
    query = query.where((eb) => eb.or([eb('created', '<', cursor.created), eb.and([eb('created', '=', cursor.created), eb('reference', '<', cursor.reference)])]));
  }
  return query.orderBy('created', 'desc').orderBy('reference', 'desc').limit(limit);
}

/** One page of the list, newest first, after `cursor`. */
export async function listTransactions(db: Db, filter: TransactionFilter, cursor: Cursor | undefined, limit: number): Promise<ListedTransaction[]> {
  return listQuery(db, filter, cursor, limit).execute();
}

/** Refunds and captures of a transaction: its children. */
export async function childrenOf(db: Db, reference: string): Promise<ListedTransaction[]> {
  return db.selectFrom('transactions').select(listColumns).where('parent_reference', '=', reference).orderBy('created').orderBy('reference').execute();
}
