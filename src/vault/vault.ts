/**
 * The vault (docs/decisions.md#vault): stores a card after a successful enrollment or a
 * `storeInVault` payment, finds a card by its `vaultAccessToken` for its own merchant and
 * mode only, and opens it (decrypts the number, in memory) for one authorisation. What
 * the merchant sees of a card is its brand, masked number and cardholder name.
 */
import type { Store, Db } from '../store/store.ts';
import type { Mode, NewVaultCard, VaultCardRow } from '../store/schema.ts';
import type { CardData } from '../acquirer/connector.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import { findOwnVaultCard, findOwnVaultCardByTokenHash, insertVaultCard, keepVaultCardNetworkReference } from '../store/vault-cards.ts';
import { newVaultAccessToken, newVaultCardId, sha256Hex } from '../lib/tokens.ts';
import { Problem } from '../ground/problem.ts';
import type { VaultKeyring } from './cipher.ts';

export interface Owner {
  merchantId: string;
  mode: Mode;
}

/** The card as the payment object shows it (docs/api.md#the-details-object: `maskedPan`, `cardholderFirstName`, `cardholderLastName`). */
export type CardView = {
  maskedPan: string;
  cardholderFirstName?: string;
  cardholderLastName?: string;
};

/** A card ready to be stored: encrypted and with its new token, so the unit of work only inserts it. */
export interface PreparedCard {
  row: NewVaultCard;
  accessToken: string;
}

/** PCI DSS allows showing the first six and last four digits. */
export const maskPan = (pan: string) => `${pan.slice(0, 6)}${'*'.repeat(Math.max(pan.length - 10, 0))}${pan.slice(-4)}`;

/** The name on the card as first and last name: the last word is the last name. */
export function splitHolderName(holderName: string): { first?: string; last?: string } {
  const words = holderName.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return {};
  const last = words.pop()!;
  return words.length ? { first: words.join(' '), last } : { last };
}

export function cardView(row: Pick<VaultCardRow, 'masked_pan' | 'cardholder_first_name' | 'cardholder_last_name'>): CardView {
  return {
    maskedPan: row.masked_pan,
    ...(row.cardholder_first_name ? { cardholderFirstName: row.cardholder_first_name } : {}),
    ...(row.cardholder_last_name ? { cardholderLastName: row.cardholder_last_name } : {}),
  };
}

/** What the storing transaction's `details` show of a new card: its token and how it looks. */
export const shownOfStoredCard = (prepared: PreparedCard): CardView & { vaultAccessToken: string } => ({
  vaultAccessToken: prepared.accessToken,
  ...cardView({
    masked_pan: prepared.row.masked_pan,
    cardholder_first_name: prepared.row.cardholder_first_name ?? null,
    cardholder_last_name: prepared.row.cardholder_last_name ?? null,
  }),
});

/**
 * The merchant's shopper as the acquirer is told it for a stored card (docs/vault.md "Paying
 * off-session"): one per merchant and card, stable from the payment that stored the card on (its
 * reference is the card's `enrollment_reference`), and neither card data nor anything about the
 * person: a hash of the merchant and that reference.
 */
export const shopperReferenceOf = (merchantId: string, enrollmentReference: string) => `kassa-${sha256Hex(`${merchantId}|${enrollmentReference}`).slice(0, 32)}`;

/** The encryption's associated data: a ciphertext opens only in the row it was made for. */
const bindingOf = (row: Pick<VaultCardRow, 'id' | 'merchant_id' | 'mode'>) => `${row.id}|${row.merchant_id}|${row.mode}`;

export class Vault {
  constructor(
    private readonly store: Store,
    private readonly keyring: VaultKeyring | undefined,
  ) {}

  /** False with DATABASE_URL and no VAULT_KEY: then every vault operation is refused with a 503. */
  get available(): boolean {
    return this.keyring !== undefined;
  }

  /** Throws the 503 problem when no vault key is configured. */
  keys(): VaultKeyring {
    if (!this.keyring) {
      throw new Problem('vaultUnavailable', 'No vault key is configured: with DATABASE_URL, set VAULT_KEY and VAULT_KEY_ID to store and use cards.');
    }
    return this.keyring;
  }

  /** Encrypts `card` for storage (never its CVC) under a new access token. No I/O. */
  prepare(card: CardData, owner: Owner, enrollmentReference: string, now: number): PreparedCard {
    const accessToken = newVaultAccessToken();
    const name = splitHolderName(card.holderName);
    const identity = { id: newVaultCardId(), merchant_id: owner.merchantId, mode: owner.mode };
    const { keyId, ciphertext } = this.keys().encrypt(card.pan, bindingOf(identity));
    return {
      accessToken,
      row: {
        ...identity,
        access_token_hash: sha256Hex(accessToken),
        brand: card.brand,
        masked_pan: maskPan(card.pan),
        cardholder_first_name: name.first ?? null,
        cardholder_last_name: name.last ?? null,
        expiry_month: card.expiryMonth,
        expiry_year: card.expiryYear,
        pan_ciphertext: ciphertext,
        key_id: keyId,
        enrollment_reference: enrollmentReference,
        created: now,
      },
    };
  }

  /** Stores a prepared card, in the caller's unit of work (the one that records the success). */
  async insert(db: Db, prepared: PreparedCard): Promise<void> {
    await insertVaultCard(db, prepared.row);
  }

  /** Keeps a stored card's network reference from its first customer-present authorisation that answered one, in the caller's unit of work. */
  async keepNetworkReference(db: Db, id: string, networkReference: string): Promise<void> {
    await keepVaultCardNetworkReference(db, id, networkReference);
  }

  /** The owner's card with this token; another merchant's or mode's is simply not there. */
  async find(db: Db, owner: Owner, accessToken: string): Promise<VaultCardRow | undefined> {
    this.keys();
    return findOwnVaultCardByTokenHash(db, owner, sha256Hex(accessToken));
  }

  /** The card for one authorisation, its number decrypted in memory; `cvc` when the customer typed it. */
  async open(owner: Owner, id: string, cvc?: string): Promise<CardData | undefined> {
    const keys = this.keys();
    const row = await findOwnVaultCard(this.store.read, owner, id);
    if (!row) return undefined;
    const holderName = [row.cardholder_first_name, row.cardholder_last_name].filter(Boolean).join(' ');
    return {
      pan: keys.decrypt(row.key_id, row.pan_ciphertext, bindingOf(row)),
      expiryMonth: row.expiry_month,
      expiryYear: row.expiry_year,
      ...(cvc ? { cvc } : {}),
      holderName,
      brand: row.brand as CardBrand,
      stored: {
        shopperReference: shopperReferenceOf(row.merchant_id, row.enrollment_reference),
        ...(row.network_reference ? { networkReference: row.network_reference } : {}),
      },
    };
  }
}
