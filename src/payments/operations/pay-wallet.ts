/**
 * Pay with an accepted wallet token (docs/api.md#states, docs/api.md#create-a-payment, docs/api.md#post-a-wallet-token; docs/decisions.md#wallet): the payment
 * takes the processing lease, is authorised at the acquirer with the token's device card
 * number and cryptogram (the wallet authenticated the cardholder, so no 3-D Secure step),
 * and makes its one state change through the same `authorise` as a card payment. The
 * token, kept encrypted until the payment is final for the recovery of a crashed process
 * (wallet-recovery.ts), is forgotten in the unit of work that ends the payment.
 */
import { findCurrency } from '../../ground/amount.ts';
import { scenarioFor } from '../../ground/test-scenarios.ts';
import { takeProcessingLease } from '../../store/payment-pages.ts';
import { clearWalletToken } from '../../store/wallet-token-uses.ts';
import type { AcceptedWalletPayment } from '../../wallet/accept.ts';
import { authorisationKey, authorise } from '../card/authorise.ts';
import { commitCardOutcome, reverseLostAuthorisation } from '../card/commit.ts';
import { openForPaying, PROCESSING_LEASE_MS, releaseLease } from '../card/reserve.ts';
import { type PageStep } from '../card/steps.ts';
import { walletAuthentication } from '../wallet/pay-by-wallet.ts';
import { customerOperation, stop } from '../runner/operation.ts';

export const payWallet = customerOperation({
  name: 'payWallet',
  parse: (accepted: AcceptedWalletPayment) => accepted,
  load: () => undefined,
  decide: (_nothing, accepted) => accepted,
  reserve: async (tx, accepted: AcceptedWalletPayment, { caller, now }) => {
    const { reference } = caller.row;
    const current = await openForPaying(tx, reference, now);
    if ('step' in current) {
      if (current.step === 'final') await clearWalletToken(tx, reference);
      return stop<PageStep>(current);
    }
    // A wallet payment resumed after a crash (wallet-recovery.ts) sends its authorisation again with the same key.
    const resuming = authorisationKey(reference, walletKey(accepted));
    if (!(await takeProcessingLease(tx, reference, now, now + PROCESSING_LEASE_MS, resuming))) return stop<PageStep>({ step: 'busy' });
    return accepted;
  },
  release: releaseLease,
  act: async (wallet, ctx) => {
    const { row } = ctx.caller;
    // Test scenario .41: the wallet's final state only after 2 s (docs/decisions.md#test-scenarios).
    if (row.mode === 'test') await delay(scenarioFor(row.amount_minor, findCurrency(row.currency)!.exponent).walletDelayMs ?? 0);
    const card = { pan: wallet.pan, expiryMonth: wallet.expiryMonth, expiryYear: wallet.expiryYear, holderName: wallet.cardholderName ?? '', brand: wallet.brand };
    return authorise(card, walletAuthentication(wallet), walletKey(wallet), ctx);
  },
  commit: async (tx, settlement, ctx) => {
    const step = await commitCardOutcome(tx, settlement, ctx);
    if (step.step === 'final') await clearWalletToken(tx, ctx.caller.row.reference);
    return step;
  },
  answer: (step) => step,
  after: reverseLostAuthorisation,
});

/** The token's authorisation key: one token, one authorisation, whichever process sends it. */
const walletKey = (wallet: AcceptedWalletPayment) => `wallet-${wallet.transactionId}`;

const delay = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
