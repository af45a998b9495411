/**
 * Idempotency-Reference (DESIGN §3). Scope: merchant + mode + route. The record is
 * written in the same unit of work as the operation, so a payment and its record
 * commit together or not at all. A duplicate, concurrent or not, fails on the record's
 * unique key (on PostgreSQL its insert first waits for the first one's commit; on
 * SQLite units run one after another) and replays the committed record. Its unit's
 * failure reaches it only after the commit, so the record is there to read.
 */
import { stringify as sortedJson } from 'safe-stable-stringify';
import { Problem } from '../../ground/problem.ts';
import type { Db, Store } from '../../store/store.ts';
import type { Mode } from '../../store/schema.ts';
import { findIdempotencyRecord, insertIdempotencyRecord, isUniqueViolation, type IdempotencyKey } from '../../store/idempotency-records.ts';
import { sha256Hex } from '../../lib/tokens.ts';

export interface Outcome {
  status: number;
  body: unknown;
  /** The body already serialized (stored outcomes): sent as is instead of serializing again. */
  json?: string;
  replayed?: boolean;
}

export interface Scope {
  merchantId: string;
  mode: Mode;
  route: string;
}

export const RETENTION_MS = 24 * 3600_000;
const MAX_REFERENCE_LENGTH = 255;

/** Problems about the idempotency record itself: never stored as the outcome. */
class RecordProblem extends Problem {}

export async function runIdempotent(
  store: Store,
  scope: Scope,
  idempotencyReference: string | undefined,
  body: unknown,
  operation: (db: Db) => Promise<Outcome>,
): Promise<Outcome> {
  if (idempotencyReference === undefined) return store.transact(operation);
  if (idempotencyReference.length === 0 || idempotencyReference.length > MAX_REFERENCE_LENGTH) {
    throw new Problem(400, 'Invalid Idempotency-Reference', `The Idempotency-Reference header must be 1 to ${MAX_REFERENCE_LENGTH} characters.`);
  }
  const key = { ...scope, idempotencyReference };
  // Keys sorted at every level (RFC 8785's order; JSON numbers and strings as JSON.stringify writes them, as RFC 8785 does).
  const fingerprint = sha256Hex(sortedJson(body ?? null) ?? '');
  try {
    // The unique key decides: a duplicate's record insert fails, its unit rolls back whole (payment
    // included), and it replays the record once committed. No look-up first: that would cost
    // every request a query (a round trip on PostgreSQL) to save work only on retries.
    return await store.transact(async (db) => insertRecord(db, key, fingerprint, await operation(db)));
  } catch (error) {
    if (isUniqueViolation(error)) return replayStored(store, key, fingerprint, error);
    if (error instanceof Problem && !(error instanceof RecordProblem) && isStored(error.status)) {
      const outcome = { status: error.status, body: error.toBody() };
      try {
        await store.transact((db) => insertRecord(db, key, fingerprint, outcome));
      } catch (insertError) {
        // Another request with this reference was recorded first: its outcome is the answer.
        if (isUniqueViolation(insertError)) return replayStored(store, key, fingerprint, error);
      }
    } else if (error instanceof Problem && !(error instanceof RecordProblem)) {
      // A retry of a request already answered can clash with the state that answer left (a
      // completion finds the payment completed): it gets the recorded answer, if there is one.
      return replayStored(store, key, fingerprint, error);
    }
    throw error;
  }
}

async function replayStored(store: Store, key: IdempotencyKey, fingerprint: string, otherwise: unknown): Promise<Outcome> {
  const existing = await findIdempotencyRecord(store.read, key);
  if (!existing) throw otherwise;
  return replay(existing, fingerprint);
}

/** 401, 409, 429 and 5xx are not kept: a retry with the same reference runs again. */
const isStored = (status: number) => status < 500 && ![401, 409, 429].includes(status);

async function insertRecord(db: Db, key: IdempotencyKey, fingerprint: string, outcome: Outcome): Promise<Outcome> {
  const json = JSON.stringify(outcome.body);
  await insertIdempotencyRecord(db, { ...key, fingerprint, status: outcome.status, body: json, created: Date.now() });
  return { ...outcome, json };
}

function replay(record: { fingerprint: string; status_code: number | null; response_body: string | null }, fingerprint: string): Outcome {
  if (record.fingerprint !== fingerprint) {
    throw new RecordProblem(422, 'Idempotency-Reference reused', 'This Idempotency-Reference was already used with a different request body.');
  }
  if (record.status_code === null) {
    throw new RecordProblem(409, 'Request in progress', 'A request with this Idempotency-Reference is still being processed.', undefined, { 'Retry-After': '1' });
  }
  return { status: record.status_code, body: undefined, json: record.response_body ?? 'null', replayed: true };
}
