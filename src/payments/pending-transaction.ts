/** The row of a new pending customer-facing transaction (payment or vault enrollment): one shape for both. */
import type { NewTransaction } from '../store/schema.ts';
import type { Db } from '../store/store.ts';
import { insertTransaction } from '../store/transactions.ts';
import { newPageToken, newTransactionReference } from '../lib/tokens.ts';
import { echoedFields, type ThreeDSData } from '../threeds/validate.ts';
import type { CommonFields } from './common-fields.ts';

export interface PendingTransaction extends CommonFields {
  owner: { merchantId: string; mode: 'test' | 'live' };
  method: string;
  type: string;
  flow: string;
  amountMinor: number;
  currency: string;
  threeDS: ThreeDSData;
  /** The `request` document: validated request data the later steps need (serialize.ts `StoredPaymentRequest`). */
  storedRequest: Record<string, unknown>;
  details: Record<string, unknown>;
  now: number;
  expiresAt: number;
}

export function pendingTransactionRow(t: PendingTransaction): NewTransaction {
  return {
    reference: newTransactionReference(),
    merchant_id: t.owner.merchantId,
    mode: t.owner.mode,
    method: t.method,
    type: t.type,
    status: 'pending',
    failure_code: null,
    amount_minor: t.amountMinor,
    currency: t.currency,
    language: t.language,
    return_url: t.returnUrl ?? null,
    merchant_order_reference: t.merchantOrderReference ?? null,
    description: t.description ?? null,
    metadata: t.metadata ?? null,
    brand: null,
    webhook_url: t.webhookUrl ?? null,
    page_token: newPageToken(),
    flow: t.flow,
    echo: JSON.stringify(echoedFields(t.threeDS)),
    request: JSON.stringify({ threeDS: t.threeDS, ...t.storedRequest }),
    details: JSON.stringify(t.details),
    authentication: null,
    parent_reference: null,
    created: t.now,
    last_update: t.now,
    expires_at: t.expiresAt,
  };
}

/** Stores a planned pending transaction with its creation event: the only write of a create. */
export async function storePendingTransaction(db: Db, row: NewTransaction): Promise<void> {
  await insertTransaction(db, row, 'created');
}
