/** The row of a new pending customer-facing transaction (payment or vault enrollment): one shape for both. */
import type { NewTransaction } from '../store/schema.ts';
import type { Db } from '../store/store.ts';
import { insertTransaction } from '../store/transactions.ts';
import { newTransactionReference, pageTokenHash, pageTokenOf } from '../lib/tokens.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { echoedFields, unechoedFields } from '../threeds/echo.ts';
import type { ThreeDSData } from '../threeds/fields.ts';
import type { CommonFields } from './requests/common-fields.ts';

/** What the merchant's request gives every new transaction: its common fields and 3-D Secure 2 data. */
export type RequestedFields = CommonFields & { threeDS: ThreeDSData };

export interface PendingTransaction {
  owner: { merchantId: string; mode: 'test' | 'live' };
  method: string;
  type: string;
  flow: string;
  amountMinor: number;
  currency: string;
  /** The `request` document: validated request data the later steps need (serialize.ts `StoredPaymentRequest`). */
  storedRequest: Record<string, unknown>;
  details: Record<string, unknown>;
  now: number;
  expiresAt: number;
  /** The secrets key the payment's capability token is derived with (only its hash is stored). */
  secrets: SecretBox;
}

/** A new transaction's row and its capability token, derived once for the row's hash and the answer's addresses. */
export interface PlannedTransaction {
  row: NewTransaction;
  pageToken: string;
}

/** The request is passed as it is, not spread into `t`: copying its many fields cost more than building the row (measured). */
export function pendingTransactionRow(requested: RequestedFields, t: PendingTransaction): PlannedTransaction {
  const reference = newTransactionReference();
  const pageToken = pageTokenOf(t.secrets, reference);
  const row: NewTransaction = {
    reference,
    merchant_id: t.owner.merchantId,
    mode: t.owner.mode,
    method: t.method,
    type: t.type,
    status: 'pending',
    failure_code: null,
    amount_minor: t.amountMinor,
    currency: t.currency,
    language: requested.language,
    return_url: requested.returnUrl ?? null,
    merchant_order_reference: requested.merchantOrderReference ?? null,
    description: requested.description ?? null,
    metadata: requested.metadata ?? null,
    brand: null,
    webhook_url: requested.webhookUrl ?? null,
    page_token_hash: pageTokenHash(pageToken),
    flow: t.flow,
    echo: JSON.stringify(echoedFields(requested.threeDS)),
    // The echoed 3-D Secure fields are in `echo` only: storedRequestOf puts them back.
    request: JSON.stringify({ threeDS: unechoedFields(requested.threeDS), ...t.storedRequest }),
    details: JSON.stringify(t.details),
    authentication: null,
    parent_reference: null,
    created: t.now,
    last_update: t.now,
    expires_at: t.expiresAt,
    page_token_sealed: null,
  };
  return { row, pageToken };
}

/** Stores a planned pending transaction with its creation event: the only write of a create. */
export async function storePendingTransaction(db: Db, row: NewTransaction): Promise<void> {
  await insertTransaction(db, row, 'created');
}
