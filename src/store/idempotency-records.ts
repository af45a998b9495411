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
    .select(['fingerprint', 'status_code', 'response_body'])
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
  (db, r: IdempotencyKey & { fingerprint: string; status: number; body: string; created: number }) =>
    db.insertInto('idempotency_records').values({
      merchant_id: r.merchantId,
      mode: r.mode,
      route: r.route,
      idempotency_reference: r.idempotencyReference,
      fingerprint: r.fingerprint,
      status_code: r.status,
      response_body: r.body,
      created: r.created,
    }),
  { deferrable: true },
);

/** A primary key or unique constraint refused a row: SQLSTATE 23505 on PostgreSQL, the extended result codes on SQLite. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Deletes up to `limit` records created before `before`, oldest first; returns how many (see housekeeping.ts). */
export async function deleteExpiredRecords(db: Db, before: number, limit: number): Promise<number> {
  const oldest = db
    .selectFrom('idempotency_records')
    .select(['merchant_id', 'mode', 'route', 'idempotency_reference'])
    .where('created', '<', before)
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
