/**
 * Problem details (RFC 9457): the one error type services throw. The API's error
 * handler turns it into `application/problem+json`; routes never build error bodies.
 */
import { problemTypes, type ProblemCode, type ProblemType } from './problem-types.ts';

/** One failing field: `field` is a JSON pointer into the request body (`/accountInfo/email`). */
export interface FieldError {
  field: string;
  /** Stable machine code: required, max_length, min_length, format, enum, conditional_required, type, … */
  code: string;
  message: string;
}

/** Collects failing fields while a request is checked, so every one is reported at once. */
export class FieldErrors {
  readonly list: FieldError[] = [];

  add(field: string, code: string, message: string): void {
    this.list.push({ field, code, message });
  }

  has(field: string): boolean {
    return this.list.some((error) => error.field === field);
  }
}

/** Where the API reference is served, under PUBLIC_URL. */
export const DOCS_PATH = '/docs';
/** The reference page's section that explains a problem type, by its slug (problem-types.ts). */
export const problemAnchor = (slug: string) => `problem-${slug}`;
/**
 * A problem's `type` (RFC 9457 §3.1.1): the address of the section of this Kassa's reference
 * page that explains it, so the URI resolves where the answer came from (docs/decisions.md
 * "Problem types").
 */
export const problemTypeUri = (publicUrl: string, slug: string) => `${publicUrl}${DOCS_PATH}#${problemAnchor(slug)}`;

/** What a raise says beyond its code; a string is the `detail` alone. */
export interface ProblemOptions {
  detail?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Another of the type's statuses than its first (Fastify's own 4xx refusals, api/errors.ts). */
  status?: number;
  /** For `invalidSetting`: the option at fault and why (`invalidSetting`, below). */
  field?: string;
  reason?: string;
}

/** A problem, raised by its code (problem-types.ts): status, title and `type` are the registry's. */
export class Problem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail?: string;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly field?: string;
  readonly reason?: string;
  private readonly slug: string | null;

  constructor(
    readonly code: ProblemCode,
    about: string | ProblemOptions = {},
  ) {
    const type: ProblemType = problemTypes[code];
    const { detail = type.detail, errors, headers = {}, status = type.statuses[0]!, field, reason } = typeof about === 'string' ? { detail: about } : about;
    super(detail ?? type.title);
    this.status = status;
    this.title = type.title;
    this.slug = type.slug;
    this.detail = detail;
    this.errors = errors;
    this.headers = headers;
    this.field = field;
    this.reason = reason;
  }

  /** The body, its `type` under this Kassa's PUBLIC_URL. */
  toBody(publicUrl: string, instance?: string): Record<string, unknown> {
    return {
      ...(this.slug === null ? {} : { type: problemTypeUri(publicUrl, this.slug) }),
      title: this.title,
      status: this.status,
      ...(this.detail ? { detail: this.detail } : {}),
      ...(instance ? { instance } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.field ? { field: this.field, reason: this.reason } : {}),
    };
  }
}

/**
 * A refused admin change naming the option at fault: its message is the CLI's words
 * (`--url must be an https URL`), and the console shows `reason` at the form field `field`.
 */
export const invalidSetting = (field: string, reason: string) => new Problem('invalidSetting', { detail: `--${field} ${reason}`, field, reason });

/** JSON pointer escaping (RFC 6901) for building `field` values. */
export function pointer(...segments: (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
