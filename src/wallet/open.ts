/**
 * Opening a wallet token: structure, then authenticity (signature, chain, freshness),
 * then decryption. Nothing is decrypted before the token is known to come from the wallet.
 */
import { decryptWalletPayment } from './decrypt.ts';
import { parseWalletToken, WalletTokenError, type DecryptedWalletPayment, type WalletPaymentToken, type WalletProcessingKey, type WalletTrust } from './token.ts';
import { verifyWalletSignature } from './verify.ts';

/** Throws WalletTokenError; a token that fails the structural check is reported as a signature failure (its signed bytes cannot be rebuilt). */
export async function openWalletToken(token: WalletPaymentToken, options: { trust: WalletTrust; keys: WalletProcessingKey[] }): Promise<DecryptedWalletPayment> {
  const { errors } = parseWalletToken(token, '');
  if (errors.length > 0) {
    throw new WalletTokenError('signature', `the token is malformed: ${errors.map((error) => `${error.field} ${error.message}`).join('; ')}`);
  }
  const signedAt = await verifyWalletSignature(token, options.trust);
  return { ...decryptWalletPayment(token, options.keys), signedAt };
}
