/**
 * Accepting a wallet token for a payment: verified and decrypted with the keys of the
 * payment's mode (test: Kassa's test PKI; live: the vendor's pinned root and the
 * configured processing keys), then checked against the payment it is to pay: the
 * amount and currency the customer approved in the wallet sheet must be the payment's,
 * and the card's brand one the merchant accepts. Every refusal is a 422 naming the field.
 */
import { Problem } from '../ground/problem.ts';
import type { Mode } from '../store/schema.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import { detectBrands } from '../ground/card-brand.ts';
import { findCurrency } from '../ground/amount.ts';
import type { WalletSettings } from './settings.ts';
import { openWalletToken, testWalletPki, walletVendorRootPem, WalletTokenError, type DecryptedWalletPayment, type WalletPaymentToken } from './index.ts';

export interface AcceptedWalletPayment extends DecryptedWalletPayment {
  brand: CardBrand;
  /** The token's header.transactionId: one use per token. */
  transactionId: string;
  /** The token as received: kept (still encrypted) until its payment is final, to resume it after a crash. */
  token: WalletPaymentToken;
}

export interface PaymentToPay {
  mode: Mode;
  amountMinor: number;
  /** ISO 4217 alphabetic, lower case. */
  currency: string;
  acceptedBrands: readonly CardBrand[];
}

/** The wallet's network names (paymentMethod.network) for the brands Kassa knows. */
const NETWORK_BRANDS: Record<string, CardBrand> = { visa: 'visa', mastercard: 'mastercard', amex: 'amex', maestro: 'maestro', bancontact: 'bcmc' };

const MESSAGES: Record<WalletTokenError['failure'], string> = {
  signature: "the token's signature does not verify",
  certificate: "the token is not signed by the wallet's certificates",
  stale: 'the token was signed too long ago (or in the future); ask the customer to pay again',
  unknown_key: 'the token is encrypted to a payment processing key this Kassa does not hold',
  decryption: 'the token cannot be decrypted',
};

export async function verifyWalletToken(
  token: WalletPaymentToken,
  payment: PaymentToPay,
  settings: WalletSettings,
  field: string,
  now: () => number = Date.now,
): Promise<AcceptedWalletPayment> {
  const live = payment.mode === 'live';
  if (live && settings.liveProcessingKeys.length === 0) {
    throw new Problem('walletNotConfigured', 'Live wallet tokens need the payment processing keys (WALLET_PROCESSING_KEYS); this Kassa has none.');
  }
  let opened: DecryptedWalletPayment;
  try {
    opened = await openWalletToken(token, {
      trust: { rootsPem: [live ? walletVendorRootPem : testWalletPki.rootPem], now, maxAgeMs: settings.tokenMaxAgeMs },
      keys: live ? settings.liveProcessingKeys : [testWalletPki.processingKey],
    });
  } catch (error) {
    if (!(error instanceof WalletTokenError)) throw error;
    throw new Problem('validationFailed', { errors: [{ field, code: `token_${error.failure}`, message: MESSAGES[error.failure] }] });
  }
  const errors = [];
  const currency = findCurrency(payment.currency)!;
  if (opened.currencyNumeric !== currency.numeric) {
    errors.push({
      field,
      code: 'currency_mismatch',
      message: `the token is for currency ${opened.currencyNumeric}, the payment is in ${currency.code.toUpperCase()} (${currency.numeric})`,
    });
  } else if (opened.amountMinor !== payment.amountMinor) {
    errors.push({ field, code: 'amount_mismatch', message: 'the amount the customer approved in the wallet is not the payment amount' });
  }
  // paymentMethod is outside the signature: the (signed, encrypted) card number decides; the network only picks among co-badged brands.
  const named = NETWORK_BRANDS[token.paymentMethod?.network?.toLowerCase() ?? ''];
  const detected = detectBrands(opened.pan);
  const brand = named && detected.includes(named) ? named : detected[0];
  if (!brand || !payment.acceptedBrands.includes(brand)) {
    errors.push({ field, code: 'brand_not_accepted', message: `the token's card is ${brand ? `a ${brand} card, a brand` : 'of a brand'} this merchant does not accept` });
  }
  if (errors.length > 0) throw new Problem('validationFailed', { errors });
  return { ...opened, brand: brand!, transactionId: token.paymentData.header.transactionId, token };
}
