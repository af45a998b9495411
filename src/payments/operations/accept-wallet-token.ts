/**
 * Accept a wallet token for an existing pending payment (docs/api.md#post-a-wallet-token: the hybrid flow's
 * `cardDataUrl`; the hosted flow's wallet sheet): verified, decrypted and checked outside
 * the unit of work, then recorded as the payment's one token. Posting the same token again
 * is accepted again (a retry, also once the payment is final); another token once one was
 * accepted is a 409, as is any token for a payment already final. The token is paid
 * afterwards by `payWallet`.
 */
import { Problem } from '../../ground/problem.ts';
import { findTransaction } from '../../store/transactions.ts';
import { findWalletTokenUse } from '../../store/wallet-token-uses.ts';
import { verifyWalletToken } from '../../wallet/accept.ts';
import type { WalletPaymentToken } from '../../wallet/index.ts';
import { recordWalletTokenUse, toPay } from '../wallet/pay-by-wallet.ts';
import { customerOperation } from '../runner/operation.ts';

const notPending = (status: string) => new Problem('conflict', `The payment is ${status}: it takes no wallet token any more.`);

export const acceptWalletToken = customerOperation({
  name: 'acceptWalletToken',
  /** `field`: where the token was sent, for the Problem that names it. */
  parse: (body: { token: WalletPaymentToken; field: string }) => body,
  load: () => undefined,
  decide: (_nothing, input) => input,
  act: async ({ token, field }, { ports, caller, now }) => ({ accepted: await verifyWalletToken(token, toPay(caller), ports.settings.wallet, field, () => now), field }),
  commit: async (tx, { accepted, field }, { caller, now }) => {
    const current = (await findTransaction(tx, caller.row.reference))!;
    // The same token again is a retry, also once the payment it started is final.
    if (current.status !== 'pending' && (await findWalletTokenUse(tx, accepted.transactionId))?.reference !== current.reference) throw notPending(current.status);
    await recordWalletTokenUse(tx, accepted, current.reference, field, now);
    return accepted;
  },
  answer: (accepted) => accepted,
});
