/**
 * Card data that must survive a 3-D Secure step (challenge pop-up, 3DS1 redirect) is not
 * stored by Kassa: it is sealed (AES-256-GCM) and travels with the customer's browser,
 * in the page's completion form or the 3DS1 MD field, until the authorisation. The seal
 * is bound to one payment and one authentication session and expires with the session,
 * so it is useless anywhere else. The key is CARD_SEAL_KEY (every Kassa instance of a
 * deployment needs the same one), or when unset a random key per start, which the primary
 * hands to all its HTTP processes (main.ts).
 */
import type { CardData } from '../../acquirer/connector.ts';
import { cardBrands, type CardBrand } from '../../ground/card-brand.ts';
import { decryptBound, encryptBound } from '../../lib/aead.ts';

export class CardSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the card seal key must be 32 bytes');
  }

  seal(card: CardData, binding: string, expiresAt: number): string {
    return encryptBound(this.key, JSON.stringify({ card, expiresAt }), binding);
  }

  /** The card, or undefined when the seal is forged, for another binding, or expired. */
  unseal(sealed: string, binding: string, now: number): CardData | undefined {
    try {
      const { card, expiresAt } = JSON.parse(decryptBound(this.key, sealed, binding)) as { card: CardData; expiresAt: number };
      if (expiresAt < now || !cardBrands.includes(card.brand as CardBrand)) return undefined;
      return card;
    } catch {
      return undefined;
    }
  }
}

/** The card sealed across a 3-D Secure step is bound to the payment and the step's session. */
export const sealBinding = (reference: string, sessionId: string) => `${reference}|${sessionId}`;
