/**
 * Request ids: the caller's `X-Request-Id` when it is a safe token, else a fresh UUID. Fastify
 * binds it to every log line of the request (`reqId`); answer-headers.ts answers it back and
 * errors.ts puts it into every problem body (`requestId`), so a merchant's support question
 * leads to the log lines of its request. The incoming value is bounded and limited to
 * characters that cannot forge a log line or a header (docs/operations.md "Request ids").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** UUIDs, ULIDs, trace ids and the like: 1 to 128 letters, digits and `-_.:+=/@`. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9\-_.:+=/@]{1,128}$/;

/** Fastify's `genReqId` (with `requestIdHeader: false`, so Fastify never takes the header unchecked). */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
