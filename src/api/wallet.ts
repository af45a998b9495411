/**
 * The hybrid wallet flow's token intake (docs/api.md#post-a-wallet-token): `POST <cardDataUrl>` from
 * the merchant backend, body `{"encryptedToken": <the wallet token as received>}`. The
 * capability token in the address authorises; a Basic key, when sent, must be the
 * payment's merchant. 200 means the token was accepted, not that the payment succeeded
 * (docs/api.md#states): it is paid right after, and the merchant reads the transaction.
 */
import type { FastifyInstance } from 'fastify';
import { Problem } from '../ground/problem.ts';
import { findByPageToken } from '../store/transactions.ts';
import { paymentMerchant } from '../merchants/merchants.ts';
import { serializePayment } from '../payments/serialize.ts';
import { addressesOf } from '../payments/flows.ts';
import { acceptWalletToken } from '../payments/operations/accept-wallet-token.ts';
import { payWallet } from '../payments/operations/pay-wallet.ts';
import { run, runLater, settleLaterRuns } from '../payments/runner/run.ts';
import { parseWalletToken } from '../wallet/index.ts';
import { objectBody } from './handle.ts';
import type { Deps } from './payments.ts';

export async function walletApi(app: FastifyInstance, { store, auth }: Deps) {
  const { ports } = app;
  // A stopping server finishes the wallet payments it accepted before the store closes.
  app.addHook('onClose', settleLaterRuns);
  app.post<{ Params: { token: string } }>('/card-data/:token', async (request) => {
    request.apiKey = (await auth.authenticate(request, false)) ?? null;
    const caller = request.apiKey?.caller;
    const row = await findByPageToken(store.read, request.params.token);
    if (!row || !addressesOf(row).cardDataUrl || (caller && (caller.merchantId !== row.merchant_id || caller.mode !== row.mode))) {
      throw new Problem('notFound', 'No payment has this card data address.');
    }
    const body = objectBody(request.body);
    const parsed = parseWalletToken(body.encryptedToken, '/encryptedToken');
    if (!parsed.token) {
      throw new Problem('validationFailed', {
        errors: parsed.errors.length > 0 ? parsed.errors : [{ field: '/encryptedToken', code: 'required', message: 'is required: the wallet token exactly as received' }],
      });
    }
    const payment = { row, merchant: await paymentMerchant(store.read, row.merchant_id) };
    const ctx = { ports, caller: payment, now: Date.now(), log: request.log };
    const accepted = await run(acceptWalletToken, { token: parsed.token, field: '/encryptedToken' }, ctx);
    runLater(payWallet, accepted, ctx, row.reference);
    return serializePayment(row, ports.links);
  });
}
