/**
 * The request log (docs/api.md "Request log"): one entry per merchant API request made with an API
 * key — when, the merchant and mode, the key's prefix, method, route pattern, status, duration, the
 * request id (request-id.ts) and an error's problem title; never a body, a query string, a path's
 * tokens or the key, which may carry card data or grant access.
 *
 * No request waits for the database on its account: the onResponse hook only pushes the entry to
 * this process's buffer, which is written as one multi-row insert a second after its first entry or
 * once it holds BATCH_SIZE, and when the server closes (docs/decisions.md "Performance per core").
 * A crashed process loses at most its last second of entries; a batch the database refuses is
 * dropped with a warning (docs/operations.md "Request log"): a debugging log is not worth a retry
 * queue that could grow without bound.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VerifiedKey } from '../merchants/merchants.ts';
import type { Store } from '../store/store.ts';
import { insertRequestLogEntries, type RequestLogEntry } from '../store/request-log.ts';
import { answeredProblemTitle } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key the request was made with, once verified (api/auth.ts); null without one. */
    apiKey: VerifiedKey | null;
  }
}

export const FLUSH_AFTER_MS = 1000;
export const BATCH_SIZE = 500;

export class RequestLogBuffer {
  private entries: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly log: FastifyBaseLogger,
  ) {}

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length >= BATCH_SIZE) void this.flush();
    else if (this.timer === undefined) this.timer = setTimeout(() => void this.flush(), FLUSH_AFTER_MS).unref();
  }

  /** Writes what is buffered, after the batch being written (batches are written one at a time, in order). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.entries;
    this.entries = [];
    if (batch.length > 0) {
      this.writing = this.writing.then(() =>
        this.store
          .transact((db) => insertRequestLogEntries(db, batch))
          .catch((error: unknown) => this.log.warn({ err: error, entries: batch.length }, 'request log entries not written')),
      );
    }
    return this.writing;
  }
}

/** The request's entry when it was made with a verified API key; undefined otherwise. */
function entryOf(request: FastifyRequest, reply: FastifyReply): RequestLogEntry | undefined {
  const key = request.apiKey;
  if (key === null) return undefined;
  return {
    at: Date.now(),
    merchant_id: key.caller.merchantId,
    mode: key.caller.mode,
    key_prefix: key.keyPrefix,
    method: request.method,
    // The matched pattern (`/api/v1/cancel/:token`): never the address as sent, its query string or tokens.
    route: request.routeOptions.url ?? '',
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 100) / 100,
    request_id: request.id,
    problem_title: answeredProblemTitle(reply) ?? null,
  };
}

/** Registers the request log on the API's scope (server.ts): routes in it set `request.apiKey` when a key was verified. */
export function installRequestLog(api: FastifyInstance, store: Store): RequestLogBuffer {
  const buffer = new RequestLogBuffer(store, api.log);
  api.decorateRequest('apiKey', null);
  api.addHook('onResponse', (request, reply, done) => {
    const entry = entryOf(request, reply);
    if (entry) buffer.add(entry);
    done();
  });
  api.addHook('onClose', (_instance, done) => {
    buffer.flush().then(() => done(), done);
  });
  return buffer;
}
