/**
 * The one field engine of Kassa's requests (docs/decisions.md#one-field-engine): a table of fields,
 * compiled once into checks, run over a JSON object; every failing field is reported at once as
 * `{field: JSON pointer, code, message}` (docs/decisions.md#errors) and the valid fields, normalized,
 * are written into a result. Two vocabularies of rows compile onto it: a request's fields with the
 * merchant's settings and the flow's rules (payments/requests/rows.ts), and the 3-D Secure 2 fields
 * with and without `scaReady` (threeds/validate.ts, tables in threeds/fields.ts).
 *
 * It lives in ground/ because both threeds/ and payments/ use it (imports point down, see
 * .dependency-cruiser.cjs) and the errors it reports are ground's `FieldError` (problem.ts), which
 * lib/ may not import. Pure: no I/O.
 */
import type { FieldError } from './problem.ts';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Existing clients send `""` (and JSON null) for unset optional fields (docs/api.md#existing-clients): both mean absent. */
export const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/** One check of a body against a table: the errors so far. A vocabulary adds what its rows read (the flow, `scaReady`…). */
export interface FieldRun {
  errors: FieldError[];
}

/**
 * One check of a given value: the value (normalized) for the next check, or undefined after
 * reporting why not. `object` is the object the field is in, for a rule that reads a sibling.
 */
export type Check<R extends FieldRun> = (value: unknown, field: CompiledField<R>, run: R, object: Record<string, unknown>) => unknown;

/** One row made ready at compile time: its pointer, and what a given value and an absent one go through. */
export interface CompiledField<R extends FieldRun> {
  name: string;
  pointer: string;
  /** A given value's checks, in order: the first that fails is the field's one error. */
  checks: readonly Check<R>[];
  /** Checks a given value to its normalized form (undefined: refused, or left out); `runChecks` unless the vocabulary wraps it. */
  check: (value: unknown, run: R, object: Record<string, unknown>) => unknown;
  /** What an absent value means: a requirement broken, a default written `into`, or nothing. */
  absent: ((run: R, object: Record<string, unknown>, into: Record<string, unknown>) => void) | undefined;
}

export interface CompiledTable<R extends FieldRun, F extends CompiledField<R> = CompiledField<R>> {
  fields: readonly F[];
  /** Before the fields: the object they are read from (a combined value split, types checked first). */
  prepare: ((object: Record<string, unknown>, run: R) => Record<string, unknown>) | undefined;
  /** After the fields: the rules between them, given the object and its valid fields. */
  finish: ((object: Record<string, unknown>, run: R, valid: Record<string, unknown>) => void) | undefined;
}

/** Checks `object` against `table`, writing its valid fields, normalized, `into`. */
export function checkTable<R extends FieldRun>(table: CompiledTable<R>, object: Record<string, unknown>, run: R, into: Record<string, unknown>): void {
  const read = table.prepare === undefined ? object : table.prepare(object, run);
  for (const field of table.fields) {
    const value = read[field.name];
    if (!given(value)) field.absent?.(run, read, into);
    else {
      const normalized = field.check(value, run, read);
      if (normalized !== undefined) into[field.name] = normalized;
    }
  }
  table.finish?.(read, run, into);
}

/** A given value through its field's checks: the normalized value, or undefined at the first that fails. */
export function runChecks<R extends FieldRun>(field: CompiledField<R>, value: unknown, run: R, object: Record<string, unknown>): unknown {
  let current = value;
  for (const check of field.checks) {
    current = check(current, field, run, object);
    if (current === undefined) return undefined;
  }
  return current;
}

export function fail(run: FieldRun, field: { pointer: string }, code: string, message: string): undefined {
  run.errors.push({ field: field.pointer, code, message });
  return undefined;
}

// ── The checks both vocabularies use ─────────────────────────────────────────────────────

/** A string, else `type` with `message`. */
export function isString<R extends FieldRun>(message: string): Check<R> {
  return (value, field, run) => (typeof value === 'string' ? value : fail(run, field, 'type', message));
}

/** At most `max` characters of a string or items of an array, else `code` with `message`. */
export function atMost<R extends FieldRun>(max: number, code: string, message: string): Check<R> {
  return (value, field, run) => ((value as string | unknown[]).length > max ? fail(run, field, code, message) : value);
}

/** At least `min` characters of a string. */
export function atLeast<R extends FieldRun>(min: number, message: string): Check<R> {
  return (value, field, run) => ((value as string).length < min ? fail(run, field, 'min_length', message) : value);
}

/** One of `values`, else `enum` with `message`. */
export function memberOf<R extends FieldRun>(values: ReadonlySet<unknown>, message: string): Check<R> {
  return (value, field, run) => (values.has(value) ? value : fail(run, field, 'enum', message));
}

/**
 * A longer string cut to `max` and kept rather than refused (text a person or a browser wrote
 * freely). `wholeCharacters`: never a half of a surrogate pair at the end (the payment rows); the
 * 3-D Secure rows cut at exactly `max` UTF-16 units, as they always have.
 */
export function cutTo<R extends FieldRun>(max: number, wholeCharacters: boolean): Check<R> {
  return (value) => {
    const text = value as string;
    if (text.length <= max) return text;
    const cut = text.slice(0, max);
    const last = cut.charCodeAt(cut.length - 1);
    return wholeCharacters && last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
  };
}
