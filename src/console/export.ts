/**
 * GET /dashboard/payments.csv: the payments list with its filters and search, as CSV (RFC 4180,
 * csv-stringify), streamed: pages of the list's own query are read one after another by keyset,
 * so an export of any size holds one page in memory. Amounts are decimal strings in the
 * currency's exponent. One mode at a time, as the list shows it (the default one when none is
 * asked), named in the file's name. Against formula injection (OWASP "CSV injection", docs/console.md
 * "Export"): every cell is quoted, so no separator inside one, a comma or the `;` Dutch and German
 * spreadsheets split on, starts a new cell; and a cell a spreadsheet would take for a formula is
 * prefixed with `'`. The export is written to the audit log with its filters.
 */
import { pipeline, Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'csv-stringify';
import type { Db } from '../store/store.ts';
import { listTransactions, type Cursor, type ListedTransaction, type TransactionFilter } from '../store/transaction-list.ts';
import { findCurrency, formatAmount } from '../ground/amount.ts';
import { accountActor, audit } from '../operators/audit.ts';
import type { ConsoleContext, Query } from './context.ts';
import { parseFilters } from './filters.ts';
import { messagePage } from './views.ts';

const EXPORT_PAGE = 1000;

const csvColumns = [
  'reference',
  'created',
  'merchantId',
  'mode',
  'type',
  'method',
  'brand',
  'status',
  'failureCode',
  'amount',
  'currency',
  'merchantOrderReference',
  'parentReference',
] as const;

/** Every listed transaction matching `filter`, newest first, a page of the list at a time. */
export async function* listedTransactions(db: Db, filter: TransactionFilter, pageSize = EXPORT_PAGE): AsyncGenerator<ListedTransaction> {
  let cursor: Cursor | undefined;
  for (;;) {
    const page = await listTransactions(db, filter, cursor, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    const last = page[page.length - 1];
    cursor = { created: last.created, reference: last.reference };
  }
}

/** A spreadsheet may run a cell starting with one of these as a formula (OWASP's list, with ASVS 1.2.10's NUL and the line feed). */
const FORMULA_START = /^[=+\-@\t\r\n\0]/;
/** A plain decimal number (`-10.00`) is read as a number, never run: it stays usable as one. */
const NUMBER = /^[+-]?\d+(\.\d+)?$/;
export const spreadsheetSafe = (text: string) => (FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text);

const record = (row: ListedTransaction): Record<(typeof csvColumns)[number], string> => ({
  reference: row.reference,
  created: new Date(row.created).toISOString(),
  merchantId: row.merchant_id,
  mode: row.mode,
  type: row.type,
  method: row.method,
  brand: row.brand ?? '',
  status: row.status,
  failureCode: row.failure_code ?? '',
  amount: formatAmount(row.amount_minor, findCurrency(row.currency)!),
  currency: row.currency,
  merchantOrderReference: row.merchant_order_reference ?? '',
  parentReference: row.parent_reference ?? '',
});

export function exportRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get<{ Querystring: Query }>('/dashboard/payments.csv', async (request, reply) => {
    const session = request.consoleSession;
    const parsed = await parseFilters(store.read, request.query, session.operator.merchantId);
    if ('invalid' in parsed) {
      const view = viewOf(request, session);
      return send(reply, view, messagePage(view, view.t('errorTitle'), view.t('invalidFilters', { fields: parsed.invalid.join(', ') })), 400);
    }
    await audit(store, request.log, accountActor(session.operator, request.ip), {
      action: 'export',
      merchantId: parsed.filter.merchantId ?? null,
      detail: Object.fromEntries(Object.entries(parsed.shown).filter(([, value]) => value !== undefined)),
    });
    const csv = stringify({ header: true, columns: [...csvColumns], record_delimiter: 'windows', quoted: true, quoted_empty: true, cast: { string: spreadsheetSafe } });
    // A failed page read destroys the stream, which ends the response early: a cut-off file, never a wrong one.
    pipeline(Readable.from(listedTransactions(store.read, parsed.filter)).map(record), csv, (error) => {
      if (error) request.log.error({ err: error }, 'CSV export failed');
    });
    const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
    return reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="kassa-transactions-${parsed.filter.mode}-${stamp}.csv"`)
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(csv);
  });
}
