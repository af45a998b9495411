/**
 * The console's payments list (docs/console.md): transactions newest first, filtered, one page
 * at a time by keyset pagination on (`created`, `reference`), so a page costs the same at any
 * depth. The search matches exactly, so it walks an index (013_console): a Kassa reference, a
 * `merchantOrderReference`, or the last four digits of the card.
 */
import type { Db } from './store.ts';
import type { Mode, TransactionRow } from './schema.ts';

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
] as const satisfies readonly (keyof TransactionRow)[];

export type ListedTransaction = Pick<TransactionRow, (typeof listColumns)[number]>;

const LAST_FOUR = /^\d{4}$/;

function filtered(db: Db, filter: TransactionFilter) {
  let query = db.selectFrom('transactions');
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.createdFrom !== undefined) query = query.where('created', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created', '<', filter.createdTo);
  const search = filter.search;
  if (search !== undefined) {
    query = query.where((eb) =>
      eb.or([eb('reference', '=', search), eb('merchant_order_reference', '=', search), ...(LAST_FOUR.test(search) ? [eb('card_last_four', '=', search)] : [])]),
    );
  }
  return query;
}

/** One page of the list, newest first, after `cursor`. */
export async function listTransactions(db: Db, filter: TransactionFilter, cursor: Cursor | undefined, limit: number): Promise<ListedTransaction[]> {
  let query = filtered(db, filter).select(listColumns);
  if (cursor) {
    query = query.where((eb) => eb.or([eb('created', '<', cursor.created), eb.and([eb('created', '=', cursor.created), eb('reference', '<', cursor.reference)])]));
  }
  return query.orderBy('created', 'desc').orderBy('reference', 'desc').limit(limit).execute();
}

/** Refunds and captures of a transaction: its children. */
export async function childrenOf(db: Db, reference: string): Promise<ListedTransaction[]> {
  return db.selectFrom('transactions').select(listColumns).where('parent_reference', '=', reference).orderBy('created').orderBy('reference').execute();
}
