/** Merchant and API-key queries. Keys are stored only as SHA-256 hashes. */
import type { Db } from './store.ts';
import type { Mode } from './schema.ts';

export async function insertMerchant(db: Db, merchant: { id: string; name: string; settings: string; created: number }) {
  await db.insertInto('merchants').values(merchant).execute();
}

export async function insertApiKey(db: Db, key: { keyHash: string; merchantId: string; mode: Mode; keyPrefix: string; created: number }) {
  await db
    .insertInto('api_keys')
    .values({ key_hash: key.keyHash, merchant_id: key.merchantId, mode: key.mode, key_prefix: key.keyPrefix, created: key.created, revoked_at: null })
    .execute();
}

export async function revokeApiKeys(db: Db, merchantId: string, mode: Mode, at: number): Promise<number> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The active key with this hash, with its merchant. */
export async function findApiKey(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .select(['api_keys.key_hash', 'api_keys.merchant_id', 'api_keys.mode', 'api_keys.key_prefix', 'merchants.settings', 'merchants.name'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function updateMerchantSettings(db: Db, id: string, settings: string): Promise<void> {
  await db.updateTable('merchants').set({ settings }).where('id', '=', id).execute();
}

export async function findMerchant(db: Db, id: string) {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Merchants (every one, or the one of `merchantId`) with a row per active key. */
export async function listMerchants(db: Db, merchantId?: string) {
  let query = db
    .selectFrom('merchants')
    .leftJoin('api_keys', (join) => join.onRef('api_keys.merchant_id', '=', 'merchants.id').on('api_keys.revoked_at', 'is', null))
    .select(['merchants.id', 'merchants.name', 'merchants.created', 'merchants.settings', 'api_keys.mode', 'api_keys.key_prefix']);
  if (merchantId !== undefined) query = query.where('merchants.id', '=', merchantId);
  return query.orderBy('merchants.created').orderBy('merchants.id').execute();
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
