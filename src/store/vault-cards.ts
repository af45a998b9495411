/** Vault card queries (005_vault), nothing else. A card is found only with its owner's merchant and mode. */
import type { Db } from './store.ts';
import type { Mode, NewVaultCard, VaultCardRow } from './schema.ts';

export async function insertVaultCard(db: Db, card: NewVaultCard): Promise<void> {
  await db.insertInto('vault_cards').values(card).execute();
}

/** The owner's cards only: another merchant's or mode's card is simply not there. */
const ownVaultCards = (db: Db, owner: { merchantId: string; mode: Mode }) =>
  db.selectFrom('vault_cards').selectAll().where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode);

export async function findOwnVaultCardByTokenHash(db: Db, owner: { merchantId: string; mode: Mode }, accessTokenHash: string): Promise<VaultCardRow | undefined> {
  return ownVaultCards(db, owner).where('access_token_hash', '=', accessTokenHash).executeTakeFirst();
}

export async function findOwnVaultCard(db: Db, owner: { merchantId: string; mode: Mode }, id: string): Promise<VaultCardRow | undefined> {
  return ownVaultCards(db, owner).where('id', '=', id).executeTakeFirst();
}

/**
 * Keeps the card's network transaction reference from its first customer-present authorisation
 * that answered one (docs/vault.md "Paying off-session"): a compare-and-set from none, so a later
 * payment never replaces the reference the cardholder's consent was given with.
 */
export async function keepVaultCardNetworkReference(db: Db, id: string, networkReference: string): Promise<void> {
  await db.updateTable('vault_cards').set({ network_reference: networkReference }).where('id', '=', id).where('network_reference', 'is', null).execute();
}
