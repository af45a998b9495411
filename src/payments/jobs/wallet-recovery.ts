/**
 * Resumes wallet payments whose process died between accepting the token and the
 * acquirer's answer (docs/architecture.md#quality-bars: killing the process loses no accepted payment). Their
 * token is still stored (wallet_token_uses.token); a background worker opens it again,
 * with the clock at its acceptance so the freshness it passed then still holds, and pays
 * it with `payWallet` as the accepting process would have. The processing lease keeps it
 * from paying next to a live payer, and the acquirer call carries the same idempotency
 * key as the first try.
 */
import { paymentMerchant } from '../../merchants/merchants.ts';
import { findTransaction } from '../../store/transactions.ts';
import { clearWalletToken, findUnfinishedWalletTokenUses } from '../../store/wallet-token-uses.ts';
import { verifyWalletToken } from '../../wallet/accept.ts';
import type { WalletPaymentToken } from '../../wallet/index.ts';
import type { Ports } from '../ports.ts';
import { toPay } from '../wallet/pay-by-wallet.ts';
import { run } from '../runner/run.ts';
import { payWallet } from '../operations/pay-wallet.ts';
import type { Log } from '../runner/operation.ts';
import { runEvery } from '../../lib/periodic.ts';

/** A token younger than this is left to the process that accepted it (it pays right after the answer). */
export const RESUME_AFTER_MS = 5_000;
const BATCH = 50;

/**
 * Resumes the unfinished wallet payments accepted before `now - RESUME_AFTER_MS`; returns how
 * many it looked at. One that cannot be resumed (say its processing key was removed) is
 * reported and left to expire, after which its token is cleared.
 */
export async function resumeWalletPayments(ports: Ports, onError: (error: unknown) => void, now = Date.now()): Promise<number> {
  const unfinished = await findUnfinishedWalletTokenUses(ports.store.read, now - RESUME_AFTER_MS, BATCH);
  const log: Log = { error: (data) => onError((data as { err?: unknown }).err ?? data) };
  for (const use of unfinished) {
    try {
      await resume(ports, log, use.reference, JSON.parse(use.token!) as WalletPaymentToken, use.created);
    } catch (error) {
      onError(error);
    }
  }
  return unfinished.length;
}

async function resume(ports: Ports, log: Log, reference: string, token: WalletPaymentToken, acceptedAt: number): Promise<void> {
  const row = (await findTransaction(ports.store.read, reference))!;
  if (row.status !== 'pending') return ports.store.transact((tx) => clearWalletToken(tx, reference));
  const caller = { row, merchant: await paymentMerchant(ports.store.read, row.merchant_id) };
  const accepted = await verifyWalletToken(token, toPay(caller), ports.settings.wallet, '/encryptedToken', () => acceptedAt);
  await run(payWallet, accepted, { ports, caller, now: Date.now(), log });
}

/** Runs `resumeWalletPayments` every `intervalMs` until stopped. */
export function startWalletRecovery(ports: Ports, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  return runEvery(intervalMs, () => resumeWalletPayments(ports, onError), onError);
}
