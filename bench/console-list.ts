/**
 * `npm run bench:console`: the console's payments list (docs/console.md) at 1,000,000
 * transactions in SQLite. Fills a fresh database with a realistic mix — 40 merchants of very
 * different sizes, mostly live, sales with their refunds and captures, authorisations and
 * enrollments, four methods, the statuses in their usual shares, a year of dates — in one
 * transaction, then times the list's own store function (`listTransactions`, as the console
 * calls it) for first pages under several filters, a deep keyset page, and the three searches;
 * and the overview's GROUP BY. Each query runs RUNS times after a warm-up; median and p99 are
 * written to bench/results/console-list.json with the plan SQLite chose for each.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/store.ts';
import { createMerchant } from '../src/merchants/merchants.ts';
import { listQuery, listTransactions, type Cursor, type TransactionFilter } from '../src/store/transaction-list.ts';
import { DAY_MS, paymentStats, paymentStatsQuery, type PaymentStatsFilter } from '../src/store/payment-stats.ts';

const ROWS = Number(process.env.BENCH_CONSOLE_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 50);
const MERCHANTS = 40;
const PAGE = 51; // the console asks for one more than it shows, to know whether a next page exists
const TARGET_MS = 100;
const root = path.resolve(import.meta.dirname, '..');

/** A seeded generator (mulberry32): the same database on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(16);
function pick<T>(weights: readonly (readonly [T, number])[]): T {
  let r = rand() * weights.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, w] of weights) if ((r -= w) < 0) return value;
  return weights[weights.length - 1][0];
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-bench-console-'));
const config = loadConfig({ DATA_DIR: path.join(dir, 'data'), KEY_DIR: path.join(dir, 'keys') });
let store = await openStore(config);
await store.migrate();
const merchantIds: string[] = [];
for (let i = 0; i < MERCHANTS; i++) merchantIds.push((await createMerchant(store, `Bench shop ${i}`)).merchantId);
await store.close();

// Merchant sizes fall off as 1/rank (Zipf): the largest has about a quarter of all transactions, the smallest a few thousand.
const merchantWeights = merchantIds.map((id, rank) => [id, 1 / (rank + 1)] as const);
const now = Date.now();
const started = performance.now();
const raw = new Database(path.join(config.dataDir, 'kassa.db'));
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = OFF');
const columns = [
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
  'merchant_order_reference',
  'brand',
  'page_token_hash',
  'flow',
  'echo',
  'request',
  'details',
  'parent_reference',
  'created',
  'last_update',
  'card_last_four',
];
const insert = raw.prepare(`INSERT INTO transactions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
const sales: string[] = [];
raw.transaction(() => {
  for (let i = 0; i < ROWS; i++) {
    const created = now - Math.floor(rand() * 365 * DAY_MS);
    const reference = `tr_${created.toString(36).padStart(9, '0')}${i.toString(36).padStart(8, '0')}`;
    const merchantId = pick(merchantWeights);
    const method = pick([
      ['card', 60],
      ['landingpage', 15],
      ['walletpay', 15],
      ['vault', 10],
    ] as const);
    // Refunds and captures point at an earlier sale.
    const type =
      sales.length > 1000
        ? pick([
            ['sale', 70],
            ['authorise', 15],
            ['credit', 10],
            ['token', 5],
          ] as const)
        : 'sale';
    const status = pick([
      ['success', 75],
      ['failed', 15],
      ['pending', 8],
      ['manualintervention', 2],
    ] as const);
    const brand =
      method === 'landingpage'
        ? null
        : pick([
            ['visa', 50],
            ['mastercard', 35],
            ['amex', 5],
            ['maestro', 5],
            ['bcmc', 5],
          ] as const);
    const paidByCard = (method === 'card' || method === 'vault') && status === 'success';
    insert.run(
      reference,
      merchantId,
      rand() < 0.85 ? 'live' : 'test',
      method,
      type,
      status,
      status === 'failed' ? 'card_refused' : null,
      100 + Math.floor(rand() * 50_000),
      'eur',
      'nld',
      type === 'credit' || rand() < 0.1 ? null : `order-${i}`,
      brand,
      `h${i}`,
      'card',
      '{}',
      '{}',
      '{}',
      type === 'credit' ? sales[Math.floor(rand() * sales.length)] : null,
      created,
      created,
      paidByCard ? String(Math.floor(rand() * 10_000)).padStart(4, '0') : null,
    );
    if (type === 'sale' && sales.length < 100_000) sales.push(reference);
  }
})();
raw.pragma('wal_checkpoint(TRUNCATE)');
const fillSeconds = (performance.now() - started) / 1000;
/** The plan SQLite itself makes of a statement the store runs, with its parameters. */
const planOf = (compiled: { sql: string; parameters: readonly unknown[] }) =>
  raw
    .prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`)
    .all(...compiled.parameters)
    .map((row) => (row as { detail: string }).detail);
const plans = (filter: TransactionFilter, cursor?: Cursor) => planOf(listQuery(store.read, filter, cursor, PAGE).compile());
process.stdout.write(`filled ${ROWS} transactions in ${fillSeconds.toFixed(1)} s\n`);

store = await openStore(config);
const big = merchantIds[0];
const small = merchantIds[MERCHANTS - 1];
const sample = (
  await sql<{
    reference: string;
    merchant_order_reference: string;
  }>`SELECT reference, merchant_order_reference FROM transactions WHERE merchant_id = ${small} AND merchant_order_reference IS NOT NULL LIMIT 1`.execute(store.read)
).rows[0];
const lastFour = (
  await sql<{ card_last_four: string }>`SELECT card_last_four FROM transactions WHERE merchant_id = ${big} AND card_last_four IS NOT NULL LIMIT 1`.execute(store.read)
).rows[0].card_last_four;
const day = Math.floor(now / DAY_MS) * DAY_MS;
/** The cursor after `depth` rows of `filter`: where page depth/50 + 1 starts. */
async function cursorAt(filter: TransactionFilter, depth: number): Promise<Cursor> {
  const rows = await listTransactions(store.read, filter, undefined, depth);
  const last = rows[rows.length - 1];
  return { created: last.created, reference: last.reference };
}

const cases: { name: string; filter: TransactionFilter; cursor?: Cursor }[] = [
  { name: 'all merchants, first page', filter: {} },
  { name: 'all merchants, live, failed', filter: { mode: 'live', status: 'failed' } },
  { name: 'all merchants, manualintervention, authorise (rare: 0.3 %)', filter: { status: 'manualintervention', type: 'authorise' } },
  { name: 'all merchants, last 7 days, walletpay', filter: { method: 'walletpay', createdFrom: day - 6 * DAY_MS, createdTo: day + DAY_MS } },
  { name: 'largest merchant, first page', filter: { merchantId: big } },
  { name: 'largest merchant, card, failed', filter: { merchantId: big, method: 'card', status: 'failed' } },
  { name: 'smallest merchant, first page', filter: { merchantId: small } },
  { name: 'smallest merchant, live, pending, card', filter: { merchantId: small, mode: 'live', status: 'pending', method: 'card' } },
  { name: 'smallest merchant, a month a year ago', filter: { merchantId: small, createdFrom: day - 360 * DAY_MS, createdTo: day - 330 * DAY_MS } },
  { name: 'all merchants, page 200 (keyset)', filter: {}, cursor: await cursorAt({}, 199 * 50) },
  {
    name: 'largest merchant, failed, page 100 (keyset)',
    filter: { merchantId: big, status: 'failed' },
    cursor: await cursorAt({ merchantId: big, status: 'failed' }, 99 * 50),
  },
  { name: 'search: Kassa reference', filter: { search: sample.reference } },
  { name: 'search: merchantOrderReference', filter: { search: sample.merchant_order_reference } },
  { name: 'search: last four, largest merchant', filter: { merchantId: big, search: lastFour } },
  { name: 'search: no match, all merchants', filter: { search: 'order-none' } },
];

const stats = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { medianMs: Number(at(0.5).toFixed(2)), p99Ms: Number(at(0.99).toFixed(2)), maxMs: Number(sorted[sorted.length - 1].toFixed(2)) };
};
async function time(run: () => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return stats(times);
}

const results = [];
for (const c of cases) {
  const rows = (await listTransactions(store.read, c.filter, c.cursor, PAGE)).length;
  const measured = await time(() => listTransactions(store.read, c.filter, c.cursor, PAGE));
  results.push({ query: c.name, rows, ...measured, withinTarget: measured.p99Ms <= TARGET_MS, plan: plans(c.filter, c.cursor) });
}
const period = { from: day - 29 * DAY_MS, to: day + DAY_MS, mode: 'live' as const };
const overviewOf = async (name: string, filter: PaymentStatsFilter) => ({
  query: `overview: ${name}`,
  ...(await time(() => paymentStats(store.read, filter))),
  plan: planOf(paymentStatsQuery(store.read, filter).compile()),
});
const overview = [await overviewOf('all merchants, 30 days', period), await overviewOf('largest merchant, 30 days', { ...period, merchantId: big })];
await store.close();
raw.close();
fs.rmSync(dir, { recursive: true, force: true });

console.table(results.map(({ plan: _plan, ...r }) => r));
console.table(overview.map(({ plan: _plan, ...r }) => r));
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: os.cpus()[0]?.model,
  rows: ROWS,
  runs: RUNS,
  targetMs: TARGET_MS,
  fillSeconds: Number(fillSeconds.toFixed(1)),
  list: results,
  overview,
};
const out = path.join(root, 'bench', 'results', 'console-list.json');
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`written: ${path.relative(root, out)}`);
