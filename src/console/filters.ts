/**
 * The payments list's filters from the query string (docs/console.md "Payments"), shared by the list
 * and its CSV export, and the mode shown when none is asked, which the overview shares too
 * (docs/console.md "Test and live").
 */
import type { Mode } from '../store/schema.ts';
import type { Db } from '../store/store.ts';
import type { Cursor, TransactionFilter } from '../store/transaction-list.ts';
import { merchantOverviews } from '../merchants/merchants.ts';
import { identifierShaped } from '../lib/tokens.ts';
import { DAY_MS } from '../store/payment-stats.ts';
import type { Query } from './context.ts';
import { filterChoices, modes, type ListFilters } from './views.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a UTC day given as YYYY-MM-DD, in epoch ms; undefined for anything else (2026-02-30 included). */
export function utcDayStart(raw: string): number | undefined {
  const ms = DATE.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : NaN;
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw ? undefined : ms;
}

/**
 * The mode a page shows when none is asked: live where the merchant in scope (every merchant, for
 * a platform operator choosing none) has an active live key, else test. Test and live money are
 * never shown together (docs/console.md "Test and live").
 */
export async function defaultMode(db: Db, merchantId: string | undefined): Promise<Mode> {
  return (await merchantOverviews(db, merchantId)).some((merchant) => merchant.keyPrefixes.live !== undefined) ? 'live' : 'test';
}

/** The merchants a platform operator (an operator of no one merchant) may choose among on a page: none for a merchant's own operator. */
export async function merchantChoices(db: Db, operatorMerchant: string | null): Promise<{ id: string; name: string }[] | undefined> {
  return operatorMerchant === null ? (await merchantOverviews(db)).map((m) => ({ id: m.id, name: m.name })) : undefined;
}

/** The list's query string for the page after `cursor`. */
export const pageQuery = (shown: ListFilters, cursor: Cursor) =>
  new URLSearchParams([...Object.entries(shown).filter((entry): entry is [string, string] => !!entry[1]), ['after', `${cursor.created}.${cursor.reference}`]]).toString();

type ParsedFilters = { filter: TransactionFilter & { mode: Mode }; shown: ListFilters & { mode: Mode }; cursor?: Cursor };

/**
 * The list's filters from the query string, each checked; a merchant's account is always limited to
 * its merchant, and one mode is always shown, the default one when none is asked.
 */
export async function parseFilters(db: Db, query: Query, ownMerchant: string | null): Promise<ParsedFilters | { invalid: string[] }> {
  const invalid: string[] = [];
  const value = (name: string) => {
    const raw = query[name]?.trim();
    return raw ? raw : undefined;
  };
  const oneOf = <T extends string>(name: string, choices: readonly T[]) => {
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
    mode: oneOf('mode', modes),
    status: oneOf('status', filterChoices.status),
    method: oneOf('method', filterChoices.method),
    type: oneOf('type', filterChoices.type),
    from: from.raw,
    to: to.raw,
    q: search,
  };
  if (invalid.length > 0) return { invalid };
  const merchantId = ownMerchant ?? merchant;
  const mode = (shown.mode as Mode | undefined) ?? (await defaultMode(db, merchantId));
  const filter: TransactionFilter & { mode: Mode } = {
    ...(merchantId !== undefined ? { merchantId } : {}),
    mode,
    ...(shown.status ? { status: shown.status } : {}),
    ...(shown.method ? { method: shown.method } : {}),
    ...(shown.type ? { type: shown.type } : {}),
    ...(from.ms !== undefined ? { createdFrom: from.ms } : {}),
    // "until" a day includes that day.
    ...(to.ms !== undefined ? { createdTo: to.ms + DAY_MS } : {}),
    ...(search !== undefined ? { search } : {}),
  };
  return { filter, shown: { ...shown, mode }, ...(cursorMatch ? { cursor: { created: Number(cursorMatch[1]), reference: cursorMatch[2] } } : {}) };
}
