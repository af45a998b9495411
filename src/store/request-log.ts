/**
 * The request log's queries (docs/api.md "Request log"): a batch of entries in one multi-row
 * insert, a merchant's entries in one mode, newest written first, with the console's filters, and the
 * housekeeping's purge, oldest first.
 */
import type { Insertable, Selectable } from 'kysely';
import type { Mode, RequestLogTable } from './schema.ts';
import type { Db } from './store.ts';

export type RequestLogEntry = Insertable<RequestLogTable>;
export type RequestLogRow = Selectable<RequestLogTable>;

export interface RequestLogFilter {
  /** Every merchant's when not given (a platform operator's console choosing none). */
  merchantId?: string;
  /** Both modes when not given (the CLI's default); the console always shows one. */
  mode?: Mode;
  /** 2, 4 or 5: statuses 200–299, 400–499, 500–599. */
  statusClass?: 2 | 4 | 5;
  route?: string;
  requestId?: string;
  /** Entries older than this id only (the next page). */
  beforeId?: number;
}

export async function insertRequestLogEntries(db: Db, entries: RequestLogEntry[]): Promise<void> {
  if (entries.length > 0) await db.insertInto('request_log').values(entries).execute();
}

export async function listRequestLog(db: Db, filter: RequestLogFilter, limit: number): Promise<RequestLogRow[]> {
  let query = db.selectFrom('request_log').selectAll();
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  if (filter.statusClass !== undefined) query = query.where('status', '>=', filter.statusClass * 100).where('status', '<', filter.statusClass * 100 + 100);
  if (filter.route !== undefined) query = query.where('route', '=', filter.route);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  // Newest written first: entries are written in batches, so one process's entries may come a second after another's.
  return query.orderBy('id', 'desc').limit(limit).execute();
}

export async function deleteOldRequestLog(db: Db, before: number, limit: number): Promise<number> {
  const oldest = db.selectFrom('request_log').select('id').where('at', '<', before).orderBy('at').limit(limit);
  const result = await db.deleteFrom('request_log').where('id', 'in', oldest).executeTakeFirst();
  return Number(result.numDeletedRows);
}
