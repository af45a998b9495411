/** Vault card queries (005_vault), nothing else. A card is found only with its owner's merchant and mode. */
import type { Db } from './store.ts';
import type { Mode, NewVaultCard, VaultCardRow } from './schema.ts';

export async function insertVaultCard(db: Db, card: NewVaultCard): Promise<void> {
  await db.insertInto('vault_cards').values(card).execute();
}

export async function findOwnVaultCardByTokenHash(db: Db, owner: { merchantId: string; mode: Mode }, accessTokenHash: string): Promise<VaultCardRow | undefined> {
  return db
    .selectFrom('vault_cards')
    .selectAll()
    .where('access_token_hash', '=', accessTokenHash)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

export async function findOwnVaultCard(db: Db, owner: { merchantId: string; mode: Mode }, id: string): Promise<VaultCardRow | undefined> {
  return db.selectFrom('vault_cards').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).executeTakeFirst();
}
