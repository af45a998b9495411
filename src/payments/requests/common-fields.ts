/**
 * Request fields as data, in the spirit of threeds/fields.ts and threeds/validate.ts: each
 * field is one row of a table (its JSON type, size, allowed values or format, whether it is
 * required, what the merchant's settings and the request's flow allow), and one engine checks
 * a body against a table, reporting every failing field at once (docs/decisions.md#errors). Tables
 * are compiled once, at module load, with every rule of flows.ts resolved into sets.
 * Also the rows of every request that sends a customer to a Kassa page (payments: docs/api.md#create-a-payment; vault
 * enrollments: docs/api.md#vault-enrollment): returnUrl, language, the merchant's free texts and the per-transaction
 * webhookUrl. Pure: no I/O.
 */
import type { FieldError } from '../ground/problem.ts';
import type { MerchantSettings } from '../merchants/merchants.ts';
import { checkHttpUrl, checkReturnUrl } from '../lib/urls.ts';
import { checkLanguage, DEFAULT_LANGUAGE } from '../ground/language.ts';
import { whyRefused, type Reach } from '../events/ssrf.ts';
import { flowNames, flows, type Flow, type FlowSpec } from './flows.ts';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Existing clients send `""` for unset optional fields (docs/api.md#existing-clients): treat as absent. */
export const given = (v: unknown) => v !== undefined && v !== null && v !== '';

export interface CommonFields {
  returnUrl?: string;
  language: string;
  merchantOrderReference?: string;
  description?: string;
  metadata?: string;
  webhookUrl?: string;
}

// ── The rows ─────────────────────────────────────────────────────────────────────────────

/** What a request is checked against besides its own fields: what the operator allows for the caller's mode. */
export interface RequestRules {
  /** Where the request's webhookUrl may point: its mode's reach (events/ssrf.ts). */
  webhooks: Reach;
  /** The schemes a returnUrl may have besides http(s) (RETURN_URL_SCHEMES). */
  returnUrlSchemes: readonly string[];
}

/** One request checked against its tables. */
export interface FieldRun extends RequestRules {
  /** The request's flow, once recognised: the rules a flow sets apply only then. */
  flow: Flow | undefined;
  settings: MerchantSettings | undefined;
  errors: FieldError[];
  /** The valid top-level fields, normalized, by name: a format may read one checked before it. */
  values: Record<string, unknown>;
}

/** Checks a value further: returns it normalized, or reports why not and returns undefined. */
export type Format<V> = (value: V, field: CompiledField, run: FieldRun) => unknown;

/** A JSON Schema fragment (2020-12, as OpenAPI 3.1 takes it). */
export type JsonSchema = Readonly<Record<string, unknown>>;

interface BaseSpec {
  /** Required whatever the flow, or in the flows for which this says so. */
  required?: true | ((flow: FlowSpec) => boolean);
  requiredMessage?: string;
  /** The value of an absent field. */
  default?: unknown;
  enum?: readonly string[];
  enumMessage?: string;
  /** The list of the merchant's settings a value must be in (`not_enabled`). */
  enabledIn?: 'methods' | 'cardBrands';
  /** The values a flow allows (`not_allowed`), with the message for each refused one. */
  allowedIn?: (flow: FlowSpec) => readonly string[];
  notAllowedMessage?: (value: string) => string;
  /** The sibling field this one must equal when both are given (`conflict`). */
  agreesWith?: string;
  /** What JSON Schema can say of the value beyond the row's other rules: its format's shape, for the API's OpenAPI document. */
  schema?: JsonSchema;
}

interface StringSpec extends BaseSpec {
  type: 'string';
  maxLength?: number;
  /** A longer value is cut to `maxLength` and kept instead of refused (text a person typed freely elsewhere). */
  cutToMax?: true;
  format?: Format<string>;
}

interface ObjectSpec extends BaseSpec {
  type: 'object';
  fields: Table;
  /** Every field's JSON type is checked before any field's value: the order this object's errors have always been listed in. */
  typesFirst?: true;
  /** The flow's `requires` and `forbids` (flows.ts) name this object's fields: checked after them. */
  ruledByFlow?: true;
}

interface ArraySpec extends BaseSpec {
  type: 'array of objects';
  maxItems: number;
  /** What the size message calls the items. */
  items: string;
}

/** A field with no JSON type of its own: its enum or its format says what a value may be. */
interface AnySpec extends BaseSpec {
  type?: undefined;
  format?: Format<unknown>;
}

export type FieldSpec = StringSpec | ObjectSpec | ArraySpec | AnySpec;
export type Table = Readonly<Record<string, FieldSpec>>;

// ── Compiled once ────────────────────────────────────────────────────────────────────────

/**
 * One row made ready at module load: its pointer, its flow rules as sets, every message it
 * can produce, and every rule as a property of one shape, so the engine's reads of a row stay
 * monomorphic whatever the row.
 */
export interface CompiledField {
  name: string;
  pointer: string;
  type: FieldSpec['type'];
  requiredWithoutFlow: boolean;
  requiredIn: ReadonlySet<Flow>;
  requiredMessage: string;
  defaultValue: unknown;
  typeMessage: string;
  /** Characters of a string, items of an array. */
  maxSize: number | undefined;
  /** A longer string is cut to `maxSize` rather than refused. */
  cutToMax: boolean;
  sizeCode: string;
  sizeMessage: string;
  enumValues: ReadonlySet<unknown> | undefined;
  enumMessage: string;
  enabledIn: BaseSpec['enabledIn'];
  allowedIn: ReadonlyMap<Flow, ReadonlySet<unknown>> | undefined;
  notAllowedMessages: ReadonlyMap<unknown, string>;
  format: Format<never> | undefined;
  agreesWith: string | undefined;
  conflictMessage: string;
  schema: JsonSchema | undefined;
  table: CompiledTable | undefined;
}

interface FlowRules {
  forbidden: readonly { names: readonly string[]; pointer: string; message: string }[];
  required: readonly { name: string; pointer: string; message: string }[];
}

export interface CompiledTable {
  fields: readonly CompiledField[];
  typesFirst: boolean;
  flowRules: ReadonlyMap<Flow, FlowRules> | undefined;
}

const typeMessages = { string: 'must be a string', object: 'must be an object', 'array of objects': 'must be an array of objects' } as const;

/** Compiles the table of the body (no pointer) or of the object field at `pointer`. */
export function compileTable(fields: Table, object?: { pointer: string; spec: ObjectSpec }): CompiledTable {
  const pointer = object?.pointer ?? '';
  return {
    fields: Object.entries(fields).map(([name, spec]) => compileField(`${pointer}/${name}`, name, spec)),
    typesFirst: object?.spec.typesFirst === true,
    flowRules: object?.spec.ruledByFlow ? new Map(flowNames.map((flow) => [flow, compileFlowRules(pointer, flows[flow])])) : undefined,
  };
}

function compileField(pointer: string, name: string, spec: FieldSpec): CompiledField {
  const { required, allowedIn, notAllowedMessage } = spec;
  const maxSize = spec.type === 'string' ? spec.maxLength : spec.type === 'array of objects' ? spec.maxItems : undefined;
  return {
    name,
    pointer,
    type: spec.type,
    requiredWithoutFlow: required === true,
    requiredIn: new Set(required === undefined ? [] : flowNames.filter((flow) => required === true || required(flows[flow]))),
    requiredMessage: spec.requiredMessage ?? 'is required',
    defaultValue: spec.default,
    typeMessage: spec.type === undefined ? '' : typeMessages[spec.type],
    maxSize,
    cutToMax: spec.type === 'string' && spec.cutToMax === true,
    sizeCode: spec.type === 'array of objects' ? 'max_items' : 'max_length',
    sizeMessage: spec.type === 'array of objects' ? `must have at most ${maxSize} ${spec.items}` : `must be at most ${maxSize} characters`,
    enumValues: spec.enum && new Set(spec.enum),
    enumMessage: spec.enumMessage ?? `must be one of ${spec.enum?.join(', ')}`,
    enabledIn: spec.enabledIn,
    allowedIn: allowedIn && new Map(flowNames.map((flow) => [flow, new Set(allowedIn(flows[flow]))])),
    notAllowedMessages: new Map(notAllowedMessage ? (spec.enum ?? []).map((value) => [value, notAllowedMessage(value)]) : []),
    format: spec.type === 'string' || spec.type === undefined ? spec.format : undefined,
    agreesWith: spec.agreesWith,
    conflictMessage: `must agree with ${spec.agreesWith}`,
    schema: spec.schema,
    table: spec.type === 'object' ? compileTable(spec.fields, { pointer, spec }) : undefined,
  };
}

function compileFlowRules(pointer: string, flow: FlowSpec): FlowRules {
  return {
    forbidden: flow.forbids.map((rule) => ({ names: rule.fields, pointer: `${pointer}/${rule.reportedAt}`, message: rule.message })),
    required: flow.requires.map((name) => ({
      name,
      pointer: `${pointer}/${name}`,
      message: `is required for the ${flow.title} flow (with ${flow.requires.join(' and ')})`,
    })),
  };
}

// ── The engine ───────────────────────────────────────────────────────────────────────────

export function fail(run: FieldRun, field: CompiledField, code: string, message: string): undefined {
  run.errors.push({ field: field.pointer, code, message });
  return undefined;
}

/** Checks `object` against `table`, writing its valid fields, normalized, `into`. */
export function checkTable(table: CompiledTable, object: Record<string, unknown>, run: FieldRun, into: Record<string, unknown>): void {
  if (table.typesFirst) {
    for (const field of table.fields) {
      const value = object[field.name];
      if (given(value) && !hasType(field, value)) fail(run, field, 'type', field.typeMessage);
    }
  }
  for (const field of table.fields) {
    const value = object[field.name];
    if (!given(value)) checkAbsent(field, run, into);
    else if (hasType(field, value)) checkValue(field, value, run, into);
    else if (!table.typesFirst) fail(run, field, 'type', field.typeMessage);
    if (field.agreesWith !== undefined) checkAgreement(field, object, run);
  }
  const rules = run.flow === undefined ? undefined : table.flowRules?.get(run.flow);
  if (rules) checkFlowRules(rules, object, run, into);
}

function hasType(field: CompiledField, value: unknown): boolean {
  switch (field.type) {
    case undefined:
      return true;
    case 'string':
      return typeof value === 'string';
    case 'object':
      return isObject(value);
    case 'array of objects':
      return Array.isArray(value) && value.every(isObject);
  }
}

function checkAbsent(field: CompiledField, run: FieldRun, into: Record<string, unknown>): void {
  if (run.flow === undefined ? field.requiredWithoutFlow : field.requiredIn.has(run.flow)) fail(run, field, 'required', field.requiredMessage);
  else if (field.defaultValue !== undefined) into[field.name] = field.defaultValue;
}

/** A given value of the row's type: the first rule it breaks is its one error. */
function checkValue(field: CompiledField, given: unknown, run: FieldRun, into: Record<string, unknown>): void {
  const value = field.cutToMax && (given as string).length > field.maxSize! ? cutText(given as string, field.maxSize!) : given;
  if (field.maxSize !== undefined && (value as string | unknown[]).length > field.maxSize) return void fail(run, field, field.sizeCode, field.sizeMessage);
  // Text is stored as given, and PostgreSQL cannot store a NUL: refused alike on both databases.
  if (field.type === 'string' && (value as string).includes('\u0000')) return void fail(run, field, 'format', 'must not contain the NUL character (U+0000)');
  if (field.enumValues !== undefined && !field.enumValues.has(value)) return void fail(run, field, 'enum', field.enumMessage);
  if (field.enabledIn !== undefined && !(run.settings![field.enabledIn] as readonly unknown[]).includes(value)) {
    return void fail(run, field, 'not_enabled', `${value} is not enabled for this merchant`);
  }
  if (field.allowedIn !== undefined && run.flow !== undefined && !field.allowedIn.get(run.flow)!.has(value)) {
    return void fail(run, field, 'not_allowed', field.notAllowedMessages.get(value)!);
  }
  let normalized = value;
  if (field.table !== undefined) checkTable(field.table, value as Record<string, unknown>, run, (normalized = {}));
  else if (field.format !== undefined) normalized = field.format(value as never, field, run);
  if (normalized !== undefined) into[field.name] = normalized;
}

function checkAgreement(field: CompiledField, object: Record<string, unknown>, run: FieldRun): void {
  const value = object[field.name];
  const other = object[field.agreesWith!];
  if (given(value) && given(other) && value !== other) fail(run, field, 'conflict', field.conflictMessage);
}

/** Forbidden fields count only with a valid value; a required one is missing only when not sent at all (one sent is reported as itself). */
function checkFlowRules(rules: FlowRules, object: Record<string, unknown>, run: FieldRun, valid: Record<string, unknown>): void {
  for (const rule of rules.forbidden) {
    for (const name of rule.names) {
      if (valid[name] === undefined) continue;
      run.errors.push({ field: rule.pointer, code: 'not_allowed', message: rule.message });
      break;
    }
  }
  for (const rule of rules.required) {
    if (!given(object[rule.name])) run.errors.push({ field: rule.pointer, code: 'conditional_required', message: rule.message });
  }
}

// ── The fields every customer-facing request shares ─────────────────────────────────────

function returnUrl(value: string, field: CompiledField, run: FieldRun): unknown {
  const check = checkReturnUrl(value, run.returnUrlSchemes);
  return check.ok ? value : fail(run, field, 'format', check.message);
}

/** The checks of events/ssrf.ts that need no connection: scheme, and a literal address (the connect-time check covers names). */
function webhookUrl(value: string, field: CompiledField, run: FieldRun): unknown {
  const check = checkHttpUrl(value);
  if (!check.ok) return fail(run, field, 'format', check.message);
  const refused = whyRefused(new URL(value), run.webhooks);
  return refused === undefined ? value : fail(run, field, 'format', refused);
}

function language(value: string, field: CompiledField, run: FieldRun): unknown {
  const check = checkLanguage(value);
  return check.ok ? check.code : fail(run, field, 'enum', check.message);
}

/** A money amount in major units as existing clients send it (docs/api.md#existing-clients): a JSON number or a numeric string, parsed exactly. */
export const amountSchema: JsonSchema = {
  anyOf: [
    { title: 'number', type: 'number', exclusiveMinimum: 0 },
    { title: 'numeric text', type: 'string', pattern: '^\\s*[0-9]+(\\.[0-9]+)?\\s*$' },
  ],
  description: 'Major units, no more decimals than the currency has (`10.50`, `"10.50"`).',
};

export const commonFields = {
  // Every flow that sends the customer to a Kassa page brings them back (docs/api.md#the-service).
  returnUrl: {
    type: 'string',
    format: returnUrl,
    required: (flow) => flow.requiresReturnUrl,
    requiredMessage: 'is required: the customer returns there afterwards',
    schema: { format: 'uri', description: 'An absolute `https:` or `http:` URL, or an app deep link whose scheme the operator allows (`RETURN_URL_SCHEMES`).' },
  },
  language: { type: 'string', format: language, default: DEFAULT_LANGUAGE, schema: { pattern: '^[A-Za-z]{3}$', description: 'ISO 639-2/T code.' } },
  merchantOrderReference: { type: 'string', maxLength: 255 },
  description: { type: 'string', maxLength: 1000 },
  metadata: { type: 'string', maxLength: 4096 },
  webhookUrl: {
    type: 'string',
    format: webhookUrl,
    schema: {
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      description: "Where this transaction's webhook goes instead of the merchant's URL (docs/webhooks.md).",
    },
  },
} satisfies Record<keyof CommonFields, FieldSpec>;

/** The common fields out of a run's values. */
export function commonFieldsOf(values: Record<string, unknown>): CommonFields {
  return {
    returnUrl: values.returnUrl as string | undefined,
    language: values.language as string,
    merchantOrderReference: values.merchantOrderReference as string | undefined,
    description: values.description as string | undefined,
    metadata: values.metadata as string | undefined,
    webhookUrl: values.webhookUrl as string | undefined,
  };
}

/** The first `max` UTF-16 units of `text`, without a half of a character cut in two. */
function cutText(text: string, max: number): string {
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
