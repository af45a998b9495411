/**
 * Problem details (RFC 9457): the one error type services throw. The API's error
 * handler turns it into `application/problem+json`; routes never build error bodies.
 */

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

/** The stable name of a problem type: its title's slug, the same on every Kassa. */
export const problemSlug = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
/** Where the API reference is served, under PUBLIC_URL. */
export const DOCS_PATH = '/docs';
/** The reference page's section that explains a problem type. */
export const problemAnchor = (title: string) => `problem-${problemSlug(title)}`;
/**
 * A problem's `type` (RFC 9457 §3.1.1): the address of the section of this Kassa's reference
 * page that explains it, so the URI resolves where the answer came from (docs/decisions.md
 * "Problem types").
 */
export const problemTypeUri = (publicUrl: string, title: string) => `${publicUrl}${DOCS_PATH}#${problemAnchor(title)}`;

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
  }

  static validation(errors: FieldError[], detail = 'The request has invalid fields; see errors.'): Problem {
    return new Problem(422, 'Validation failed', detail, errors);
  }

  static notFound(detail: string): Problem {
    return new Problem(404, 'Not found', detail);
  }

  static unprocessable(detail: string, errors?: FieldError[]): Problem {
    return new Problem(422, 'Unprocessable request', detail, errors);
  }

  static conflict(detail: string, headers: Record<string, string> = {}): Problem {
    return new Problem(409, 'Conflict', detail, undefined, headers);
  }

  /** The body, its `type` under this Kassa's PUBLIC_URL. */
  toBody(publicUrl: string, instance?: string): Record<string, unknown> {
    return {
      type: problemTypeUri(publicUrl, this.title),
      title: this.title,
      status: this.status,
      ...(this.detail ? { detail: this.detail } : {}),
      ...(instance ? { instance } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

/** JSON pointer escaping (RFC 6901) for building `field` values. */
export function pointer(...segments: (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
