/** The payments list's filters from the query string (docs/console.md "Payments"), shared by the list and its CSV export. */
import type { Mode } from '../store/schema.ts';
import type { Cursor, TransactionFilter } from '../store/transaction-list.ts';
import { identifierShaped } from '../lib/tokens.ts';
import { DAY_MS } from '../store/payment-stats.ts';
import type { Query } from './context.ts';
import { filterChoices, type ListFilters } from './views.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a UTC day given as YYYY-MM-DD, in epoch ms; undefined for anything else (2026-02-30 included). */
export function utcDayStart(raw: string): number | undefined {
  const ms = DATE.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : NaN;
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw ? undefined : ms;
}

/** The list's query string for the page after `cursor`. */
export const pageQuery = (shown: ListFilters, cursor: Cursor) =>
  new URLSearchParams([...Object.entries(shown).filter((entry): entry is [string, string] => !!entry[1]), ['after', `${cursor.created}.${cursor.reference}`]]).toString();

/** The list's filters from the query string, each checked; a merchant's account is always limited to its merchant. */
export function parseFilters(query: Query, ownMerchant: string | null): { filter: TransactionFilter; shown: ListFilters; cursor?: Cursor } | { invalid: string[] } {
  const invalid: string[] = [];
  const value = (name: string) => {
    const raw = query[name]?.trim();
    return raw ? raw : undefined;
  };
  const oneOf = <T extends string>(name: keyof typeof filterChoices, choices: readonly T[]) => {
    const raw = value(name);
    if (raw !== undefined && !choices.includes(raw as T)) invalid.push(name);
    return raw as T | undefined;
  };
  const day = (name: string) => {
    const raw = value(name);
    const ms = raw === undefined ? undefined : utcDayStart(raw);
    if (raw !== undefined && ms === undefined) invalid.push(name);
    return { raw, ms };
  };
  const merchant = ownMerchant === null ? value('merchant') : undefined;
  if (merchant !== undefined && !identifierShaped(merchant)) invalid.push('merchant');
  const search = value('q');
  if (search !== undefined && (search.length > 255 || search.includes('\0'))) invalid.push('q');
  const from = day('from');
  const to = day('to');
  const after = value('after');
  const cursorMatch = after?.match(/^(\d{1,16})\.([0-9A-Za-z_-]{1,128})$/);
  if (after !== undefined && !cursorMatch) invalid.push('after');
  const shown: ListFilters = {
    merchant,
    mode: oneOf('mode', filterChoices.mode),
    status: oneOf('status', filterChoices.status),
    method: oneOf('method', filterChoices.method),
    type: oneOf('type', filterChoices.type),
    from: from.raw,
    to: to.raw,
    q: search,
  };
  if (invalid.length > 0) return { invalid };
  const filter: TransactionFilter = {
    ...(ownMerchant !== null ? { merchantId: ownMerchant } : merchant !== undefined ? { merchantId: merchant } : {}),
    ...(shown.mode ? { mode: shown.mode as Mode } : {}),
    ...(shown.status ? { status: shown.status } : {}),
    ...(shown.method ? { method: shown.method } : {}),
    ...(shown.type ? { type: shown.type } : {}),
    ...(from.ms !== undefined ? { createdFrom: from.ms } : {}),
    // "until" a day includes that day.
    ...(to.ms !== undefined ? { createdTo: to.ms + DAY_MS } : {}),
    ...(search !== undefined ? { search } : {}),
  };
  return { filter, shown, ...(cursorMatch ? { cursor: { created: Number(cursorMatch[1]), reference: cursorMatch[2] } } : {}) };
}
