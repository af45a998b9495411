/** Idempotency record queries (001_foundation), nothing else: one record per merchant, mode, route and Idempotency-Reference. */
import type { Db } from './store.ts';
import type { Mode } from './schema.ts';
import { prepare } from './prepared.ts';

/** A record's key, its primary key. */
export interface IdempotencyKey {
  merchantId: string;
  mode: Mode;
  route: string;
  idempotencyReference: string;
}

const selectRecord = prepare((db, key: IdempotencyKey) =>
  db
    .selectFrom('idempotency_records')
    .select(['fingerprint', 'status_code', 'response_body', 'transaction_reference'])
    .where('merchant_id', '=', key.merchantId)
    .where('mode', '=', key.mode)
    .where('route', '=', key.route)
    .where('idempotency_reference', '=', key.idempotencyReference),
);

export async function findIdempotencyRecord(db: Db, key: IdempotencyKey) {
  return (await selectRecord(db, key)).rows[0];
}

/** Fails with a unique violation (`isUniqueViolation`) when the key has a record already. */
export const insertIdempotencyRecord = prepare(
  (db, r: IdempotencyKey & { fingerprint: string; status: number; body: string; transactionReference: string | null; created: number }) =>
    db.insertInto('idempotency_records').values({
      merchant_id: r.merchantId,
      mode: r.mode,
      route: r.route,
      idempotency_reference: r.idempotencyReference,
      fingerprint: r.fingerprint,
      status_code: r.status,
      response_body: r.body,
      created: r.created,
      transaction_reference: r.transactionReference,
    }),
  { deferrable: true },
);

/**
 * The record of a request in flight (`status` null), sent at once, never held back to the end of
 * the unit like the record of a finished request: a duplicate must fail (on PostgreSQL, wait for
 * the first request's unit, then fail) before the unit goes on to reserve anything.
 */
export async function holdIdempotencyRecord(db: Db, r: IdempotencyKey & { fingerprint: string; created: number }): Promise<void> {
  await db
    .insertInto('idempotency_records')
    .values({
      merchant_id: r.merchantId,
      mode: r.mode,
      route: r.route,
      idempotency_reference: r.idempotencyReference,
      fingerprint: r.fingerprint,
      status_code: null,
      response_body: null,
      created: r.created,
    })
    .execute();
}

/** The transaction a record held in flight is for, whose row answers a retry if its request never finishes. */
export async function nameIdempotencyRecord(db: Db, key: IdempotencyKey, transactionReference: string): Promise<void> {
  await db
    .updateTable('idempotency_records')
    .set({ transaction_reference: transactionReference })
    .where('merchant_id', '=', key.merchantId)
    .where('mode', '=', key.mode)
    .where('route', '=', key.route)
    .where('idempotency_reference', '=', key.idempotencyReference)
    .execute();
}

/** Records the outcome of a request whose record was held in flight: its sealed answer replaces the transaction it named. */
export async function completeIdempotencyRecord(db: Db, key: IdempotencyKey, outcome: { status: number; body: string }): Promise<void> {
  await db
    .updateTable('idempotency_records')
    .set({ status_code: outcome.status, response_body: outcome.body, transaction_reference: null })
    .where('merchant_id', '=', key.merchantId)
    .where('mode', '=', key.mode)
    .where('route', '=', key.route)
    .where('idempotency_reference', '=', key.idempotencyReference)
    .execute();
}

/** Forgets a record held in flight whose request ended in an outcome that is not kept (docs/decisions.md#decisions-where-the-api-contract-is-silent: 5xx, 409, …). */
export async function deleteIdempotencyRecord(db: Db, key: IdempotencyKey): Promise<void> {
  await db
    .deleteFrom('idempotency_records')
    .where('merchant_id', '=', key.merchantId)
    .where('mode', '=', key.mode)
    .where('route', '=', key.route)
    .where('idempotency_reference', '=', key.idempotencyReference)
    .execute();
}

/** A primary key or unique constraint refused a row: SQLSTATE 23505 on PostgreSQL, the extended result codes on SQLite. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Deletes up to `limit` records created before `before`, oldest first; returns how many (see
 * housekeeping.ts). A record still in flight whose transaction is unfinished — its acquirer claim
 * open, or it pending or held for an operator — is kept: forgotten, a retry with its
 * Idempotency-Reference would run the operation a second time.
 */
export async function deleteExpiredRecords(db: Db, before: number, limit: number): Promise<number> {
  const oldest = db
    .selectFrom('idempotency_records')
    .select(['merchant_id', 'mode', 'route', 'idempotency_reference'])
    .where('created', '<', before)
    .where(({ or, and, eb, not, exists, selectFrom }) =>
      or([
        eb('status_code', 'is not', null),
        eb('transaction_reference', 'is', null),
        and([
          not(exists(selectFrom('acquirer_claims').select('reference').whereRef('acquirer_claims.reference', '=', 'idempotency_records.transaction_reference'))),
          not(
            exists(
              selectFrom('transactions')
                .select('reference')
                .whereRef('transactions.reference', '=', 'idempotency_records.transaction_reference')
                .where('transactions.status', 'in', ['pending', 'manualintervention']),
            ),
          ),
        ]),
      ]),
    )
    .orderBy('created')
    .limit(limit);
  const result = await db
    .deleteFrom('idempotency_records')
    .where((eb) =>
      eb(eb.refTuple('merchant_id', 'mode', 'route', 'idempotency_reference'), 'in', oldest.$asTuple('merchant_id', 'mode', 'route', 'idempotency_reference')),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
