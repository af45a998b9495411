/**
 * Format checks for the 3-D Secure 2 request fields (docs/api.md#3-d-secure-2-data), each backed by
 * well-kept data packages rather than hand-written lists (countries: ground/country.ts):
 * ITU-T E.164 country calling codes (libphonenumber-js metadata), ISO 4217 numeric codes
 * (currency-codes), RFC 5322 addr-spec (email-addresses), BCP 47 (bcp-47 syntax, subtags
 * from the IANA Language Subtag Registry via language-subtag-registry), IP (node:net).
 * All lookup tables are built once at module load; every check is allocation-free on
 * the common path.
 */
import { createRequire } from 'node:module';
import { isIPv4, isIPv6 } from 'node:net';
import phoneMetadata from 'libphonenumber-js/min/metadata';
import currencyCodes from 'currency-codes';
import emailAddresses from 'email-addresses';
import { parse as parseLanguageTag } from 'bcp-47';

/** Geographic and non-geographic (+800, +882, …) E.164 country calling codes. */
const callingCodes = new Set<string>([...Object.keys(phoneMetadata.country_calling_codes), ...Object.keys(phoneMetadata.nonGeographic ?? {})]);

const currencyNumericCodes = new Set<string>(currencyCodes.data.map((c) => c.number));
const currencyByAlpha = new Map(currencyCodes.data.map((c) => [c.code, c] as const));

/** An assigned ITU-T E.164 country calling code, digits only (`31`, `1`, `44`, `800`). */
export function isCallingCode(code: string): boolean {
  return callingCodes.has(code);
}

export function isDigits(value: string): boolean {
  return /^[0-9]+$/.test(value);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isDatePart(value: string): boolean {
  const year = +value.slice(0, 4);
  const month = +value.slice(4, 6);
  const day = +value.slice(6, 8);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** `YYYYMMDD` naming a real (proleptic Gregorian) calendar date, year 0001–9999. */
export function isCalendarDate(value: string): boolean {
  return value.length === 8 && isDigits(value) && isDatePart(value);
}

/** `YYYYMMDDHHMM` naming a real date and a time of day 00:00–23:59 (UTC, docs/api.md#account-information). */
export function isTimestamp(value: string): boolean {
  return value.length === 12 && isDigits(value) && isDatePart(value) && +value.slice(8, 10) <= 23 && +value.slice(10, 12) <= 59;
}

// RFC 5322 §3.2.3 atext and dot-atom-text: the shape nearly every real address has.
const atext = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]+";
const dotAtomAddress = new RegExp(`^${atext}(?:\\.${atext})*@${atext}(?:\\.${atext})*$`);

/**
 * RFC 5322 §3.4.1 addr-spec (`local-part "@" domain`), without display name, angle
 * brackets, comments or surrounding whitespace; obsolete forms are refused. The common
 * dot-atom form is recognised by a regular expression of the RFC's own grammar; only
 * the rest (quoted local parts, domain literals, junk) goes through the full parser.
 */
export function isEmailAddress(value: string): boolean {
  if (dotAtomAddress.test(value)) return true;
  if (!value.includes('@')) return false;
  const parsed = emailAddresses.parseOneAddress({ input: value, rfc6532: false, strict: true, simple: false });
  if (!parsed || parsed.type !== 'mailbox') return false;
  const mailbox = parsed as emailAddresses.ParsedMailbox;
  return mailbox.parts.name === null && mailbox.parts.comments.length === 0 && mailbox.parts.address.tokens === value;
}

/** Subtags of one type in the IANA registry (keys lower case; private-use ranges written `qaa..qtz`). */
interface SubtagSet {
  subtags: ReadonlySet<string>;
  ranges: readonly (readonly [string, string])[];
}

const requireJson = createRequire(import.meta.url);
function ianaSubtags(type: 'language' | 'extlang' | 'script' | 'region' | 'variant'): SubtagSet {
  const index = requireJson(`language-subtag-registry/data/json/${type}.json`) as Record<string, number>;
  const keys = Object.keys(index);
  return {
    subtags: new Set(keys.filter((k) => !k.includes('..'))),
    ranges: keys.filter((k) => k.includes('..')).map((k) => k.split('..') as [string, string]),
  };
}
const ianaLanguages = ianaSubtags('language');
const ianaExtlangs = ianaSubtags('extlang');
const ianaScripts = ianaSubtags('script');
const ianaRegions = ianaSubtags('region');
const ianaVariants = ianaSubtags('variant');

function isRegistered(set: SubtagSet, subtag: string): boolean {
  const lower = subtag.toLowerCase();
  if (set.subtags.has(lower)) return true;
  for (const [low, high] of set.ranges) {
    if (lower.length === low.length && lower >= low && lower <= high) return true;
  }
  return false;
}

let languageTagWarned = false;
const onLanguageTagWarning = (): undefined => {
  languageTagWarned = true;
  return undefined;
};

/**
 * A valid IETF BCP 47 language tag (`en`, `nl-NL`, `zh-Hans-CN`, `es-419`): well-formed
 * (RFC 5646 §2.1), and every language, extlang, script, region and variant subtag is in
 * the IANA registry (RFC 5646 §2.2.9), so `xx-YY` or `en-QQQ` are refused.
 */
export function isLanguageTag(value: string): boolean {
  languageTagWarned = false;
  const schema = parseLanguageTag(value, { forgiving: false, normalize: false, warning: onLanguageTagWarning });
  if (languageTagWarned) return false;
  if (schema.irregular || schema.regular) return true;
  if (!schema.language) return schema.privateuse.length > 0;
  return (
    isRegistered(ianaLanguages, schema.language) &&
    schema.extendedLanguageSubtags.every((s) => isRegistered(ianaExtlangs, s)) &&
    (!schema.script || isRegistered(ianaScripts, schema.script)) &&
    (!schema.region || isRegistered(ianaRegions, schema.region)) &&
    schema.variants.every((s) => isRegistered(ianaVariants, s))
  );
}

export function isIpAddress(value: string): boolean {
  return isIPv4(value) || isIPv6(value);
}

/** An existing ISO 4217 numeric currency code, 3 digits (`978`). */
export function isCurrencyNumeric(value: string): boolean {
  return currencyNumericCodes.has(value);
}

/** ISO 4217 numeric code and minor-unit exponent of an alphabetic currency code (any case). */
export function currencyNumeric(alpha: string): { numeric: string; exponent: number } | undefined {
  const c = currencyByAlpha.get(alpha.toUpperCase());
  return c ? { numeric: c.number, exponent: c.digits } : undefined;
}

/** A signed whole number of minutes (`-120`, `60`, `+330`): the browser's offset from UTC. */
export function isMinutesOffset(value: string): boolean {
  return /^[+-]?[0-9]+$/.test(value);
}

/**
 * The first well-formed language tag of an Accept-Language header (RFC 9110 §12.5.4:
 * `nl-NL,nl;q=0.9,en-US;q=0.8` → `nl-NL`), skipping `*` and tags longer than `max`; a plain
 * tag is its own first tag. Undefined when the header names none.
 */
export function firstLanguageTag(header: string, max: number): string | undefined {
  for (const item of header.split(',')) {
    const tag = item.split(';', 1)[0].trim();
    if (tag !== '' && tag !== '*' && tag.length <= max && isLanguageTag(tag)) return tag;
  }
  return undefined;
}

/** An address with its port, as a proxy may write it: `203.0.113.7:5678` or `[2001:db8::1]:443` (RFC 3986 §3.2.2 brackets an IPv6 address). */
const addressWithPort = /^(?:\[([^\]]+)\]|([0-9.]+))(?::[0-9]*)?$/;

/**
 * The first address of a proxy list (`203.0.113.7, 10.0.0.1`, as X-Forwarded-For carries it): the
 * customer's, without the port a proxy may add (`203.0.113.7:5678`, `[::1]:443`). A bare IPv6
 * address has colons of its own and is taken as it is.
 */
export function firstListedAddress(list: string): string {
  const first = list.split(',', 1)[0].trim();
  const match = addressWithPort.exec(first);
  return match ? (match[1] ?? match[2]) : first;
}

/**
 * A PHP DateTimeImmutable as PHP's json_encode writes it (`{"date":"2020-01-02 00:00:00.000000",
 * "timezone_type":3,"timezone":"UTC"}`): the official client sends its account dates so
 * (docs/interop.md). Its calendar date as `YYYYMMDD`, or undefined for anything else.
 */
export function phpDateAsYmd(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { date, timezone } = value as Record<string, unknown>;
  if (typeof date !== 'string' || typeof timezone !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2}) \d{2}:\d{2}:\d{2}(?:\.\d+)?$/.exec(date);
  return match ? `${match[1]}${match[2]}${match[3]}` : undefined;
}
