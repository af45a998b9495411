/**
 * Idempotency-Reference (docs/decisions.md#decisions-where-the-api-contract-is-silent). Scope: merchant + mode + route. The record is
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
import {
  completeIdempotencyRecord,
  deleteIdempotencyRecord,
  findIdempotencyRecord,
  holdIdempotencyRecord,
  insertIdempotencyRecord,
  nameIdempotencyRecord,
  isUniqueViolation,
  type IdempotencyKey,
} from '../../store/idempotency-records.ts';
import { findAcquirerClaim } from '../../store/acquirer-claims.ts';
import { findPaymentPage } from '../../store/payment-pages.ts';
import { sha256Hex } from '../../lib/tokens.ts';
import { bindings } from '../../store/secrets.ts';
import { findOwnPayment } from '../../store/transactions.ts';
import { changingColumnsOf, serializePayment, type ChangingColumns, type PaymentLinks, type SerializableRow } from '../serialize.ts';

/** What the merchant API answers for an operation: recorded with its Idempotency-Reference, and replayed from the record. */
export interface MerchantAnswer {
  status: number;
  body: unknown;
  /** The body already serialized (stored outcomes): sent as is instead of serializing again. */
  json?: string;
  replayed?: boolean;
  /** The answer is this new transaction's payment object: recorded by its reference, not copied (Operation `created`). */
  created?: SerializableRow;
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

/**
 * The answer of an operation left unfinished (a capture with no answer from the acquirer: its
 * claim stays for the recovery job, docs/acquirers.md "Claims and leases"). A record held for
 * it stays in flight, naming the operation's transaction, so a retry never runs it a second time:
 * it gets 409 while the claim's lease runs, then the transaction as it is (`replayInFlight`).
 */
export class UnfinishedProblem extends Problem {}

export async function runIdempotent(
  store: Store,
  links: PaymentLinks,
  request: { scope: Scope; idempotencyReference: string | undefined; body: unknown },
  operation: (db: Db) => Promise<MerchantAnswer>,
): Promise<MerchantAnswer> {
  const record = IdempotencyRecord.of(request.scope, request.idempotencyReference, request.body, links);
  if (!record) return store.transact(operation);
  try {
    // The unique key decides: a duplicate's record insert fails, its unit rolls back whole (payment
    // included), and it replays the record once committed. No look-up first: that would cost
    // every request a query (a round trip on PostgreSQL) to save work only on retries.
    return await store.transact(async (db) => record.record(db, await operation(db)));
  } catch (error) {
    return record.recover(store, error);
  }
}

/**
 * One request's record. Written with the operation's own writes (`record`); or, for an
 * operation that reserves before acting (a refund's amount), held in flight from the
 * reservation's unit on (`hold`), so that a second request with the reference meanwhile gets
 * 409 instead of reserving again, and completed in the committing unit.
 */
export class IdempotencyRecord {
  private held = false;

  private constructor(
    private readonly key: IdempotencyKey,
    private readonly fingerprint: string,
    /** A recorded answer carries the payment's addresses: it is kept sealed (store/secrets.ts), or built again with the links. */
    private readonly links: PaymentLinks,
  ) {}

  /** The request's record, or undefined without an Idempotency-Reference. */
  static of(scope: Scope, idempotencyReference: string | undefined, body: unknown, links: PaymentLinks): IdempotencyRecord | undefined {
    if (idempotencyReference === undefined) return undefined;
    if (idempotencyReference.length === 0 || idempotencyReference.length > MAX_REFERENCE_LENGTH) {
      throw new Problem('invalidIdempotencyReference', `The Idempotency-Reference header must be 1 to ${MAX_REFERENCE_LENGTH} characters.`);
    }
    // Keys sorted at every level (RFC 8785's order; JSON numbers and strings as JSON.stringify writes them, as RFC 8785 does).
    return new IdempotencyRecord({ ...scope, idempotencyReference }, sha256Hex(sortedJson(body ?? null) ?? ''), links);
  }

  /**
   * Runs the reservation's unit of work with the record in it, in flight. A duplicate fails here
   * on the unique key. The record names the transaction the reservation is for (`names`), whose
   * row answers a retry if the request never finishes (`replayInFlight`).
   */
  async hold<T>(store: Store, reserve: (db: Db) => Promise<T>, names: (reserved: T) => string | undefined): Promise<T> {
    const reserved = await store.transact(async (db) => {
      await holdIdempotencyRecord(db, { ...this.key, fingerprint: this.fingerprint, created: Date.now() });
      const done = await reserve(db);
      const transactionReference = names(done);
      if (transactionReference !== undefined) await nameIdempotencyRecord(db, this.key, transactionReference);
      return done;
    });
    this.held = true;
    return reserved;
  }

  /**
   * In the committing unit of work: the outcome, replayed to every later request with the reference.
   * A create's answer is not copied: the record names the new transaction and keeps what of its row
   * may change later, as it is now, so a replay builds the same answer from the row (`replayStored`).
   */
  async record(db: Db, outcome: MerchantAnswer): Promise<MerchantAnswer> {
    const json = JSON.stringify(outcome.body);
    const { created } = outcome;
    if (created && !this.held) {
      const body = JSON.stringify(changingColumnsOf(created));
      await insertIdempotencyRecord(db, {
        ...this.key,
        fingerprint: this.fingerprint,
        status: outcome.status,
        body,
        transactionReference: created.reference,
        created: Date.now(),
      });
      return { ...outcome, json };
    }
    const body = this.links.secrets.seal(json, bindings.idempotencyAnswer(this.key));
    if (this.held) await completeIdempotencyRecord(db, this.key, { status: outcome.status, body });
    else await insertIdempotencyRecord(db, { ...this.key, fingerprint: this.fingerprint, status: outcome.status, body, transactionReference: null, created: Date.now() });
    return { ...outcome, json };
  }

  /** After the request failed: the answer recorded for the reference, or the error again (a Problem kept for later requests). */
  async recover(store: Store, error: unknown): Promise<MerchantAnswer> {
    if (isUniqueViolation(error)) return this.replayStored(store, error);
    const problem = error instanceof Problem && !(error instanceof RecordProblem) ? error : undefined;
    const kept = problem !== undefined && isStored(problem.status);
    if (this.held) {
      // Left unfinished: the record stays in flight for the retries (`replayInFlight`).
      if (error instanceof UnfinishedProblem) throw error;
      // This request holds the reference: nobody else can have recorded it.
      await store.transact(async (db) => {
        if (problem && kept) await this.record(db, { status: problem.status, body: problem.toBody(this.links.publicUrl) });
        else await deleteIdempotencyRecord(db, this.key);
      });
      throw error;
    }
    if (problem && kept) {
      try {
        await store.transact((db) => this.record(db, { status: problem.status, body: problem.toBody(this.links.publicUrl) }));
      } catch (insertError) {
        // Another request with this reference was recorded first: its outcome is the answer.
        if (isUniqueViolation(insertError)) return this.replayStored(store, error);
      }
    } else if (problem) {
      // A retry of a request already answered can clash with the state that answer left (a
      // completion finds the payment completed): it gets the recorded answer, if there is one.
      return this.replayStored(store, error);
    }
    throw error;
  }

  private async replayStored(store: Store, otherwise: unknown): Promise<MerchantAnswer> {
    const existing = await findIdempotencyRecord(store.read, this.key);
    if (!existing) throw otherwise;
    if (existing.fingerprint !== this.fingerprint) throw reused();
    if (existing.status_code === null) return this.replayInFlight(store, existing.transaction_reference);
    const status = existing.status_code;
    const storedBody = existing.response_body!;
    if (existing.transaction_reference === null) {
      return { status, body: undefined, json: this.links.secrets.open(storedBody, bindings.idempotencyAnswer(this.key)), replayed: true };
    }
    // Transactions are never deleted while their records are kept.
    const row = await findOwnPayment(store.read, this.key, existing.transaction_reference);
    if (!row) throw otherwise;
    const asCreated = { ...row, ...(JSON.parse(storedBody) as ChangingColumns) };
    return { status, body: undefined, json: JSON.stringify(serializePayment(asCreated, this.links)), replayed: true };
  }

  /**
   * A request held in flight and not answered: 409 while its acquirer claim's lease, or its
   * payment's processing lease (an off-session payment's authorisation, pay-off-session.ts), runs (its
   * request may still answer; never a second ask); after it, or once the claim ended, the
   * transaction the record names as it is now — final, or still pending for the recovery job or
   * the acquirer's notification — instead of 409 for ever.
   */
  private async replayInFlight(store: Store, reference: string | null): Promise<MerchantAnswer> {
    const row = reference === null || (await stillAnswering(store, reference)) ? undefined : await findOwnPayment(store.read, this.key, reference);
    if (!row)
      throw new RecordProblem('requestInProgress', { detail: 'A request with this Idempotency-Reference is still being processed.', headers: { 'Retry-After': '1' } });
    return { status: 200, body: undefined, json: JSON.stringify(serializePayment(row, this.links)), replayed: true };
  }
}

/** Whether the request that holds the transaction may still answer: its acquirer claim's lease, or its payment's processing lease, runs. */
async function stillAnswering(store: Store, reference: string): Promise<boolean> {
  const now = Date.now();
  const claim = await findAcquirerClaim(store.read, reference);
  if (claim) return claim.due_at > now;
  const page = await findPaymentPage(store.read, reference);
  return page?.processing_until != null && page.processing_until > now;
}

/** 401, 409, 429 and 5xx are not kept: a retry with the same reference runs again. */
const isStored = (status: number) => status < 500 && ![401, 409, 429].includes(status);

const reused = () => new RecordProblem('idempotencyReferenceReused', 'This Idempotency-Reference was already used with a different request body.');
