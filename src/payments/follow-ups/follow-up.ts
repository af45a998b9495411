/**
 * Transactions that follow a payment instead of being paid by a customer (docs/api.md#further-endpoints,
 * docs/decisions.md#refunds): a refund (type `credit`), the capture of an authorisation (type `sale`,
 * as the real API and its plugins expect) and a dispute (type `chargeback`, disputes.ts). Each is a transaction of its own with its own
 * reference, `parent_reference` naming the payment whose merchant, mode, method, currency,
 * brand and order reference it takes; it has no customer page (flows.ts `addressesOf`).
 * Also the request fields the official client sends to make one (`RefundRequest.php`,
 * `CaptureRequest.php`). Pure: no I/O.
 */
import type { NewTransaction, TransactionRow } from '../../store/schema.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { newTransactionReference, pageTokenHash, pageTokenOf } from '../../lib/tokens.ts';
import { given } from '../../ground/field-engine.ts';
import type { CompiledRequestTable, RequestRules, RequestTable } from '../requests/rows.ts';
import { amountSchema } from '../requests/common-fields.ts';
import { parseFields, referenceField } from '../requests/fields.ts';

/** The fields every follow-up request has: which payment, how much of it (absent: all there is), and its order lines. */
export const followUpFields = {
  reference: referenceField,
  // Checked against the payment's currency once the payment is read.
  amount: { schema: amountSchema },
  orderLines: { type: 'array of objects', maxItems: 200, items: 'lines' },
} as const satisfies RequestTable;

export interface FollowUpRequest {
  reference: string;
  /** As sent (a number or a numeric string): checked against the payment's currency. Absent: all there is. */
  amount?: unknown;
  orderLines?: unknown[];
  /** The table's other fields, valid and normalized, by name. */
  values: Record<string, unknown>;
}

/** A follow-up request checked against its table, or the Problem naming every failing field. */
export function parseFollowUp(table: CompiledRequestTable, body: Record<string, unknown>, rules: RequestRules): FollowUpRequest {
  const values = parseFields(table, body, rules);
  return {
    reference: values.reference as string,
    amount: given(body.amount) ? body.amount : undefined,
    orderLines: values.orderLines as unknown[] | undefined,
    values,
  };
}

export interface FollowUp {
  /** Given when the acquirer had to be told it first (a capture); new otherwise. */
  reference?: string;
  type: 'credit' | 'sale' | 'chargeback';
  amountMinor: number;
  description?: string;
  webhookUrl?: string;
  orderLines?: unknown[];
}

/** The new pending row of a follow-up of `parent`. */
export function followUpRow(parent: TransactionRow, followUp: FollowUp, { secrets, now }: { secrets: SecretBox; now: number }): NewTransaction {
  const reference = followUp.reference ?? newTransactionReference();
  return {
    reference,
    merchant_id: parent.merchant_id,
    mode: parent.mode,
    method: parent.method,
    type: followUp.type,
    status: 'pending',
    failure_code: null,
    amount_minor: followUp.amountMinor,
    currency: parent.currency,
    language: parent.language,
    return_url: null,
    merchant_order_reference: parent.merchant_order_reference,
    description: followUp.description ?? null,
    metadata: null,
    brand: parent.brand,
    webhook_url: followUp.webhookUrl ?? parent.webhook_url,
    // Derived as every transaction's, never shown: a follow-up has no customer page.
    page_token_hash: pageTokenHash(pageTokenOf(secrets, reference)),
    flow: parent.flow,
    echo: '{}',
    request: JSON.stringify({ orderLines: followUp.orderLines }),
    details: '{}',
    authentication: null,
    parent_reference: parent.reference,
    created: now,
    last_update: now,
    expires_at: null,
    page_token_sealed: null,
  };
}
