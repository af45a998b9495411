/**
 * Validation of the 3-D Secure 2 request data (docs/api.md#3-d-secure-2-data): the field tables of
 * fields.ts compiled onto the one field engine (ground/field-engine.ts), with the phone adaptation
 * (docs/api.md#billing-and-shipping-fields) and the e-mail defaults (docs/api.md#billing-and-shipping-fields,
 * docs/api.md#account-information, docs/api.md#merchant-risk); returns every failing field at once
 * together with the normalized data to store. Without `scaReady: yes` a field that breaks its format
 * is not refused but left out of the data, kept and named for the merchant (docs/threeds.md). The
 * payment object's echo of these fields is echo.ts. Pure: no I/O, no clock.
 */
import { atLeast, atMost, checkTable, cutTo, fail, given, isObject, isString, memberOf, runChecks } from '../ground/field-engine.ts';
import type { Check, CompiledField, CompiledTable, FieldRun } from '../ground/field-engine.ts';
import type { FieldError } from '../ground/problem.ts';
import {
  hardLimitOf,
  objectSpecs,
  scaReadyAliases,
  topLevelSpec,
  type Condition,
  type Format,
  type LeftOutField,
  type PhonePair,
  type ThreeDSData,
  type ThreeDSFieldSpec,
  type ThreeDSObjectSpec,
} from './fields.ts';
import {
  firstLanguageTag,
  firstListedAddress,
  isCalendarDate,
  isCallingCode,
  isCurrencyNumeric,
  isDigits,
  isEmailAddress,
  isIpAddress,
  isLanguageTag,
  isMinutesOffset,
  isTimestamp,
  phpDateAsYmd,
} from './formats.ts';
import { countryAlpha2, isSubdivisionOf, isSubdivisionShape } from '../ground/country.ts';
import { splitInternationalNumber } from './phone.ts';

export type { LeftOutField, ThreeDSData } from './fields.ts';

export interface ThreeDSContext {
  /** 'payment' = POST /payment; 'enrollment' = vault enrollment POST /token (docs/api.md#vault-enrollment: there threeds2RequestInfo only carries transactionType; challengeIndicator is ignored) */
  operation: 'payment' | 'enrollment';
  /** request has details.vaultAccessToken (relaxes sequenceInfo.initialTransactionId) */
  usesVaultToken: boolean;
  /** the merchant captured card data itself (direct wallet-token flow, hybrid wallet flow): browserInfo is then required */
  merchantCapturesCardData: boolean;
}

type ErrorCode = 'required' | 'conditional_required' | 'type' | 'max_length' | 'min_length' | 'format' | 'enum' | 'date';

interface ThreeDSRun extends FieldRun {
  ctx: ThreeDSContext;
  /** The "S" fields are required. */
  scaReady: boolean;
  /** The formats are checked: scaReady is yes, or neither yes nor no (refused anyway, with every field's own error). */
  strict: boolean;
  leftOut: LeftOutField[];
}

/** One table row compiled: its checks, and what is refused with or without scaReady. */
interface ThreeDSField extends CompiledField<ThreeDSRun> {
  spec: ThreeDSFieldSpec;
  hardLimit: number;
  hardLimitMessage: string;
}

const formatMessages: Record<Format, string> = {
  digits: 'must contain digits only',
  date: 'must be a real calendar date in the form YYYYMMDD',
  timestamp: 'must be a real UTC date and time in the form YYYYMMDDHHMM',
  country: 'must be an ISO 3166-1 alpha-2 or alpha-3 country code (e.g. NL or NLD)',
  subdivision: 'must be an ISO 3166-2 subdivision code, the part after the country (e.g. NH for NL-NH)',
  callingCode: 'must be an ITU-T E.164 country calling code, digits only (e.g. 31, 1, 44)',
  email: 'must be an RFC 5322 e-mail address (addr-spec, e.g. name@example.com)',
  languageTag: 'must be an IETF BCP 47 language tag (e.g. en-US)',
  ipAddress: 'must be an IPv4 or IPv6 address',
  currencyNumeric: 'must be an existing ISO 4217 numeric currency code (e.g. 978)',
  minutesOffset: 'must be a whole number of minutes, optionally signed (e.g. -120, 60)',
};

function compileField(objectPointer: string, name: string, spec: ThreeDSFieldSpec, allOrNothing: ThreeDSObjectSpec | undefined): ThreeDSField {
  const field: ThreeDSField = {
    name,
    pointer: `${objectPointer}/${name}`,
    spec,
    checks: valueChecks(spec),
    check: (value, run, object) => checkGiven(field, value, object, run),
    absent: undefined,
    hardLimit: hardLimitOf(spec),
    hardLimitMessage: `must be at most ${hardLimitOf(spec)} characters, with or without scaReady`,
  };
  field.absent = absentRule(field, objectPointer, allOrNothing);
  return field;
}

/** An object's table for one operation: its fields but those only for another (docs/api.md#vault-enrollment), its phone adaptation. */
function compileObject(spec: ThreeDSObjectSpec, operation: ThreeDSContext['operation']): CompiledTable<ThreeDSRun> {
  const pairs = spec.phonePairs ?? [];
  return {
    fields: Object.entries(spec.fields)
      .filter(([, field]) => field.onlyFor === undefined || field.onlyFor === operation)
      .map(([name, field]) => compileField(spec.pointer, name, field, spec.allOrNothing ? spec : undefined)),
    prepare: pairs.length > 0 ? (object) => splitPhones(pairs, object) : undefined,
    finish: undefined,
  };
}

/** A given value's checks, in the row's order: the first rule it breaks is its one error. */
function valueChecks(spec: ThreeDSFieldSpec): Check<ThreeDSRun>[] {
  const checks: Check<ThreeDSRun>[] = [];
  const { aliases, max, min } = spec;
  if (spec.format === 'date') checks.push((value) => phpDateAsYmd(value) ?? value);
  else if (aliases !== undefined) checks.push((value) => aliases.get(value) ?? value);
  if (spec.type === 'boolean') return [...checks, (value, field, run) => (typeof value === 'boolean' ? value : fail(run, field, 'type', 'must be true or false'))];
  if (spec.type === 'integer') return [...checks, integer(spec)];
  checks.push(isString('must be a string'));
  if (spec.fromHeader !== undefined) checks.push(fromHeader(spec));
  if (spec.cutToMax && max !== undefined) checks.push(cutTo(max, false));
  if (max !== undefined) checks.push(atMost(max, 'max_length', `must be at most ${max} characters`));
  if (min !== undefined) checks.push(atLeast(min, `must be at least ${min} characters`));
  if (spec.enum !== undefined) checks.push(memberOf(new Set(spec.enum), `must be one of ${spec.enum.join(', ')}`));
  if (spec.format !== undefined) checks.push(formatCheck(spec, spec.format));
  return checks;
}

/** A whole number as a JSON number or a digit string, of at most `max` digits and at least `minValue`. */
function integer(spec: ThreeDSFieldSpec): Check<ThreeDSRun> {
  const { max, minValue } = spec;
  const maxMessage = `must be at most ${max} digits`;
  return (value, field, run) => {
    let digits: string;
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) return fail(run, field, 'format', 'must be a whole number');
      digits = String(value);
    } else if (typeof value === 'string') {
      if (max !== undefined && value.length > max) return fail(run, field, 'max_length', maxMessage);
      if (!isDigits(value)) return fail(run, field, 'format', 'must be a whole number');
      digits = value;
    } else {
      return fail(run, field, 'type', 'must be a whole number, as a JSON number or a numeric string');
    }
    if (max !== undefined && digits.length > max) return fail(run, field, 'max_length', maxMessage);
    const number = Number(digits);
    if (minValue !== undefined && number < minValue) return fail(run, field, 'format', `must be at least ${minValue}`);
    return number;
  };
}

/** A raw header of the customer's browser (legacy `browser`): its one value, which the row's checks then read. */
function fromHeader(spec: ThreeDSFieldSpec): Check<ThreeDSRun> {
  const message = `${spec.format ? formatMessages[spec.format] : ''}, or an Accept-Language header naming one`;
  const max = spec.max ?? Infinity;
  const valueOf = spec.fromHeader === 'acceptLanguage' ? (header: string) => firstLanguageTag(header, max) : firstListedAddress;
  return (header, field, run) => valueOf(header as string) ?? fail(run, field, 'format', message);
}

/** The check behind each format of the tables (country and subdivision also normalize case, in checkValue). */
const formatChecks: Record<Format, (value: string) => boolean> = {
  digits: isDigits,
  date: isCalendarDate,
  timestamp: isTimestamp,
  country: (value) => countryAlpha2(value) !== undefined,
  subdivision: isSubdivisionShape,
  callingCode: isCallingCode,
  email: isEmailAddress,
  languageTag: isLanguageTag,
  ipAddress: isIpAddress,
  currencyNumeric: isCurrencyNumeric,
  minutesOffset: isMinutesOffset,
};

/** The row's format; country and subdivision also normalize case. */
function formatCheck(spec: ThreeDSFieldSpec, format: Format): Check<ThreeDSRun> {
  const message = formatMessages[format];
  if (format === 'country') return (value, field, run) => countryAlpha2(value as string) ?? fail(run, field, 'format', message);
  if (format === 'subdivision') {
    const countryField = spec.countryField as string;
    const messageForCountry = `must be an ISO 3166-2 subdivision code of the country in ${countryField}, the part after the country (e.g. NH for NL)`;
    return (value, field, run, object) => {
      const upper = (value as string).toUpperCase();
      const country = object[countryField];
      const alpha2 = typeof country === 'string' ? countryAlpha2(country) : undefined;
      if (alpha2 !== undefined) return isSubdivisionOf(alpha2, upper) ? upper : fail(run, field, 'format', messageForCountry);
      return isSubdivisionShape(upper) ? upper : fail(run, field, 'format', message);
    };
  }
  const test = formatChecks[format];
  const code: ErrorCode = format === 'date' || format === 'timestamp' ? 'date' : 'format';
  return (value, field, run) => (test(value as string) ? value : fail(run, field, code, message));
}

function listValues(values: readonly string[], conjunction: string): string {
  return values.length === 1 ? values[0] : `${values.slice(0, -1).join(', ')} ${conjunction} ${values[values.length - 1]}`;
}

/** "required when type is RECURRING and mode is INITIAL" */
function conditionMessage(condition: Condition): string {
  const parts = Object.entries(condition.when).map(([field, values]) => `${field} is ${listValues(values, 'or')}`);
  if (condition.unlessVaultToken) parts.push('no vault access token is used');
  return `required when ${listValues(parts, 'and')}`;
}

function conditionHolds(condition: Condition, object: Record<string, unknown>, ctx: ThreeDSContext): boolean {
  if (condition.unlessVaultToken && ctx.usesVaultToken) return false;
  for (const field in condition.when) {
    const value = object[field];
    if (typeof value !== 'string' || !condition.when[field].includes(value)) return false;
  }
  return true;
}

/** What an absent value breaks: its object's all or nothing (docs/api.md#browser-data), else its own requirement. */
function absentRule(field: ThreeDSField, objectPointer: string, allOrNothing: ThreeDSObjectSpec | undefined): ThreeDSField['absent'] {
  const required = field.spec.required;
  let own: ThreeDSField['absent'];
  if (required === 'always') {
    const message = `required when ${objectPointer.slice(1)} is given`;
    own = (run) => fail(run, field, 'required', message);
  } else if (required === 'sca') {
    own = (run) => {
      if (run.scaReady) fail(run, field, 'required', 'required when scaReady is yes');
    };
  } else if (required !== undefined) {
    const message = conditionMessage(required);
    own = (run, object) => {
      if (conditionHolds(required, object, run.ctx)) fail(run, field, 'conditional_required', message);
    };
  }
  if (allOrNothing === undefined) return own;
  const names = Object.keys(allOrNothing.fields);
  const message = `required when any ${objectPointer.slice(1)} field is given (all or nothing)`;
  return (run, object, into) => {
    // docs/api.md#browser-data: one field given makes every field required.
    if (names.some((name) => given(object[name]))) fail(run, field, 'conditional_required', message);
    else own?.(run, object, into);
  };
}

/** The phone adaptation (docs/api.md#billing-and-shipping-fields): a combined international number without its country is split before validation. */
function splitPhones(pairs: readonly PhonePair[], object: Record<string, unknown>): Record<string, unknown> {
  let result = object;
  for (const pair of pairs) {
    const number = object[pair.number];
    if (typeof number !== 'string' || given(object[pair.country])) continue;
    const split = splitInternationalNumber(number);
    if (!split) continue;
    if (result === object) result = { ...object };
    result[pair.number] = split.subscriberNumber;
    result[pair.country] = split.countryCallingCode;
  }
  return result;
}

/** The codes of the spec's formats and sizes: without `scaReady: yes` such a failure leaves the field out (docs/threeds.md). */
export const leftOutCodes: readonly ErrorCode[] = ['max_length', 'min_length', 'format', 'enum', 'date'];
const formatCodes: ReadonlySet<string> = new Set(leftOutCodes);

/** A C0 control but tab, line feed and carriage return (an address may span lines), or DEL: no customer types them. */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return true;
  }
  return false;
}

/** What would break Kassa itself, refused with or without scaReady: text far beyond any field's size, control characters. */
function hardRefusal(field: ThreeDSField, value: unknown): FieldError | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length > field.hardLimit) return { field: field.pointer, code: 'max_length', message: field.hardLimitMessage };
  if (hasControlCharacter(value)) return { field: field.pointer, code: 'format', message: 'must not contain control characters' };
  return undefined;
}

/** Whether a failure of the field is left out rather than refused: a format or size, for a field not checked strictly in this run. */
function leavesOut(field: ThreeDSField, code: string, run: ThreeDSRun): boolean {
  if (field.spec.alwaysStrict || !formatCodes.has(code)) return false;
  return !run.strict || (field.spec.leftOutEvenIfScaReady === true && code === 'format');
}

/**
 * One given value: its normalized form, or undefined when it is refused (an error) or left out.
 * A refused value's error is the first rule it breaks; a value that would be left out is still
 * refused for what would break Kassa.
 */
function checkGiven(field: ThreeDSField, value: unknown, object: Record<string, unknown>, run: ThreeDSRun): unknown {
  const errors = run.errors;
  const before = errors.length;
  const normalized = runChecks(field, value, run, object);
  const failed = errors.length > before;
  if (failed && !leavesOut(field, errors[before].code, run)) return undefined;
  const hard = hardRefusal(field, value);
  if (hard !== undefined) {
    errors[before] = hard;
    return undefined;
  }
  if (!failed) return normalized;
  const { code, message } = errors.pop()!;
  run.leftOut.push({ field: field.pointer, code, message, value });
  return undefined;
}

const compiledTables = Object.fromEntries(
  (['payment', 'enrollment'] as const).map((operation) => [
    operation,
    {
      topLevel: compileObject(topLevelSpec, operation),
      objects: Object.entries(objectSpecs).map(([name, spec]) => ({ name, pointer: spec.pointer, table: compileObject(spec, operation) })),
    },
  ]),
) as Record<ThreeDSContext['operation'], { topLevel: CompiledTable<ThreeDSRun>; objects: { name: string; pointer: string; table: CompiledTable<ThreeDSRun> }[] }>;
const browserInfoFieldCount = Object.keys(objectSpecs.browserInfo.fields).length;

/** The top-level request fields this module owns, so the request validator leaves them to validateThreeDS. */
export const threeDSTopLevelFields: readonly string[] = Object.freeze([...Object.keys(topLevelSpec.fields), ...Object.keys(objectSpecs)]);

export function validateThreeDS(body: Record<string, unknown>, ctx: ThreeDSContext): { errors: FieldError[]; data: ThreeDSData } {
  const scaReady = scaReadyAliases.get(body.scaReady) ?? body.scaReady;
  const run: ThreeDSRun = { errors: [], ctx, scaReady: scaReady === 'yes', strict: given(scaReady) && scaReady !== 'no', leftOut: [] };
  const tables = compiledTables[ctx.operation];
  const data: Record<string, unknown> = {};
  checkTable(tables.topLevel, body, run, data);
  data.scaReady ??= 'no';

  for (const { name, pointer, table } of tables.objects) {
    const value = body[name];
    if (!given(value)) continue;
    if (!isObject(value)) {
      run.errors.push({ field: pointer, code: 'type', message: 'must be an object' });
      continue;
    }
    const normalized: Record<string, unknown> = {};
    checkTable(table, value, run, normalized);
    // A copy by spread has fast properties: filled by computed keys, V8 keeps a large object as a dictionary, which JSON.stringify serializes slowly.
    if (Object.keys(normalized).length > 0) data[name] = { ...normalized };
  }

  if (ctx.merchantCapturesCardData && !isObject(data.browserInfo) && !browserInfoGiven(body.browserInfo)) {
    if (!legacyBrowserComplete(body.browser))
      run.errors.push({ field: '/browserInfo', code: 'required', message: 'required when the merchant captures card data itself' });
  }

  applyEmailDefaults(body, data);
  if (run.leftOut.length > 0) data.leftOut = run.leftOut;
  return { errors: run.errors, data: { ...data } as unknown as ThreeDSData };
}

/** An older `browser` object with every field of browserInfo given (a field left out counts: it was given, and only its format failed). */
function legacyBrowserComplete(value: unknown): boolean {
  if (!isObject(value)) return false;
  let count = 0;
  for (const key in objectSpecs.browserInfo.fields) if (given(value[key])) count++;
  return count === browserInfoFieldCount;
}

/** A browserInfo object with at least one field given (it then carries its own errors). */
function browserInfoGiven(value: unknown): boolean {
  if (!given(value)) return false;
  if (!isObject(value)) return true;
  for (const key in objectSpecs.browserInfo.fields) if (given(value[key])) return true;
  return false;
}

/**
 * The defaults of docs/api.md#account-information and docs/api.md#merchant-risk: accountInfo.email ← billingEmail; merchantRiskIndicator.deliveryEmailAddress
 * ← billingEmail, else shippingEmail. Applied whenever the (valid) source is there and the
 * target was not given, creating the object if the request had none, so the issuer gets
 * the address either way. Never over a given (even invalid) value or a malformed object.
 */
function applyEmailDefaults(body: Record<string, unknown>, data: Record<string, unknown>): void {
  const billingEmail = data.billingEmail as string | undefined;
  const shippingEmail = data.shippingEmail as string | undefined;
  if (billingEmail !== undefined) defaultInto(body, data, 'accountInfo', 'email', billingEmail);
  const delivery = billingEmail ?? shippingEmail;
  if (delivery !== undefined) defaultInto(body, data, 'merchantRiskIndicator', 'deliveryEmailAddress', delivery);
}

function defaultInto(body: Record<string, unknown>, data: Record<string, unknown>, objectName: string, field: string, value: string): void {
  const sent = body[objectName];
  if (given(sent) && !(isObject(sent) && !given(sent[field]))) return;
  data[objectName] = { ...(data[objectName] as Record<string, unknown> | undefined), [field]: value };
}
