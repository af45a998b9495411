/**
 * JSON request bodies. Fastify's default parser runs secure-json-parse, which scans every
 * body with two regular expressions for `__proto__` and `constructor` keys (measured: a
 * third of the parse time of a 3 KB payment request). Such a key can only be written with
 * those letters or with a \u escape, so the scan runs only on a body containing one of
 * them; any other body is plain JSON.parse, with the same result.
 *
 * A body is read as bytes and must be UTF-8 (RFC 8259 §8.1): decoding it as a string would
 * turn invalid bytes into U+FFFD silently, and the request would be stored as something the
 * merchant never sent. A body may nest objects and arrays at most MAX_JSON_DEPTH levels: no
 * request of the API needs more than a few, and what reads a body after this parser (the
 * Idempotency-Reference fingerprint, the field tables) may then recurse without a limit of
 * its own.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { Problem } from '../ground/problem.ts';

export const MAX_JSON_DEPTH = 32;

const mayPoison = (text: string) => text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new Problem('malformedRequest', 'The body is empty but Content-Type says JSON: send a JSON object.');
  if (!isUtf8(body)) throw new Problem('malformedJson', 'The request body is not valid UTF-8: send JSON encoded as UTF-8.');
  const text = body.toString('utf8');
  let value: unknown;
  try {
    value = mayPoison(text) ? secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) : JSON.parse(text);
  } catch (error) {
    throw new Problem('malformedJson', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value === 'object' && value !== null && nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    throw new Problem('jsonTooDeep', `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; at most ${MAX_JSON_DEPTH} are accepted.`);
  }
  return value;
}

/** Whether an object or array inside `value` (itself at `depth`) lies deeper than `limit`; the recursion never goes past the limit. */
function nestsDeeperThan(value: object, limit: number, depth = 1): boolean {
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null && nestsDeeperThan(item, limit, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && nestsDeeperThan(child, limit, depth + 1)) return true;
  }
  return false;
}

export function installJsonBodyParser(app: FastifyInstance, read: (body: Buffer) => unknown = parseJsonBody) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request: FastifyRequest, body: Buffer, done) => {
    try {
      done(null, read(body));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** A body read as above (`json`; undefined for text) and kept as its bytes too (`raw`). */
export interface BodyWithBytes {
  raw: Buffer;
  json: unknown;
}

/**
 * For the routes of one scope that check a signature over the bytes of the body (an acquirer's
 * notifications): JSON is read as everywhere else and errs the same way, and text is not read.
 */
export function installBodyWithBytesParsers(app: FastifyInstance) {
  installJsonBodyParser(app, (raw): BodyWithBytes => ({ raw, json: parseJsonBody(raw) }));
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_request: FastifyRequest, raw: Buffer, done) =>
    done(null, { raw, json: undefined } satisfies BodyWithBytes),
  );
}
