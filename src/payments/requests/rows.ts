/**
 * The rows of a merchant request's field tables, compiled onto the one field engine
 * (ground/field-engine.ts): each field is one row (its JSON type, size, allowed values or format,
 * whether it is required, what the merchant's settings and the request's flow allow), compiled
 * once at module load with every rule of flows.ts resolved into sets. contract/request-schemas.ts
 * reads the compiled rows to write the OpenAPI document. Pure: no I/O.
 */
import type { MerchantSettings } from '../../merchants/merchants.ts';
import type { Reach } from '../../events/ssrf.ts';
import {
  atMost,
  checkTable,
  cutTo,
  fail,
  given,
  isObject,
  memberOf,
  runChecks,
  type Check,
  type CompiledField,
  type CompiledTable,
  type FieldRun,
} from '../../ground/field-engine.ts';
import { flowNames, flows, type Flow, type FlowSpec } from '../flows.ts';

/** What a request is checked against besides its own fields: what the operator allows for the caller's mode. */
export interface RequestRules {
  /** Where the request's webhookUrl may point: its mode's reach (events/ssrf.ts). */
  webhooks: Reach;
  /** The schemes a returnUrl may have besides http(s) (RETURN_URL_SCHEMES). */
  returnUrlSchemes: readonly string[];
}

/** One request checked against its tables. */
export interface RequestRun extends FieldRun, RequestRules {
  /** The request's flow, once recognised: the rules a flow sets apply only then. */
  flow: Flow | undefined;
  settings: MerchantSettings | undefined;
  /** The valid top-level fields, normalized, by name: a format may read one checked before it. */
  values: Record<string, unknown>;
}

/** Checks a value further: returns it normalized, or reports why not and returns undefined. */
export type FormatCheck<V> = (value: V, field: CompiledField<RequestRun>, run: RequestRun) => unknown;

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
  format?: FormatCheck<string>;
}

interface ObjectSpec extends BaseSpec {
  type: 'object';
  fields: RequestTable;
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
  format?: FormatCheck<unknown>;
}

export type RequestFieldSpec = StringSpec | ObjectSpec | ArraySpec | AnySpec;
export type RequestTable = Readonly<Record<string, RequestFieldSpec>>;

// ── Compiled once ────────────────────────────────────────────────────────────────────────

/** A compiled row and what the OpenAPI document reads of it (contract/request-schemas.ts). */
export interface RequestField extends CompiledField<RequestRun> {
  type: RequestFieldSpec['type'];
  requiredWithoutFlow: boolean;
  requiredIn: ReadonlySet<Flow>;
  defaultValue: unknown;
  /** Characters of a string, items of an array. */
  maxSize: number | undefined;
  /** A longer string is cut to `maxSize` rather than refused. */
  cutToMax: boolean;
  enumValues: ReadonlySet<unknown> | undefined;
  enabledIn: BaseSpec['enabledIn'];
  allowedIn: ReadonlyMap<Flow, ReadonlySet<unknown>> | undefined;
  agreesWith: string | undefined;
  schema: JsonSchema | undefined;
  table: CompiledRequestTable | undefined;
}

export type CompiledRequestTable = CompiledTable<RequestRun, RequestField>;

const typeMessages = { string: 'must be a string', object: 'must be an object', 'array of objects': 'must be an array of objects' } as const;

/** Compiles the table of the body (no pointer) or of the object field at `pointer`. */
export function compileTable(fields: RequestTable, object?: { pointer: string; spec: ObjectSpec }): CompiledRequestTable {
  const pointer = object?.pointer ?? '';
  const compiled = Object.entries(fields).map(([name, spec]) => compileField(`${pointer}/${name}`, name, spec, object?.spec.typesFirst === true));
  const flowRules = object?.spec.ruledByFlow ? new Map(flowNames.map((flow) => [flow, compileFlowRules(pointer, flows[flow])])) : undefined;
  return {
    fields: compiled,
    prepare: object?.spec.typesFirst ? (given, run) => checkTypesFirst(compiled, given, run) : undefined,
    finish:
      flowRules &&
      ((given, run, valid) => {
        if (run.flow !== undefined) checkFlowRules(flowRules.get(run.flow)!, given, run, valid);
      }),
  };
}

function compileField(pointer: string, name: string, spec: RequestFieldSpec, typesChecked: boolean): RequestField {
  const { required, allowedIn, notAllowedMessage } = spec;
  const maxSize = spec.type === 'string' ? spec.maxLength : spec.type === 'array of objects' ? spec.maxItems : undefined;
  const field: RequestField = {
    name,
    pointer,
    checks: [],
    check: (value, run, object) => runChecks(field, value, run, object),
    absent: undefined,
    type: spec.type,
    requiredWithoutFlow: required === true,
    requiredIn: new Set(required === undefined ? [] : flowNames.filter((flow) => required === true || required(flows[flow]))),
    defaultValue: spec.default,
    maxSize,
    cutToMax: spec.type === 'string' && spec.cutToMax === true,
    enumValues: spec.enum && new Set(spec.enum),
    enabledIn: spec.enabledIn,
    allowedIn: allowedIn && new Map(flowNames.map((flow) => [flow, new Set(allowedIn(flows[flow]))])),
    agreesWith: spec.agreesWith,
    schema: spec.schema,
    table: spec.type === 'object' ? compileTable(spec.fields, { pointer, spec }) : undefined,
  };
  field.checks = valueChecks(field, spec, typesChecked, notAllowedMessage);
  field.absent = absentRule(field, spec.requiredMessage ?? 'is required');
  if (field.agreesWith !== undefined) field.check = agreeing(field, field.agreesWith);
  return field;
}

/** A given value's checks: its JSON type, then the first rule it breaks is its one error. */
function valueChecks(
  field: RequestField,
  spec: RequestFieldSpec,
  typesChecked: boolean,
  notAllowedMessage: ((value: string) => string) | undefined,
): Check<RequestRun>[] {
  const checks: Check<RequestRun>[] = [];
  if (spec.type !== undefined) checks.push(hasType(spec.type, typesChecked));
  if (field.cutToMax) checks.push(cutTo(field.maxSize!, true));
  if (field.maxSize !== undefined) {
    const [code, message] =
      spec.type === 'array of objects'
        ? ['max_items', `must have at most ${field.maxSize} ${spec.items}`]
        : ['max_length', `must be at most ${field.maxSize} characters`];
    checks.push(atMost(field.maxSize, code, message));
  }
  if (spec.type === 'string') checks.push(withoutNul);
  if (field.enumValues !== undefined) checks.push(memberOf(field.enumValues, spec.enumMessage ?? `must be one of ${spec.enum?.join(', ')}`));
  const { enabledIn, allowedIn } = field;
  if (enabledIn !== undefined) {
    checks.push((value, _, run) =>
      (run.settings![enabledIn] as readonly unknown[]).includes(value) ? value : fail(run, field, 'not_enabled', `${value} is not enabled for this merchant`),
    );
  }
  if (allowedIn !== undefined) {
    const messages = new Map(notAllowedMessage ? (spec.enum ?? []).map((value) => [value, notAllowedMessage(value)]) : []);
    checks.push((value, _, run) =>
      run.flow === undefined || allowedIn.get(run.flow)!.has(value) ? value : fail(run, field, 'not_allowed', messages.get(value as string)!),
    );
  }
  const { table } = field;
  if (table !== undefined) checks.push((value, _, run) => nested(table, value as Record<string, unknown>, run));
  else if ((spec.type === 'string' || spec.type === undefined) && spec.format !== undefined) checks.push(spec.format as Check<RequestRun>);
  return checks;
}

const typeChecks = {
  string: (value: unknown) => typeof value === 'string',
  object: isObject,
  'array of objects': (value: unknown) => Array.isArray(value) && value.every(isObject),
} as const;

/** The row's JSON type; in a table whose types are checked first (`typesFirst`), already reported. */
function hasType(type: keyof typeof typeChecks, reported: boolean): Check<RequestRun> {
  const test = typeChecks[type];
  const message = typeMessages[type];
  return (value, field, run) => (test(value) ? value : reported ? undefined : fail(run, field, 'type', message));
}

function checkTypesFirst(fields: readonly RequestField[], object: Record<string, unknown>, run: RequestRun): Record<string, unknown> {
  for (const field of fields) {
    const value = object[field.name];
    if (field.type !== undefined && given(value) && !typeChecks[field.type](value)) fail(run, field, 'type', typeMessages[field.type]);
  }
  return object;
}

/** Text is stored as given, and PostgreSQL cannot store a NUL: refused alike on both databases. */
const withoutNul: Check<RequestRun> = (value, field, run) =>
  (value as string).includes('\u0000') ? fail(run, field, 'format', 'must not contain the NUL character (U+0000)') : value;

function nested(table: CompiledRequestTable, value: Record<string, unknown>, run: RequestRun): Record<string, unknown> {
  const into: Record<string, unknown> = {};
  checkTable(table, value, run, into);
  return into;
}

function absentRule(field: RequestField, requiredMessage: string): RequestField['absent'] {
  const { requiredWithoutFlow, requiredIn, defaultValue, name } = field;
  if (requiredIn.size === 0 && defaultValue === undefined) return undefined;
  return (run, _, into) => {
    if (run.flow === undefined ? requiredWithoutFlow : requiredIn.has(run.flow)) fail(run, field, 'required', requiredMessage);
    else if (defaultValue !== undefined) into[name] = defaultValue;
  };
}

/** The field's check, then `conflict` when it and its sibling are both given and differ. */
function agreeing(field: RequestField, sibling: string): RequestField['check'] {
  const message = `must agree with ${sibling}`;
  return (value, run, object) => {
    const normalized = runChecks(field, value, run, object);
    const other = object[sibling];
    if (given(other) && value !== other) fail(run, field, 'conflict', message);
    return normalized;
  };
}

// ── The flow's rules of an object (flows.ts requires, forbids) ────────────────────────────

interface FlowRules {
  forbidden: readonly { names: readonly string[]; pointer: string; message: string }[];
  required: readonly { name: string; pointer: string; message: string }[];
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

/** Forbidden fields count only with a valid value; a required one is missing only when not sent at all (one sent is reported as itself). */
function checkFlowRules(rules: FlowRules, object: Record<string, unknown>, run: RequestRun, valid: Record<string, unknown>): void {
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
