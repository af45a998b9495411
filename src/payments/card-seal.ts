/**
 * Card data that must survive a 3-D Secure step (challenge pop-up, 3DS1 redirect) is not
 * stored by Kassa: it is sealed (AES-256-GCM) and travels with the customer's browser,
 * in the page's completion form or the 3DS1 MD field, until the authorisation. The seal
 * is bound to one payment and one authentication session and expires with the session,
 * so it is useless anywhere else. The key is CARD_SEAL_KEY (every Kassa instance of a
 * deployment needs the same one), or when unset a random key per start, which the primary
 * hands to all its HTTP processes (main.ts).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CardData } from '../acquirer/connector.ts';
import { cardBrands, type CardBrand } from '../merchants/merchants.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class CardSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the card seal key must be 32 bytes');
  }

  seal(card: CardData, binding: string, expiresAt: number): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(binding));
    const body = Buffer.concat([cipher.update(JSON.stringify({ card, expiresAt })), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The card, or undefined when the seal is forged, for another binding, or expired. */
  unseal(sealed: string, binding: string, now: number): CardData | undefined {
    try {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(binding));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      const { card, expiresAt } = JSON.parse(plain.toString('utf8')) as { card: CardData; expiresAt: number };
      if (expiresAt < now || !cardBrands.includes(card.brand as CardBrand)) return undefined;
      return card;
    } catch {
      return undefined;
    }
  }
}
