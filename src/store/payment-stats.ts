/**
 * The console's overview (docs/console.md "Overview"): payments created per UTC day and method
 * with how many succeeded and failed, and the money the successful ones took per currency,
 * counted by the database in one GROUP BY over the period's rows (`transactions_newest`, led by
 * `(created, reference)` and carrying every column the statement reads, covers it; for one
 * merchant `(merchant_id, created, reference)` finds its rows).
 * Payments are sales and authorisations a merchant asked for: not their captures (children), not
 * refunds, not enrollments.
 */
import { sql } from 'kysely';
import type { Db } from './store.ts';
import type { Mode } from './schema.ts';

export const DAY_MS = 24 * 3600 * 1000;

export interface PaymentStatsFilter {
  merchantId?: string;
  /** One mode: test money is never added to live (docs/console.md "Test and live"). */
  mode: Mode;
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

export interface DailyAmount {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  method: string;
  currency: string;
  /** The sum of the successful payments' amounts in this currency, in its minor units: never added across currencies. */
  amountMinor: number;
}

export interface PaymentStats {
  /** Payments per day and method, with how many succeeded and failed. */
  counts: DailyMethodCount[];
  /** The money the successful ones took, per day, method and currency. */
  paid: DailyAmount[];
}

/** The one statement of `paymentStats`, grouped by day, method and currency (bench/console-list.ts plans it as it is). */
export function paymentStatsQuery(db: Db, filter: PaymentStatsFilter) {
  // Integer division on both databases: `created` is a bigint (PostgreSQL) or an integer (SQLite).
  const day = sql<number>`created / ${sql.lit(DAY_MS)}`;
  let query = db
    .selectFrom('transactions')
    .select((eb) => {
      const succeeded = eb.case().when('status', '=', 'success');
      return [
        day.as('day'),
        'method',
        'currency',
        eb.fn.countAll<number>().as('payments'),
        eb.fn.sum<number>(succeeded.then(1).else(0).end()).as('successful'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'failed').then(1).else(0).end()).as('failed'),
        eb.fn.sum<number>(succeeded.then(eb.ref('amount_minor')).else(0).end()).as('paid'),
      ];
    })
    .where('type', 'in', ['sale', 'authorise'])
    .where('parent_reference', 'is', null)
    .where('created', '>=', filter.from)
    .where('created', '<', filter.to);
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  return query.where('mode', '=', filter.mode).groupBy([day, 'method', 'currency']).orderBy(day).orderBy('method').orderBy('currency');
}

/**
 * The period's payments per day and method, and the money the successful ones took per currency,
 * from one pass over the period's index entries; the counts of a day and method are added up over
 * its currencies here. PostgreSQL answers counts and sums of bigints as strings.
 */
export async function paymentStats(db: Db, filter: PaymentStatsFilter): Promise<PaymentStats> {
  const rows = await paymentStatsQuery(db, filter).execute();
  const counts = new Map<string, DailyMethodCount>();
  const paid: DailyAmount[] = [];
  for (const row of rows) {
    const day = Number(row.day);
    const key = `${day} ${row.method}`;
    const count = counts.get(key) ?? { day, method: row.method, payments: 0, successful: 0, failed: 0 };
    count.payments += Number(row.payments);
    count.successful += Number(row.successful);
    count.failed += Number(row.failed);
    counts.set(key, count);
    if (Number(row.successful) > 0) paid.push({ day, method: row.method, currency: row.currency, amountMinor: Number(row.paid) });
  }
  return { counts: [...counts.values()], paid };
}
