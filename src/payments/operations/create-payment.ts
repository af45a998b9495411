/**
 * Create a payment (docs/api.md#create-a-payment): validated, decided and built outside the unit of work,
 * stored as one insert. The answer is the pending payment with its `payUrl` (and, per
 * flow, `cancelUrl` and `cardDataUrl`). Two flows do more on creation (docs/decisions.md#wallet):
 * the direct wallet flow verifies and decrypts its token now, so a bad token is a 422
 * here, and pays it right after answering; the hybrid flow obtains the merchant session
 * the answer carries. A vault payment reads its stored card first.
 */
import type { TransactionRow } from '../../store/schema.ts';
import { AcquirerUnavailable } from '../../acquirer/select.ts';
import { creationContext, planPayment, validatePaymentBody } from '../create.ts';
import { prepareWalletPayment, TOKEN_FIELD } from '../wallet/create-wallet.ts';
import { storePendingTransaction } from '../pending-transaction.ts';
import { recordWalletTokenUse } from '../wallet/pay-by-wallet.ts';
import { payWallet } from './pay-wallet.ts';
import { payOffSession } from './pay-off-session.ts';
import { requestedFlow } from '../requests/flow-of-request.ts';
import { runLater } from '../runner/run.ts';
import { serializePayment } from '../serialize.ts';
import { merchantOperation } from '../runner/operation.ts';
import { flowOf } from '../flows.ts';
import { requestRules } from '../requests/fields.ts';
import { refuseWhatTheAcquirerWouldRefuse } from '../ports.ts';

export const createPayment = merchantOperation({
  name: 'createPayment',
  scope: 'payment',
  // An off-session payment is authorised while its request is answered (docs/vault.md "Paying off-session").
  handsOver: (body: Record<string, unknown>) => {
    const flow = requestedFlow(body);
    return flow !== undefined && flowOf(flow).initiator === 'merchant' ? payOffSession : undefined;
  },
  parse: (body: Record<string, unknown>, { caller, ports }) => validatePaymentBody(body, caller, requestRules(caller.mode, ports.settings)),
  load: async (request, { ports, caller }) => {
    if (request.storeInVault) ports.vault.keys();
    // A token paid or a session handed out must be payable: not with a live key and no acquirer.
    const { creation } = flowOf(request.flow);
    if ((creation === 'wallet-token' || creation === 'wallet-session') && !(await ports.acquirers.available(caller))) throw new AcquirerUnavailable();
    await refuseWhatTheAcquirerWouldRefuse(ports, caller, request);
    // Vault cards are never changed or deleted, so the card read here is the card paid with.
    return creation === 'vault-card' ? await ports.vault.find(ports.store.read, caller, request.details.vaultAccessToken!) : undefined;
  },
  decide: (vaultCard, request, ctx) => ({ request, ...planPayment(request, creationContext(ctx, vaultCard)) }),
  act: async ({ request, row, pageToken }, { ports, caller }) => {
    const { creation } = flowOf(request.flow);
    if (creation !== 'wallet-token' && creation !== 'wallet-session') return { row, pageToken };
    const wallet = await prepareWalletPayment(request, caller, ports.settings.wallet);
    return { row: { ...row, details: JSON.stringify(wallet.details) }, pageToken, accepted: wallet.accepted };
  },
  commit: async (tx, { row, pageToken, accepted }) => {
    await storePendingTransaction(tx, row);
    if (accepted) await recordWalletTokenUse(tx, accepted, row.reference, TOKEN_FIELD);
    return { row: row as TransactionRow, pageToken };
  },
  answer: ({ row, pageToken }, { ports }) => serializePayment(row, ports.links, pageToken),
  created: ({ row }) => row,
  // The direct wallet flow pays after answering: the creation response is the pending payment (docs/api.md#create-a-payment).
  after: ({ row }, { accepted }, { ports, caller, now, log }) => {
    if (!accepted) return;
    const payment = { row, merchant: { id: caller.merchantId, name: caller.merchantName, settings: caller.settings } };
    runLater(payWallet, accepted, { ports, caller: payment, now, log }, row.reference);
  },
});
