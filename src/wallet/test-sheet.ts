/**
 * Test-mode wallet tokens for a payment: what the wallet sheet would hand over, as a real
 * EC_v1 token signed and encrypted by Kassa's test PKI. The hosted page's test sheet pays
 * with one, and `kassa wallet test-token` prints one for trying the direct and hybrid
 * flows from a merchant backend.
 */
import { randomBytes } from 'node:crypto';
import type { CardBrand } from '../ground/card-brand.ts';
import type { Currency } from '../ground/amount.ts';
import { mintTestWalletToken, type WalletPaymentToken } from './index.ts';

/** One device card per brand, with the wallet's network name for it. */
const TEST_WALLET_CARDS: Record<CardBrand, { pan: string; network: string }> = {
  visa: { pan: '4111111111111111', network: 'Visa' },
  mastercard: { pan: '5555555555554444', network: 'MasterCard' },
  amex: { pan: '378282246310005', network: 'AmEx' },
  maestro: { pan: '6759649826438453', network: 'Maestro' },
  bcmc: { pan: '6703444444444449', network: 'Bancontact' },
};

export function testWalletToken(payment: { brand: CardBrand; amountMinor: number; currency: Currency }, now = new Date()): Promise<WalletPaymentToken> {
  const card = TEST_WALLET_CARDS[payment.brand];
  return mintTestWalletToken(
    {
      pan: card.pan,
      expiry: `${String((now.getUTCFullYear() + 3) % 100).padStart(2, '0')}1231`,
      amountMinor: payment.amountMinor,
      currencyNumeric: payment.currency.numeric,
      cryptogram: randomBytes(20).toString('base64'),
      eci: '05',
      network: card.network,
      displayName: `${card.network} ${card.pan.slice(-4)}`,
      type: 'debit',
    },
    now,
  );
}
