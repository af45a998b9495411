/**
 * Test support: every answer of the merchant API that a test receives is checked against the
 * OpenAPI document (src/contract/document.ts) — its status is one the route declares, its content
 * type one that status declares, its body valid against that schema — so the code and the
 * contract cannot drift. An answer at an address that is no route of the document must still be
 * a problem. And a request Kassa accepted must be valid against the route's request schema.
 * Compiled once per process, with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses it).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/contract/document.ts';

const API_PREFIX = '/api/v1';
const DOCUMENT_URL = 'http://kassa.test';
// Of the document's schemas only a problem's `type` depends on PUBLIC_URL (the address of its section,
// `PUBLIC_URL/docs#problem-<slug>`): one document checks every test app's answers, a problem's type
// read under this document's PUBLIC_URL (test/api/contract.test.ts checks it is the app's own).
const document = openApiDocument(DOCUMENT_URL, API_PREFIX) as {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> }>>;
  components: { responses: Record<string, { content: Record<string, unknown> }> };
};

// Formats are annotations in 2020-12; Kassa's own checks (and the 422s) are stricter than any format assertion.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(document, 'openapi');

interface Route {
  method: string;
  pattern: RegExp;
  path: string;
}

const routes: Route[] = Object.entries(document.paths).flatMap(([path, operations]) =>
  Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) })),
);

const validators = new Map<string, ValidateFunction>();
function validator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) validators.set(pointer, (validate = ajv.getSchema(`openapi#${pointer}`)!));
  return validate;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Drops what the document says counts as absent: an optional field sent as `""` or `null` (existing clients send them). */
function withoutAbsent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAbsent);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== '' && field !== null)
      .map(([name, field]) => [name, withoutAbsent(field)]),
  );
}

/**
 * Why a request Kassa accepted breaks the document's request schema, or undefined: a schema that
 * refuses what Kassa takes would make clients generated from it refuse it too.
 */
export function acceptedRequestBreach(request: { method: string; url: string; body: unknown }, statusCode: number): string | undefined {
  const path = request.url.split('?')[0]!;
  if (statusCode >= 300 || !path.startsWith(`${API_PREFIX}/`)) return undefined;
  const route = routes.find((r) => r.method === request.method.toUpperCase() && r.pattern.test(path.slice(API_PREFIX.length)));
  const operation = route && (document.paths[route.path]![route.method.toLowerCase()] as { requestBody?: unknown });
  if (!route || !operation?.requestBody) return undefined;
  const validate = validator(`/paths/${escape(route.path)}/${route.method.toLowerCase()}/requestBody/content/application~1json/schema`);
  const body = withoutAbsent(request.body);
  return validate(body)
    ? undefined
    : `${request.method} ${route.path} accepted (${statusCode}) a body its schema refuses: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 500)}`;
}

/** Why an answer breaks the contract, or undefined when it keeps it. Only answers under the API prefix are the contract's. */
export function contractBreach(
  request: { method: string; url: string },
  answer: { statusCode: number; headers: Record<string, unknown>; body: string },
): string | undefined {
  const path = request.url.split('?')[0]!;
  if (!path.startsWith(`${API_PREFIX}/`)) return undefined;
  const local = path.slice(API_PREFIX.length);
  const route = routes.find((r) => r.method === request.method.toUpperCase() && r.pattern.test(local));
  const where = `${request.method} ${route?.path ?? local} → ${answer.statusCode}`;
  const mediaType = String(answer.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  let pointer: string;
  if (!route) {
    if (answer.statusCode < 400) return `${where}: the document has no such route`;
    if (mediaType !== 'application/problem+json') return `${where}: a problem is application/problem+json, not ${mediaType}`;
    pointer = '/components/schemas/Problem';
  } else {
    const declared = document.paths[route.path]![route.method.toLowerCase()]!.responses[String(answer.statusCode)];
    if (!declared) return `${where}: the document does not declare this status`;
    const responsePointer = declared.$ref ? declared.$ref.slice(1) : `/paths/${escape(route.path)}/${route.method.toLowerCase()}/responses/${answer.statusCode}`;
    const response = declared.$ref ? document.components.responses[declared.$ref.split('/').pop()!]! : declared;
    if (!response.content?.[mediaType]) return `${where}: the document declares no ${mediaType || 'content type'} for it`;
    pointer = `${responsePointer}/content/${escape(mediaType)}/schema`;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `${where}: the body is not JSON`;
  }
  if (mediaType === 'application/problem+json') body = underDocumentUrl(body);
  const validate = validator(pointer);
  return validate(body) ? undefined : `${where}: ${ajv.errorsText(validate.errors)} in ${answer.body.slice(0, 500)}`;
}

/** A problem body with its `type` read under the document's PUBLIC_URL. */
function underDocumentUrl(body: unknown): unknown {
  const type = (body as { type?: unknown }).type;
  const docs = typeof type === 'string' ? type.indexOf('/docs#problem-') : -1;
  return docs < 0 ? body : { ...(body as object), type: DOCUMENT_URL + (type as string).slice(docs) };
}
