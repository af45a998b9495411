/**
 * What wallet payments share around their operations (acceptWalletToken, payWallet):
 * a token's one use, what a token must match, and the wallet's authentication as the
 * acquirer is told it.
 *
 * The decrypted card data lives in memory only; the token itself (still encrypted to the
 * processing key) is kept with its one-use record until the payment is final. A server
 * that stops (SIGTERM) first finishes the payments it accepted; after a crash the
 * background worker resumes them from the kept token (wallet-recovery.ts).
 */
import type { Db } from '../../store/store.ts';
import { findWalletTokenUse, insertWalletTokenUse } from '../../store/wallet-token-uses.ts';
import { Problem } from '../../ground/problem.ts';
import type { Authentication } from '../../threeds/server.ts';
import type { AcceptedWalletPayment, PaymentToPay } from '../../wallet/accept.ts';
import type { PaymentContext } from '../payment-context.ts';

/**
 * Records a payment's one token, in the caller's unit of work. A token is used once and a
 * payment takes one token: both are unique keys, so two processes racing with the same
 * token, or with two tokens for one payment, cannot both win. The same token for the same
 * payment again is a retry, and fine.
 */
export async function recordWalletTokenUse(tx: Db, accepted: AcceptedWalletPayment, reference: string, field: string, now = Date.now()): Promise<void> {
  const { transactionId } = accepted;
  if (await insertWalletTokenUse(tx, { transactionId, reference, token: JSON.stringify(accepted.token), created: now })) return;
  const use = await findWalletTokenUse(tx, transactionId);
  if (use?.reference === reference) return;
  if (use)
    throw new Problem('validationFailed', {
      errors: [{ field, code: 'token_used', message: 'this wallet token has already been used for a payment; ask the customer to pay again' }],
    });
  throw new Problem('conflict', 'A wallet token was already accepted for this payment; read the transaction for its outcome.');
}

/** What a token must match: the stored payment's mode, amount and currency, and its merchant's brands. */
export const toPay = ({ row, merchant }: PaymentContext): PaymentToPay => ({
  mode: row.mode,
  amountMinor: row.amount_minor,
  currency: row.currency,
  acceptedBrands: merchant.settings.cardBrands,
});

/** The wallet's cardholder authentication (device biometrics) as the acquirer is told it: the cryptogram and ECI. */
export function walletAuthentication(wallet: AcceptedWalletPayment): Authentication | undefined {
  if (!wallet.cryptogram) return undefined;
  return {
    protocolVersion: `wallet-${wallet.paymentDataType}`,
    transStatus: 'Y',
    eci: wallet.eci,
    authenticationValue: wallet.cryptogram,
    challenged: false,
    threeDSServerTransID: wallet.transactionId,
  };
}
