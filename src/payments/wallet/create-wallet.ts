/**
 * The wallet part of creating a payment (docs/api.md#create-a-payment; docs/decisions.md#wallet), done before the
 * unit of work because it is crypto or a network call:
 * - direct flow: the `walletPayEncryptedToken` is verified, decrypted and checked against
 *   the payment now, so a bad token is a 422 on creation, not a failed payment later;
 * - hybrid flow: the merchant session is obtained from the wallet's validation URL and
 *   becomes `details.walletPayPaymentSession`.
 */
import type { Caller } from '../../merchants/merchants.ts';
import type { WalletSettings } from '../../wallet/settings.ts';
import { verifyWalletToken, type AcceptedWalletPayment } from '../../wallet/accept.ts';
import { obtainMerchantSession } from '../../wallet/merchant-session.ts';
import type { PaymentRequest } from '../requests/payment-request.ts';
import { flowOf } from '../flows.ts';

export interface WalletStep {
  details: Record<string, unknown>;
  /** Direct flow: the token to pay with once the payment is stored. */
  accepted?: AcceptedWalletPayment;
}

export const TOKEN_FIELD = '/details/walletPayEncryptedToken';

/** For the flows whose creation is `wallet-token` or `wallet-session` (flows.ts). */
export async function prepareWalletPayment(request: PaymentRequest, caller: Caller, settings: WalletSettings): Promise<WalletStep> {
  const payment = { mode: caller.mode, amountMinor: request.amountMinor, currency: request.currency.code, acceptedBrands: caller.settings.cardBrands };
  if (flowOf(request.flow).creation === 'wallet-token') {
    return { details: {}, accepted: await verifyWalletToken(request.details.walletPayEncryptedToken!, payment, settings, TOKEN_FIELD) };
  }
  const session = await obtainMerchantSession(
    { mode: caller.mode, validationUrl: request.details.walletPayValidationUrl!, domainName: request.details.walletPayDomainName!, merchantName: caller.merchantName },
    settings.merchantIdentity,
  );
  return { details: { walletPayPaymentSession: session } };
}
