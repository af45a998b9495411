/**
 * Create a payment (spec §4.1): validate → decide → store, in one unit of work.
 * The response is the payment object with status `pending` and a `payUrl`.
 */
import { Problem } from '../problem.ts';
import type { NewTransaction } from '../store/schema.ts';
import type { Caller } from '../merchants/merchants.ts';
import { parsePaymentRequest, type PaymentRequest } from './request.ts';
import { pendingTransactionRow } from './pending-transaction.ts';

export interface CreateContext {
  caller: Caller;
  defaultExpiryMs: number;
  defaultExpiry: string;
  now: number;
}

/** Validates `body`; throws a 422 Problem listing every failing field. */
export function validatePaymentBody(body: Record<string, unknown>, caller: Caller): PaymentRequest {
  const { errors, request } = parsePaymentRequest(body, caller.settings, caller.mode);
  if (!request) throw Problem.validation(errors);
  return request;
}

/**
 * The new payment's row, decided without I/O: validation and building happen outside the
 * unit of work. `walletDetails`: what the wallet flows add to `details` (create-wallet.ts).
 */
export function planPayment(request: PaymentRequest, ctx: CreateContext, walletDetails: Record<string, unknown> = {}): NewTransaction {
  if (request.flow === 'vault') {
    // No card has been enrolled in the vault yet (vault enrollment is not built), so no token can match.
    throw Problem.validation([{ field: '/details/vaultAccessToken', code: 'unknown', message: 'is not a vault access token of this merchant' }]);
  }
  const row = pendingTransactionRow({
    ...request,
    owner: ctx.caller,
    currency: request.currency.code,
    kept: { storeInVault: request.storeInVault, preselectedBrand: request.brand, orderLines: request.orderLines },
    details: request.method === 'landingpage' ? { expirationDuration: request.expirationDuration ?? ctx.defaultExpiry } : walletDetails,
    now: ctx.now,
    expiresAt: ctx.now + (request.expirationMs ?? ctx.defaultExpiryMs),
  });
  return row;
}
