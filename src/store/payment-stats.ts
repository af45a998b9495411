/**
 * The console's overview (docs/console.md "Overview"): payments created per UTC day and method
 * with how many succeeded and failed, counted by the database in one GROUP BY over the period's
 * rows (the `(created, reference)` and `(merchant_id, created, reference)` indexes find them).
 * Payments are sales and authorisations a merchant asked for: not their captures (children), not
 * refunds, not enrollments.
 */
import { sql } from 'kysely';
import type { Db } from './store.ts';
import type { Mode } from './schema.ts';

export const DAY_MS = 24 * 3600 * 1000;

export interface PaymentStatsFilter {
  merchantId?: string;
  mode?: Mode;
  /** Epoch ms of the first day's start (UTC), inclusive. */
  from: number;
  /** Epoch ms, exclusive. */
  to: number;
}

export interface DailyMethodCount {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  method: string;
  payments: number;
  successful: number;
  failed: number;
}

export async function paymentsPerDay(db: Db, filter: PaymentStatsFilter): Promise<DailyMethodCount[]> {
  // Integer division on both databases: `created` is a bigint (PostgreSQL) or an integer (SQLite).
  const day = sql<number>`created / ${sql.lit(DAY_MS)}`;
  let query = db
    .selectFrom('transactions')
    .select((eb) => [
      day.as('day'),
      'method',
      eb.fn.countAll<number>().as('payments'),
      eb.fn.sum<number>(eb.case().when('status', '=', 'success').then(1).else(0).end()).as('successful'),
      eb.fn.sum<number>(eb.case().when('status', '=', 'failed').then(1).else(0).end()).as('failed'),
    ])
    .where('type', 'in', ['sale', 'authorise'])
    .where('parent_reference', 'is', null)
    .where('created', '>=', filter.from)
    .where('created', '<', filter.to);
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  const rows = await query.groupBy([day, 'method']).orderBy(day).orderBy('method').execute();
  // PostgreSQL answers counts and sums of bigints as strings.
  return rows.map((row) => ({
    day: Number(row.day),
    method: row.method,
    payments: Number(row.payments),
    successful: Number(row.successful),
    failed: Number(row.failed),
  }));
}

export interface DailyAmount {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  method: string;
  currency: string;
  /** The sum of the successful payments' amounts in this currency, in its minor units: never added across currencies. */
  amountMinor: number;
}

/** The money the period's successful payments took, per day, method and currency (the same payments `paymentsPerDay` counts). */
export async function amountsPaidPerDay(db: Db, filter: PaymentStatsFilter): Promise<DailyAmount[]> {
  const day = sql<number>`created / ${sql.lit(DAY_MS)}`;
  let query = db
    .selectFrom('transactions')
    .select((eb) => [day.as('day'), 'method', 'currency', eb.fn.sum<number>('amount_minor').as('amount')])
    .where('type', 'in', ['sale', 'authorise'])
    .where('parent_reference', 'is', null)
    .where('status', '=', 'success')
    .where('created', '>=', filter.from)
    .where('created', '<', filter.to);
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  const rows = await query.groupBy([day, 'method', 'currency']).orderBy(day).orderBy('method').orderBy('currency').execute();
  return rows.map((row) => ({ day: Number(row.day), method: row.method, currency: row.currency, amountMinor: Number(row.amount) }));
}
