/**
 * Validation of the 3-D Secure 2 request data (docs/api.md#3-d-secure-2-data): one generic engine runs
 * the field tables of fields.ts, applies the phone adaptation (docs/api.md#billing-and-shipping-fields) and the e-mail
 * defaults (docs/api.md#billing-and-shipping-fields, docs/api.md#account-information,
 * docs/api.md#merchant-risk), and returns every failing field at once together with the
 * normalized data to store. Without `scaReady: yes` a field that breaks its format is not
 * refused but left out of the data, kept and named for the merchant (docs/threeds.md). Pure:
 * no I/O, no clock.
 */
import type { FieldError } from '../ground/problem.ts';
import {
  hardLimitOf,
  objectSpecs,
  scaReadyAliases,
  topLevelFields,
  topLevelSpec,
  type BillingAndShipping,
  type Condition,
  type FieldSpec,
  type Format,
  type LeftOutField,
  type ObjectSpec,
  type PhonePair,
  type ThreeDSData,
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

/** One table row made ready at module load: pointer and every message it can produce. */
interface CompiledField {
  name: string;
  pointer: string;
  spec: FieldSpec;
  typeMessage: string;
  maxMessage: string;
  minMessage: string;
  enumValues: ReadonlySet<string> | undefined;
  enumMessage: string;
  formatCode: ErrorCode;
  formatMessage: string;
  /** For subdivisions: the message when the country is known. */
  formatMessageForCountry: string;
  requiredMessage: string;
  hardLimit: number;
  hardLimitMessage: string;
}

interface CompiledObject {
  spec: ObjectSpec;
  fields: readonly CompiledField[];
  phonePairs: readonly PhonePair[];
  allOrNothingMessage: string;
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

function listValues(values: readonly string[], conjunction: string): string {
  return values.length === 1 ? values[0] : `${values.slice(0, -1).join(', ')} ${conjunction} ${values[values.length - 1]}`;
}

/** "required when type is RECURRING and mode is INITIAL" */
export function conditionMessage(condition: Condition): string {
  const parts = Object.entries(condition.when).map(([field, values]) => `${field} is ${listValues(values, 'or')}`);
  if (condition.unlessVaultToken) parts.push('no vault access token is used');
  return `required when ${listValues(parts, 'and')}`;
}

function compileField(objectPointer: string, name: string, spec: FieldSpec): CompiledField {
  const unit = spec.type === 'integer' ? 'digits' : 'characters';
  const objectName = objectPointer.slice(1);
  const required = spec.required;
  return {
    name,
    pointer: `${objectPointer}/${name}`,
    spec,
    typeMessage:
      spec.type === 'integer' ? 'must be a whole number, as a JSON number or a numeric string' : spec.type === 'boolean' ? 'must be true or false' : 'must be a string',
    maxMessage: `must be at most ${spec.max} ${unit}`,
    minMessage: `must be at least ${spec.min} ${unit}`,
    enumValues: spec.enum ? new Set(spec.enum) : undefined,
    enumMessage: spec.enum ? `must be one of ${spec.enum.join(', ')}` : '',
    formatCode: spec.format === 'date' || spec.format === 'timestamp' ? 'date' : 'format',
    formatMessage: spec.format ? formatMessages[spec.format] : spec.type === 'integer' ? 'must be a whole number' : '',
    formatMessageForCountry: `must be an ISO 3166-2 subdivision code of the country in ${spec.countryField}, the part after the country (e.g. NH for NL)`,
    requiredMessage:
      required === 'always' ? `required when ${objectName} is given` : required === 'sca' ? 'required when scaReady is yes' : required ? conditionMessage(required) : '',
    hardLimit: hardLimitOf(spec),
    hardLimitMessage: `must be at most ${hardLimitOf(spec)} characters, with or without scaReady`,
  };
}

function compileObject(spec: ObjectSpec): CompiledObject {
  return {
    spec,
    fields: Object.entries(spec.fields).map(([name, field]) => compileField(spec.pointer, name, field)),
    phonePairs: spec.phonePairs ?? [],
    allOrNothingMessage: `required when any ${spec.pointer.slice(1)} field is given (all or nothing)`,
  };
}

const compiledTopLevel = compileObject(topLevelSpec);
const compiledObjects = Object.entries(objectSpecs).map(([name, spec]) => [name, compileObject(spec)] as const);
const browserInfoFieldCount = Object.keys(objectSpecs.browserInfo.fields).length;

/** The top-level request fields this module owns, so the request validator leaves them to validateThreeDS. */
export const threeDSTopLevelFields: readonly string[] = Object.freeze([...Object.keys(topLevelFields), ...Object.keys(objectSpecs)]);

const echoedFieldNames = Object.keys(topLevelFields).filter((name) => name !== 'scaReady') as (keyof BillingAndShipping)[];

/** Existing clients send `""` (and JSON null) for unset optional fields: both mean absent. */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(errors: FieldError[], field: CompiledField, code: ErrorCode, message: string): undefined {
  errors.push({ field: field.pointer, code, message });
  return undefined;
}

function conditionHolds(condition: Condition, object: Record<string, unknown>, ctx: ThreeDSContext): boolean {
  if (condition.unlessVaultToken && ctx.usesVaultToken) return false;
  for (const field in condition.when) {
    const value = object[field];
    if (typeof value !== 'string' || !condition.when[field].includes(value)) return false;
  }
  return true;
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

/** Checks one given value against its row: the first rule it breaks is its one error. Returns the normalized value. */
function checkValue(field: CompiledField, given: unknown, object: Record<string, unknown>, errors: FieldError[]): unknown {
  const spec = field.spec;
  const value = spec.format === 'date' ? (phpDateAsYmd(given) ?? given) : (spec.aliases?.get(given) ?? given);
  if (spec.type === 'boolean') return typeof value === 'boolean' ? value : fail(errors, field, 'type', field.typeMessage);

  if (spec.type === 'integer') {
    let digits: string;
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) return fail(errors, field, 'format', field.formatMessage);
      digits = String(value);
    } else if (typeof value === 'string') {
      if (spec.max !== undefined && value.length > spec.max) return fail(errors, field, 'max_length', field.maxMessage);
      if (!isDigits(value)) return fail(errors, field, 'format', field.formatMessage);
      digits = value;
    } else {
      return fail(errors, field, 'type', field.typeMessage);
    }
    if (spec.max !== undefined && digits.length > spec.max) return fail(errors, field, 'max_length', field.maxMessage);
    const number = Number(digits);
    if (spec.minValue !== undefined && number < spec.minValue) return fail(errors, field, 'format', `must be at least ${spec.minValue}`);
    return number;
  }

  if (typeof value !== 'string') return fail(errors, field, 'type', field.typeMessage);
  if (spec.fromHeader !== undefined) return checkHeaderValue(field, value, object, errors);
  if (spec.cutToMax && spec.max !== undefined && value.length > spec.max) return checkValue(field, value.slice(0, spec.max), object, errors);
  if (spec.max !== undefined && value.length > spec.max) return fail(errors, field, 'max_length', field.maxMessage);
  if (spec.min !== undefined && value.length < spec.min) return fail(errors, field, 'min_length', field.minMessage);
  if (field.enumValues && !field.enumValues.has(value)) return fail(errors, field, 'enum', field.enumMessage);
  const format = spec.format;
  if (format === undefined) return value;
  if (format === 'country') return countryAlpha2(value) ?? fail(errors, field, 'format', field.formatMessage);
  if (format === 'subdivision') {
    const upper = value.toUpperCase();
    const country = object[spec.countryField as string];
    const alpha2 = typeof country === 'string' ? countryAlpha2(country) : undefined;
    if (alpha2 !== undefined) return isSubdivisionOf(alpha2, upper) ? upper : fail(errors, field, 'format', field.formatMessageForCountry);
    return isSubdivisionShape(upper) ? upper : fail(errors, field, 'format', field.formatMessage);
  }
  return formatChecks[format](value) ? value : fail(errors, field, field.formatCode, field.formatMessage);
}

/** A raw header of the customer's browser (legacy `browser`): its one value first, then the row's checks. */
function checkHeaderValue(field: CompiledField, header: string, object: Record<string, unknown>, errors: FieldError[]): unknown {
  const spec = field.spec;
  const value = spec.fromHeader === 'acceptLanguage' ? firstLanguageTag(header, spec.max ?? Infinity) : firstListedAddress(header);
  if (value === undefined) return fail(errors, field, 'format', `${field.formatMessage}, or an Accept-Language header naming one`);
  return checkValue({ ...field, spec: { ...spec, fromHeader: undefined } }, value, object, errors);
}

/** The phone adaptation (docs/api.md#billing-and-shipping-fields): a combined international number without its country is split before validation. */
function splitPhones(pairs: readonly PhonePair[], object: Record<string, unknown>): Record<string, unknown> {
  let result = object;
  for (const pair of pairs) {
    const number = object[pair.number];
    if (typeof number !== 'string' || !isAbsent(object[pair.country])) continue;
    const split = splitInternationalNumber(number);
    if (!split) continue;
    if (result === object) result = { ...object };
    result[pair.number] = split.subscriberNumber;
    result[pair.country] = split.countryCallingCode;
  }
  return result;
}

interface Run {
  ctx: ThreeDSContext;
  /** The "S" fields are required. */
  scaReady: boolean;
  /** The formats are checked: scaReady is yes, or neither yes nor no (refused anyway, with every field's own error). */
  strict: boolean;
  errors: FieldError[];
  leftOut: LeftOutField[];
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
function hardRefusal(field: CompiledField, value: unknown): FieldError | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length > field.hardLimit) return { field: field.pointer, code: 'max_length', message: field.hardLimitMessage };
  if (hasControlCharacter(value)) return { field: field.pointer, code: 'format', message: 'must not contain control characters' };
  return undefined;
}

/** Whether a failure of the field is left out rather than refused: a format or size, for a field not checked strictly in this run. */
function leavesOut(field: CompiledField, code: string, run: Run): boolean {
  if (field.spec.alwaysStrict || !formatCodes.has(code)) return false;
  return !run.strict || (field.spec.leftOutEvenIfScaReady === true && code === 'format');
}

/**
 * One given value: its normalized form, or undefined when it is refused (an error) or left out.
 * A refused value's error is the first rule it breaks; a value that would be left out is still
 * refused for what would break Kassa.
 */
function checkGiven(field: CompiledField, value: unknown, object: Record<string, unknown>, run: Run): unknown {
  const errors = run.errors;
  const before = errors.length;
  const normalized = checkValue(field, value, object, errors);
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

/** Validates one object against its table, writing the valid normalized fields `into`; returns how many. */
function validateObject(compiled: CompiledObject, given: Record<string, unknown>, run: Run, into: Record<string, unknown>): number {
  const object = compiled.phonePairs.length > 0 ? splitPhones(compiled.phonePairs, given) : given;
  let allRequired = false;
  if (compiled.spec.allOrNothing) {
    for (const field of compiled.fields) {
      if (!isAbsent(object[field.name])) {
        allRequired = true; // docs/api.md#browser-data: one field given makes every field required
        break;
      }
    }
  }
  let stored = 0;
  for (const field of compiled.fields) {
    const spec = field.spec;
    if (spec.onlyFor !== undefined && spec.onlyFor !== run.ctx.operation) continue;
    const value = object[field.name];
    if (isAbsent(value)) {
      const required = spec.required;
      if (allRequired) {
        run.errors.push({ field: field.pointer, code: 'conditional_required', message: compiled.allOrNothingMessage });
      } else if (required === 'always' || (required === 'sca' && run.scaReady)) {
        run.errors.push({ field: field.pointer, code: 'required', message: field.requiredMessage });
      } else if (typeof required === 'object' && conditionHolds(required, object, run.ctx)) {
        run.errors.push({ field: field.pointer, code: 'conditional_required', message: field.requiredMessage });
      }
      continue;
    }
    const normalized = checkGiven(field, value, object, run);
    if (normalized !== undefined) {
      into[field.name] = normalized;
      stored++;
    }
  }
  return stored;
}

export function validateThreeDS(body: Record<string, unknown>, ctx: ThreeDSContext): { errors: FieldError[]; data: ThreeDSData } {
  const scaReady = scaReadyAliases.get(body.scaReady) ?? body.scaReady;
  const run: Run = { ctx, scaReady: scaReady === 'yes', strict: !isAbsent(scaReady) && scaReady !== 'no', errors: [], leftOut: [] };
  const data: Record<string, unknown> = {};
  validateObject(compiledTopLevel, body, run, data);
  data.scaReady ??= 'no';

  for (const [name, compiled] of compiledObjects) {
    const value = body[name];
    if (isAbsent(value)) continue;
    if (!isPlainObject(value)) {
      run.errors.push({ field: compiled.spec.pointer, code: 'type', message: 'must be an object' });
      continue;
    }
    const normalized: Record<string, unknown> = {};
    // A copy by spread has fast properties: filled by computed keys, V8 keeps a large object as a dictionary, which JSON.stringify serializes slowly.
    if (validateObject(compiled, value, run, normalized) > 0) data[name] = { ...normalized };
  }

  if (ctx.merchantCapturesCardData && !isPlainObject(data.browserInfo) && !browserInfoGiven(body.browserInfo)) {
    if (!legacyBrowserComplete(body.browser))
      run.errors.push({ field: '/browserInfo', code: 'required', message: 'required when the merchant captures card data itself' });
  }

  applyEmailDefaults(body, data);
  if (run.leftOut.length > 0) data.leftOut = run.leftOut;
  return { errors: run.errors, data: { ...data } as unknown as ThreeDSData };
}

/** An older `browser` object with every field of browserInfo given (a field left out counts: it was given, and only its format failed). */
function legacyBrowserComplete(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  let given = 0;
  for (const key in objectSpecs.browserInfo.fields) if (!isAbsent(value[key])) given++;
  return given === browserInfoFieldCount;
}

/** A browserInfo object with at least one field given (it then carries its own errors). */
function browserInfoGiven(value: unknown): boolean {
  if (isAbsent(value)) return false;
  if (!isPlainObject(value)) return true;
  for (const key in objectSpecs.browserInfo.fields) if (!isAbsent(value[key])) return true;
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
  const given = body[objectName];
  if (!isAbsent(given) && !(isPlainObject(given) && isAbsent(given[field]))) return;
  data[objectName] = { ...(data[objectName] as Record<string, unknown> | undefined), [field]: value };
}

/** The payment object's field naming the 3-D Secure fields left out (docs/threeds.md). */
export const LEFT_OUT_FIELD = 'threeDSFieldsLeftOut';

/** The name of a top-level field's pointer (`/billingAddress`), or undefined for a field inside an object. */
function topLevelName(pointer: string): string | undefined {
  return pointer.lastIndexOf('/') === 0 ? pointer.slice(1) : undefined;
}

/**
 * The top-level fields to echo in the payment object (docs/api.md#the-payment-object: the billing fields are echoed):
 * billing* and shipping* strings incl. billingEmail/FirstName/LastName, shippingEmail/FirstName/LastName,
 * a field left out as it was sent, and the list of the fields left out.
 */
export function echoedFields(data: ThreeDSData): Record<string, unknown> {
  const echoed: Record<string, unknown> = {};
  for (const name of echoedFieldNames) {
    const value = data[name];
    if (value !== undefined) echoed[name] = value;
  }
  if (data.leftOut === undefined) return echoed;
  for (const entry of data.leftOut) {
    const name = topLevelName(entry.field);
    if (name !== undefined) echoed[name] = entry.value;
  }
  echoed[LEFT_OUT_FIELD] = data.leftOut;
  return echoed;
}

const echoedNames = new Set<string>([...echoedFieldNames, 'leftOut']);

/** The data but its echoed fields: stored beside `echoedFields`, so that a payment keeps each field once. */
export function unechoedFields(data: ThreeDSData): Partial<ThreeDSData> {
  const rest: Record<string, unknown> = {};
  for (const name in data) if (!echoedNames.has(name)) rest[name] = data[name as keyof ThreeDSData];
  return rest;
}

/** The inverse of the two above: the 3-D Secure data again, without the values left out (they are in the echo for the merchant only). */
export function threeDSDataOf(echoed: Record<string, unknown>, rest: Partial<ThreeDSData>): ThreeDSData {
  const { [LEFT_OUT_FIELD]: leftOut, ...fields } = echoed;
  for (const entry of (leftOut as LeftOutField[] | undefined) ?? []) {
    const name = topLevelName(entry.field);
    if (name !== undefined) delete fields[name];
  }
  return { ...fields, ...rest } as ThreeDSData;
}
