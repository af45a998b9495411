/**
 * Pay with an accepted wallet token (spec §3, §4.1, §4.4; DESIGN §3 "Wallet"): the token
 * is used once (recorded in the unit of work that accepts it), then the payment takes the
 * processing lease, is authorised at the acquirer with the token's device card number and
 * cryptogram (the wallet authenticated the cardholder, so no 3-D Secure step), and makes
 * its one state change through the same `authorise` as a card payment.
 *
 * The decrypted card data lives in memory only; the token itself (still encrypted to the
 * processing key) is kept with its one-use record until the payment is final. A server
 * that stops (SIGTERM) first finishes the payments it accepted; after a crash the
 * background worker resumes them from the kept token (wallet-recovery.ts).
 */
import type { Db } from '../store/store.ts';
import { findTransaction } from '../store/transactions.ts';
import { releaseProcessingLease, takeProcessingLease } from '../store/payment-pages.ts';
import { clearWalletToken, findWalletTokenUse, insertWalletTokenUse } from '../store/wallet-token-uses.ts';
import { Problem } from '../ground/problem.ts';
import { scenarioFor } from '../acquirer/scenarios.ts';
import type { Authentication } from '../threeds/server.ts';
import { acceptWalletToken, type AcceptedWalletPayment, type PaymentToPay } from '../wallet/accept.ts';
import type { WalletPaymentToken } from '../wallet/index.ts';
import { testWalletToken } from '../wallet/test-sheet.ts';
import { findCurrency } from '../ground/amount.ts';
import type { CardProcessing } from './card-processing.ts';
import { authorise, openForPaying, PROCESSING_LEASE_MS, type CardStep, type PaymentContext } from './pay-by-card.ts';

/** Wallet payments being paid after their answer was sent; a stopping server waits for them (`settleWalletPayments`). */
const inFlight = new Set<Promise<unknown>>();

/** Pays an accepted token after the answer (the direct and hybrid flows answer `pending`, spec §4.1, §4.4). */
export function payByWalletLater(cp: CardProcessing, ctx: PaymentContext, wallet: AcceptedWalletPayment, log: { error(data: object, message: string): void }): void {
  const paying = payByWallet(cp, ctx, wallet).catch((error) => log.error({ err: error, reference: ctx.row.reference }, 'wallet payment failed'));
  inFlight.add(paying);
  void paying.finally(() => inFlight.delete(paying));
}

export async function settleWalletPayments(): Promise<void> {
  await Promise.all(inFlight);
}

/**
 * Records a payment's one token, in the caller's unit of work. A token is used once and a
 * payment takes one token: both are unique keys, so two processes racing with the same
 * token, or with two tokens for one payment, cannot both win. The same token for the same
 * payment again is a retry, and fine.
 */
export async function recordWalletTokenUse(db: Db, accepted: AcceptedWalletPayment, reference: string, field: string, now = Date.now()): Promise<void> {
  const { transactionId } = accepted;
  if (await insertWalletTokenUse(db, { transactionId, reference, token: JSON.stringify(accepted.token), created: now })) return;
  const use = await findWalletTokenUse(db, transactionId);
  if (use?.reference === reference) return;
  if (use) throw Problem.validation([{ field, code: 'token_used', message: 'this wallet token has already been used for a payment; ask the customer to pay again' }]);
  throw Problem.conflict('A wallet token was already accepted for this payment; read the transaction for its outcome.');
}

/**
 * Accepts a wallet token for an existing pending payment (the hybrid flow's cardDataUrl,
 * the hosted wallet sheet): verified, decrypted and checked outside the unit of work,
 * then recorded as the payment's one token. Posting the same token again is accepted
 * again (a retry); another token once one was accepted is a 409, as is a final payment.
 */
export async function acceptTokenForPayment(cp: CardProcessing, ctx: PaymentContext, token: WalletPaymentToken, field: string): Promise<AcceptedWalletPayment> {
  const { row } = ctx;
  if (row.status !== 'pending') throw notPending(row.status);
  const accepted = await acceptWalletToken(token, toPay(ctx), cp.config.wallet, field);
  await cp.store.transact(async (db) => {
    const current = (await findTransaction(db, row.reference))!;
    if (current.status !== 'pending') throw notPending(current.status);
    await recordWalletTokenUse(db, accepted, row.reference, field);
  });
  return accepted;
}

/** What a token must match: the stored payment's mode, amount and currency, and its merchant's brands. */
export const toPay = ({ row, merchant }: PaymentContext): PaymentToPay => ({
  mode: row.mode,
  amountMinor: row.amount_minor,
  currency: row.currency,
  acceptedBrands: merchant.settings.cardBrands,
});

const notPending = (status: string) => Problem.conflict(`The payment is ${status}: it takes no wallet token any more.`);

export async function payByWallet(cp: CardProcessing, ctx: PaymentContext, wallet: AcceptedWalletPayment, now = Date.now()): Promise<CardStep> {
  const { row } = ctx;
  const gate = await cp.store.transact(async (db): Promise<CardStep | { step: 'go' }> => {
    const current = await openForPaying(db, row.reference, now);
    if ('step' in current) return current;
    if (!(await takeProcessingLease(db, row.reference, now, now + PROCESSING_LEASE_MS))) return { step: 'busy' };
    return { step: 'go' };
  });
  const step = gate.step === 'go' ? await authoriseUnderLease(cp, ctx, wallet) : gate;
  if (step.step === 'final') await forgetToken(cp, row.reference);
  return step;
}

async function authoriseUnderLease(cp: CardProcessing, ctx: PaymentContext, wallet: AcceptedWalletPayment): Promise<CardStep> {
  const { row } = ctx;
  try {
    if (row.mode === 'test') await delay(scenarioFor(row.amount_minor, findCurrency(row.currency)!.exponent).walletDelayMs ?? 0);
    const card = { pan: wallet.pan, expiryMonth: wallet.expiryMonth, expiryYear: wallet.expiryYear, holderName: wallet.cardholderName ?? '', brand: wallet.brand };
    return await authorise(cp, ctx, row, card, walletAuthentication(wallet), `wallet-${wallet.transactionId}`);
  } finally {
    await cp.store.transact((db) => releaseProcessingLease(db, row.reference));
  }
}

/** A final payment needs its token no more (a crash before this only makes the recovery clear it). */
export async function forgetToken(cp: CardProcessing, reference: string): Promise<void> {
  await cp.store.transact((db) => clearWalletToken(db, reference));
}

/** The wallet's cardholder authentication (device biometrics) as the acquirer is told it: the cryptogram and ECI. */
function walletAuthentication(wallet: AcceptedWalletPayment): Authentication | undefined {
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

const delay = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/**
 * The hosted flow's test wallet sheet: a real token, signed and encrypted by Kassa's test
 * PKI for this payment's amount and the merchant's first accepted brand, then accepted
 * and paid exactly like a token from the merchant's backend.
 */
export async function payWithTestWallet(cp: CardProcessing, ctx: PaymentContext, now = new Date()): Promise<CardStep> {
  const { row, merchant } = ctx;
  if (row.mode !== 'test') throw new Error('the test wallet pays test payments only');
  const brand = merchant.settings.cardBrands[0];
  if (!brand) return { step: 'unavailable' };
  const token = await testWalletToken({ brand, amountMinor: row.amount_minor, currency: findCurrency(row.currency)! }, now);
  const accepted = await acceptTokenForPayment(cp, ctx, token, '/encryptedToken');
  return payByWallet(cp, ctx, accepted, now.getTime());
}
