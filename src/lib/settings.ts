/**
 * Environment variables declared as data: each setting once, with its name, type, default and
 * description, and how its text is read (a bad value stops the start with one line naming the
 * variable, the value and what it takes: a `SettingError`, which `kassa` and the server print alone). config.ts composes every setting of Kassa from these (its own, events/settings.ts,
 * wallet/settings.ts); the README's configuration table is generated from them
 * (scripts/config-table.ts, checked in `npm test`).
 */
import { parseIsoDuration } from './duration.ts';

export type Env = Record<string, string | undefined>;

export interface Setting<T> {
  name: string;
  /** What the value is, for the reader: `integer`, `boolean`, `ISO 8601 duration`, `URL`, … */
  type: string;
  /** The default as the README shows it (Markdown), or `unset`. */
  shownDefault: string;
  /** Markdown, one paragraph: what it does and when to change it. */
  description: string;
  /** The value of `raw` (undefined or '' when unset); throws a `SettingError` when it is not valid. */
  read(raw: string | undefined): T;
}

/**
 * A setting's value that is not valid. Its message is one line naming the variable, the value
 * (a secret's only by its length) and what is allowed: the process entries print it alone, without
 * a stack, since it is the operator's to fix (src/main.ts, src/cli/kassa.ts).
 */
export class SettingError extends Error {}

/** `NAME must be <allowed>, got "<given>"`. */
export const invalid = (name: string, allowed: string, given: string): SettingError => new SettingError(`${name} must be ${allowed}, got "${given}"`);

export const setting = <T>(definition: Setting<T>): Setting<T> => definition;

export const value = <T>(env: Env, definition: Setting<T>): T => definition.read(env[definition.name]);

const unset = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === '';

type Described = Pick<Setting<unknown>, 'name' | 'description'> & { shownDefault?: string };

/** Optional text (a path, a name); unset = undefined. */
export const text = (d: Described): Setting<string | undefined> => ({ type: 'text', shownDefault: 'unset', ...d, read: (raw) => (unset(raw) ? undefined : raw) });

/** Text with a default. */
export const textOr = (fallback: string, d: Described): Setting<string> => ({
  type: 'text',
  shownDefault: `\`${fallback}\``,
  ...d,
  read: (raw) => (unset(raw) ? fallback : raw),
});

/** `raw` with the password of a `scheme://user:password@host` address masked, for a message. */
const withoutPassword = (raw: string): string => raw.replace(/(\/\/[^/@:]*:)[^/@]*@/, '$1***@');

/** An absolute URL of one of `protocols` (`https:`, …); unset = undefined. A password in it is never shown in a message. */
export const url = (protocols: readonly string[], d: Described): Setting<string | undefined> => ({
  type: 'URL',
  shownDefault: 'unset',
  ...d,
  read: (raw) => {
    if (unset(raw)) return undefined;
    if (!URL.canParse(raw) || !protocols.includes(new URL(raw).protocol))
      throw invalid(d.name, `an absolute ${protocols.map((protocol) => `${protocol}//…`).join(' or ')} URL`, withoutPassword(raw));
    return raw;
  },
});

/** A whole number; with `min: 1` a positive one, with `max` at most that. */
export const integer = (fallback: number, d: Described & { min?: 1; max?: number }): Setting<number> => ({
  type: 'integer',
  shownDefault: `\`${fallback}\``,
  ...d,
  read: (raw) => {
    if (unset(raw)) return fallback;
    const min = d.min ?? 0;
    if (!/^\d+$/.test(raw) || Number(raw) < min || (d.max !== undefined && Number(raw) > d.max))
      throw invalid(d.name, d.max === undefined ? `a ${min ? 'positive ' : ''}whole number` : `a whole number from ${min} to ${d.max}`, raw);
    return Number(raw);
  },
});

/** `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off` (any case). */
export const boolean = (fallback: boolean, d: Described): Setting<boolean> => ({
  type: 'boolean',
  shownDefault: `\`${fallback}\``,
  ...d,
  read: (raw) => {
    if (unset(raw)) return fallback;
    const lower = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
    if (['0', 'false', 'no', 'off'].includes(lower)) return false;
    throw invalid(d.name, 'true or false', raw);
  },
});

/** A positive ISO 8601 duration, in milliseconds. */
export const duration = (fallback: string, d: Described): Setting<number> => ({
  type: 'ISO 8601 duration',
  shownDefault: `\`${fallback}\``,
  ...d,
  read: (raw) => {
    const given = unset(raw) ? fallback : raw;
    const ms = parseIsoDuration(given);
    if (ms === undefined || ms <= 0) throw invalid(d.name, `a positive ISO 8601 duration such as ${fallback}`, given);
    return ms;
  },
});

/** One of `choices` (any case, answered as written in `choices`). */
export const oneOf = <const Choice extends string>(choices: readonly Choice[], fallback: Choice, d: Described): Setting<Choice> => ({
  type: choices.map((choice) => `\`${choice}\``).join(' | '),
  shownDefault: `\`${fallback}\``,
  ...d,
  read: (raw) => {
    if (unset(raw)) return fallback;
    const found = choices.find((choice) => choice.toLowerCase() === raw.toLowerCase());
    if (!found) throw invalid(d.name, `one of ${choices.join(', ')}`, raw);
    return found;
  },
});

/** Comma-separated entries, trimmed, empty ones dropped. */
export const commaList = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/**
 * Variables that look meant for Kassa and are not among `known`: a Kassa family prefix
 * (`KASSA_`, `WEBHOOK_`, …), one or two letters off a known name, or one cut short at a `_`
 * (`WEBHOOK_TIMEOUT`). Warned about at start:
 * a misspelt setting otherwise silently keeps its default.
 */
export function unknownSettings(env: Env, known: readonly string[], families: readonly string[]): string[] {
  const names = new Set(known);
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    if (names.has(name) || !name.includes('_')) continue;
    const near = known.find((candidate) => editDistance(name, candidate) <= 2 || candidate.startsWith(`${name}_`));
    if (near) warnings.push(`${name} is not a Kassa setting: did you mean ${near}?`);
    else if (families.some((family) => name.startsWith(family))) warnings.push(`${name} is not a Kassa setting (README "Configuration" lists them)`);
  }
  return warnings;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
