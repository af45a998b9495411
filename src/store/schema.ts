/**
 * The one `Database` interface that types every table, so a misspelled column does
 * not compile. Times are epoch milliseconds; money is integer minor units; JSON
 * documents are stored as text so SQLite and PostgreSQL hold the same bytes.
 */
import type { Generated, Insertable, Selectable } from 'kysely';

export type Mode = 'test' | 'live';

export interface MerchantTable {
  id: string;
  name: string;
  /** JSON: MerchantSettings */
  settings: string;
  created: number;
}

export interface ApiKeyTable {
  /** SHA-256 (hex) of the key; the key itself is shown once and never stored. */
  key_hash: string;
  merchant_id: string;
  mode: Mode;
  /** First characters of the key, so an operator can tell keys apart. */
  key_prefix: string;
  created: number;
  revoked_at: number | null;
}

export interface TransactionTable {
  reference: string;
  merchant_id: string;
  mode: Mode;
  method: string;
  type: string;
  status: string;
  failure_code: string | null;
  amount_minor: number;
  currency: string;
  language: string;
  return_url: string | null;
  merchant_order_reference: string | null;
  description: string | null;
  metadata: string | null;
  brand: string | null;
  webhook_url: string | null;
  /** Capability token in payUrl/cancelUrl (≥ 256 bits, unguessable). */
  page_token: string;
  /** JSON: the validated request data that is not a column (3-D Secure 2 data, orderLines, …). */
  request: string;
  /** JSON: the `details` object of the payment object. */
  details: string;
  /** JSON: authentication result (ECI, transStatus, authentication value) once known. */
  authentication: string | null;
  parent_reference: string | null;
  created: number;
  last_update: number;
  expires_at: number | null;
}

export interface TransactionEventTable {
  id: Generated<number>;
  reference: string;
  from_status: string | null;
  to_status: string;
  failure_code: string | null;
  cause: string;
  at: number;
}

export interface IdempotencyRecordTable {
  merchant_id: string;
  mode: Mode;
  route: string;
  idempotency_reference: string;
  /** SHA-256 of the canonicalized (RFC 8785) request body. */
  fingerprint: string;
  /** null while the first request is still executing. */
  status_code: number | null;
  response_body: string | null;
  created: number;
}

export interface Database {
  merchants: MerchantTable;
  api_keys: ApiKeyTable;
  transactions: TransactionTable;
  transaction_events: TransactionEventTable;
  idempotency_records: IdempotencyRecordTable;
}

export type TransactionRow = Selectable<TransactionTable>;
export type NewTransaction = Insertable<TransactionTable>;
export type MerchantRow = Selectable<MerchantTable>;
