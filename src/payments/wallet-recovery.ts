/**
 * Resumes wallet payments whose process died between accepting the token and the
 * acquirer's answer (DESIGN §4: killing the process loses no accepted payment). Their
 * token is still stored (wallet_token_uses.token); a background worker opens it again,
 * with the clock at its acceptance so the freshness it passed then still holds, and pays
 * as the accepting process would have. The processing lease keeps it from paying next to
 * a live payer, and the acquirer call carries the same idempotency key as the first try.
 */
import { paymentMerchant } from '../merchants/merchants.ts';
import { findTransaction } from '../store/transactions.ts';
import { findUnfinishedWalletTokenUses } from '../store/wallet-token-uses.ts';
import { acceptWalletToken } from '../wallet/accept.ts';
import type { WalletPaymentToken } from '../wallet/index.ts';
import type { CardProcessing } from './card-processing.ts';
import { forgetToken, payByWallet, toPay } from './pay-by-wallet.ts';
import { runEvery } from '../lib/periodic.ts';

/** A token younger than this is left to the process that accepted it (it pays right after the answer). */
export const RESUME_AFTER_MS = 5_000;
const BATCH = 50;

/**
 * Resumes the unfinished wallet payments accepted before `now - RESUME_AFTER_MS`; returns how
 * many it looked at. One that cannot be resumed (say its processing key was removed) is
 * reported and left to expire, after which its token is cleared.
 */
export async function resumeWalletPayments(cp: CardProcessing, onError: (error: unknown) => void, now = Date.now()): Promise<number> {
  const unfinished = await findUnfinishedWalletTokenUses(cp.store.read, now - RESUME_AFTER_MS, BATCH);
  for (const use of unfinished) {
    try {
      await resume(cp, use.reference, JSON.parse(use.token!) as WalletPaymentToken, use.created);
    } catch (error) {
      onError(error);
    }
  }
  return unfinished.length;
}

async function resume(cp: CardProcessing, reference: string, token: WalletPaymentToken, acceptedAt: number): Promise<void> {
  const row = (await findTransaction(cp.store.read, reference))!;
  if (row.status !== 'pending') return forgetToken(cp, reference);
  const ctx = { row, merchant: await paymentMerchant(cp.store.read, row.merchant_id) };
  const accepted = await acceptWalletToken(token, toPay(ctx), cp.config.wallet, '/encryptedToken', () => acceptedAt);
  await payByWallet(cp, ctx, accepted);
}

/** Runs `resumeWalletPayments` every `intervalMs` until stopped. */
export function startWalletRecovery(cp: CardProcessing, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  return runEvery(intervalMs, () => resumeWalletPayments(cp, onError), onError);
}
