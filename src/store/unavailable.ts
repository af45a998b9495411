/**
 * Which failures of the database are a passing state rather than a fault of Kassa's: the server
 * restarting, unreachable or out of space, the disk full, the file locked by another writer.
 * Every answerer (the API, the pages, the console) turns them into 503 with Retry-After, never
 * 500, and the operator sees them as such in the log (docs/operations.md "When the database is
 * away"). Read from the drivers' error codes (and, for pg's own connection errors, which carry
 * none, their messages), for errors the database's driver raised only: a connection reset or a
 * timeout is the same `ECONNRESET` or `ETIMEDOUT` from an acquirer or a webhook target, and those
 * are not the database. better-sqlite3 raises its own class; pg raises Node's socket errors as
 * they are, so the PostgreSQL adapter marks what pg rejects with (`raisedByDatabase`), as does
 * the SQLite adapter for its WAL's fsync. Nothing here talks to a database.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Problem } from '../ground/problem.ts';

/** Errors a store adapter saw its driver raise. */
const raisedByDriver = new WeakSet<object>();

/** Marks `error` as raised by the database's driver (store adapters only), and returns it to be thrown. */
export function raisedByDatabase<T>(error: T): T {
  if (typeof error === 'object' && error !== null) raisedByDriver.add(error);
  return error;
}

const fromDatabase = (error: Error) => error instanceof BetterSqlite3.SqliteError || raisedByDriver.has(error);

/** PostgreSQL SQLSTATE classes and codes: connection exception, insufficient resources (disk full, too many connections), shutting down or starting up. */
const POSTGRES_CLASSES = ['08', '53'];
const POSTGRES_CODES = new Set(['57P01', '57P02', '57P03']);
/** The network, as Node reports it, on the way to PostgreSQL; and the disk, for the WAL's own fsync (sqlite.ts). */
const SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOSPC', 'EDQUOT']);
/** pg's errors for a connection lost or never made, which have no code. */
const POSTGRES_MESSAGES = ['Connection terminated', 'Client has encountered a connection error and is not queryable', 'timeout exceeded when trying to connect'];

/** SQLite's result codes (better-sqlite3 names them, extended codes included: SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT). */
const sqliteUnavailable = (code: string) => code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_BUSY');

/** Whether `error`, raised by the database's driver, is the database being away; what it wraps (`cause`, an AggregateError's errors) counts as the driver's too. */
function unavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3 || (depth === 0 && !fromDatabase(error))) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_')) return sqliteUnavailable(code);
    if (SYSTEM_CODES.has(code) || POSTGRES_CODES.has(code) || (code.length === 5 && POSTGRES_CLASSES.includes(code.slice(0, 2)))) return true;
  }
  if (POSTGRES_MESSAGES.some((message) => error.message.startsWith(message))) return true;
  // Node's connection attempts to several addresses fail as one AggregateError; pg-pool wraps a connect timeout.
  const inner = [...(error instanceof AggregateError ? error.errors : []), error.cause];
  return inner.some((cause) => unavailable(cause, depth + 1));
}

/** How long a client should wait: a lock is a moment, a restart or freed space takes seconds. */
const retryAfter = (error: unknown) => ((error as { code?: unknown }).code === 'SQLITE_BUSY' ? '1' : '5');

/** Where a refusal is told: a request's logger. */
interface Log {
  warn(fields: object, message: string): void;
}

/**
 * The 503 answering `error`, when it is the database being away (told to `log` at warn, with the
 * driver's code: a passing state, not a fault to investigate); undefined for any other error.
 */
export function databaseUnavailable(error: unknown, log?: Log): Problem | undefined {
  if (!unavailable(error)) return undefined;
  log?.warn({ code: (error as { code?: unknown }).code, message: (error as Error).message }, 'database unavailable');
  return new Problem('databaseUnavailable', {
    detail:
      "Kassa's database did not take this request (restarting, unreachable or out of space). Send it again after Retry-After seconds, with the same Idempotency-Reference: a request that was carried out after all then replays its answer.",
    headers: { 'Retry-After': retryAfter(error) },
  });
}
