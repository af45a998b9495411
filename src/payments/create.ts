/**
 * Create a payment (spec §4.1): validate → decide → store, in one unit of work.
 * The response is the payment object with status `pending` and a `payUrl`.
 */
import { Problem } from '../problem.ts';
import type { Db } from '../store/store.ts';
import type { NewTransaction } from '../store/schema.ts';
import { insertTransaction } from '../store/transactions.ts';
import { newPageToken, newTransactionReference } from '../lib/tokens.ts';
import type { Caller } from '../merchants/merchants.ts';
import { parsePaymentRequest, type PaymentRequest } from './request.ts';
import { echoedFields } from '../threeds/validate.ts';

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

export async function createPayment(db: Db, request: PaymentRequest, ctx: CreateContext): Promise<NewTransaction> {
  if (request.flow === 'vault') {
    // No card has been enrolled in the vault yet (vault enrollment is not built), so no token can match.
    throw Problem.validation([{ field: '/details/vaultAccessToken', code: 'unknown', message: 'is not a vault access token of this merchant' }]);
  }
  if (request.flow === 'walletpay-direct' || request.flow === 'walletpay-hybrid') {
    throw new Problem(501, 'Not implemented', `The ${request.flow} flow is not available yet; use method walletpay without details for the hosted flow.`);
  }
  const row: NewTransaction = {
    reference: newTransactionReference(),
    merchant_id: ctx.caller.merchantId,
    mode: ctx.caller.mode,
    method: request.method,
    type: request.type,
    status: 'pending',
    failure_code: null,
    amount_minor: request.amountMinor,
    currency: request.currency.code,
    language: request.language,
    return_url: request.returnUrl ?? null,
    merchant_order_reference: request.merchantOrderReference ?? null,
    description: request.description ?? null,
    metadata: request.metadata ?? null,
    brand: null,
    webhook_url: request.webhookUrl ?? null,
    page_token: newPageToken(),
    flow: request.flow,
    echo: JSON.stringify(echoedFields(request.threeDS)),
    request: JSON.stringify({
      threeDS: request.threeDS,
      storeInVault: request.storeInVault,
      preselectedBrand: request.brand,
      orderLines: request.orderLines,
    }),
    details: JSON.stringify(request.method === 'landingpage' ? { expirationDuration: request.expirationDuration ?? ctx.defaultExpiry } : {}),
    authentication: null,
    parent_reference: null,
    created: ctx.now,
    last_update: ctx.now,
    expires_at: ctx.now + (request.expirationMs ?? ctx.defaultExpiryMs),
  };
  await insertTransaction(db, row, 'created');
  return row;
}
