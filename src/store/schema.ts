/**
 * The one `Database` interface that types every table, so a misspelled column does
 * not compile. Times are epoch milliseconds; money is integer minor units; JSON
 * documents are stored as text so SQLite and PostgreSQL hold the same bytes.
 *
 * Longer than 400 lines on purpose: it is one declaration, the database as the code sees it, one
 * interface per table with each column's meaning beside it; read whole, it is the schema's map
 * (docs/architecture.md "Storage and processes"), and split by table it would only be the same map in pieces.
 */
import type { Generated, Insertable, Selectable } from 'kysely';

/** The databases the schema is kept on; the migrations differ where their column types do. */
export type Dialect = 'sqlite' | 'postgres';

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
  /**
   * Look-up key of the capability token in payUrl/cancelUrl/cardDataUrl (lib/tokens.ts `pageTokenHash`):
   * the token is derived from the reference with the secrets key, never stored.
   */
  page_token_hash: string;
  /** How the customer pays (payments/flows.ts): decides the request's rules, the answer's addresses and the pages. */
  flow: string;
  /** JSON: billing/shipping fields echoed in the payment object (docs/api.md#the-payment-object). */
  echo: string;
  /** JSON: the validated request data that is not a column (3-D Secure 2 data, orderLines, …). */
  request: string;
  /** JSON: the `details` object of the payment object. */
  details: string;
  /** JSON: authentication result (ECI, transStatus, authentication value) once known. */
  authentication: string | null;
  parent_reference: string | null;
  created: number;
  last_update: number;
  /** Incremented by every update of the row (a cached payment object is valid for one version). */
  version: Generated<number>;
  expires_at: number | null;
  /**
   * The token of a payment created before 007_sealed_secrets (random then, so no key derives it),
   * sealed with the secrets key; null for every later payment.
   */
  page_token_sealed: string | null;
  /** The card number's last four digits, once a card paid (013_console): the console's search finds payments by them. */
  card_last_four: Generated<string | null>;
}

export interface TransactionEventTable {
  id: Generated<number>;
  reference: string;
  from_status: string | null;
  to_status: string;
  failure_code: string | null;
  cause: string;
  at: number;
  /** What the acquirer said, for an event its notification made (023): its name of the event, amount and reason. */
  detail: string | null;
}

export interface IdempotencyRecordTable {
  merchant_id: string;
  mode: Mode;
  route: string;
  idempotency_reference: string;
  /** SHA-256 of the request body as JSON with keys sorted at every level. */
  fingerprint: string;
  /** null while the first request is still executing. */
  status_code: number | null;
  /**
   * The answer replayed (it carries the payment's addresses), sealed with the secrets key (store/secrets.ts);
   * for a create (`transaction_reference` set), the created row's columns that may change later, as they were.
   */
  response_body: string | null;
  created: number;
  /** A create's: the transaction it created, whose payment object as created is the answer (010_created_answers). */
  transaction_reference: string | null;
}

/** The merchant's webhook endpoint (docs/decisions.md#decisions-where-the-api-contract-is-silent); one for both modes. */
export interface MerchantWebhookTable {
  merchant_id: string;
  /** null: no merchant-level URL (a payment's own `webhookUrl` still applies). */
  url: string | null;
  /** `whsec_` + base64 of 32 random bytes, sealed with the secrets key (store/secrets.ts): it signs (HMAC) every delivery. Made with the merchant. */
  secret: string;
  updated: number;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** The outbox: one row per final state change, written in the change's unit of work. Its id is the `webhook-id`. */
export interface WebhookDeliveryTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  reference: string;
  /** What happened, for the operator: `success`, `failed/expired`, `manualintervention`, … */
  event: string;
  created: number;
  /** `failed` = given up after the whole retry schedule. */
  state: WebhookDeliveryState;
  /** When the next attempt is due; while claimed, the end of the claim's lease. */
  next_attempt_at: number | null;
  /** The claim (lease) token of the worker sending it right now. */
  claim: string | null;
  attempts: Generated<number>;
  /** Failed attempts since creation or the last redelivery: the position in the retry schedule. */
  failures: Generated<number>;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
}

export interface WebhookAttemptTable {
  id: Generated<number>;
  delivery_id: string;
  at: number;
  duration_ms: number;
  url: string | null;
  status_code: number | null;
  error: string | null;
  /** null when delivered or given up. */
  next_retry_at: number | null;
}

/** Per-payment state of the hosted page (003_pages). */
export interface PaymentPageTable {
  reference: string;
  /** Synchronizer token every form of this payment's pages carries. */
  csrf_token: string;
  /** Card submissions so far; the 5th failed one fails the payment (fraud_detected). */
  attempts: number;
  /** Landing page: the method the customer chose. */
  chosen_method: string | null;
  /** Lease while a card is being authenticated or authorised: one at a time per payment. */
  processing_until: number | null;
  acquirer_reference: string | null;
  created: number;
  /**
   * Write-ahead record (016): the idempotency key of the authorisation sent to the acquirer whose
   * outcome is not committed yet. While it is set the payment is not paid again.
   */
  authorisation_in_flight: string | null;
  /** When the acquirer recovery job is to look at the authorisation in flight; null: not the job's (none, or left for the operator). */
  recovery_due_at: number | null;
  /** When the recovery job sent a technical cancel for it: from then on the cancel decides the outcome, not a notification. */
  technical_cancel_sent_at: number | null;
  /** 029: the acquirer's reference of the reversal it took last (Adyen: the `/cancel`'s pspReference), which its refusal names. */
  reversal_acquirer_reference: string | null;
}

/** A 3-D Secure authentication run by Kassa's 3DS Server; `id` is the threeDSServerTransID. */
export interface ThreeDSSessionTable {
  id: string;
  reference: string;
  /** `2.2.0`, or `1.0.2` for the 3DS1 fallback. */
  protocol: string;
  /** `method`: the issuer's 3DS method runs in the page's hidden frame (acquirer sessions only). */
  state: 'started' | 'method' | 'challenge' | 'result' | 'used';
  /** Echoed back by the ACS (threeDSSessionData / MD): ties the browser's return to this session. */
  session_secret: string;
  acs_trans_id: string | null;
  ds_trans_id: string | null;
  acs_url: string | null;
  window_size: string | null;
  brand: string;
  /** JSON: the authentication result (transStatus, ECI, authentication value) once known. */
  result: string | null;
  created: number;
  expires_at: number;
  /** 015: a session of the acquirer's 3DS Server: its token for the next call (Adyen's threeDS2Token). Null for Kassa's own. */
  acquirer_token: string | null;
  /** 015: the protocol version of the issuer's ACS, carried by the CReq; null is 2.2.0 (Kassa's own sessions). */
  message_version: string | null;
}

/** The test-mode ACS simulator's own records (it stands for the issuer's system). */
export interface AcsSimTransactionTable {
  acs_trans_id: string;
  three_ds_server_trans_id: string;
  ds_trans_id: string;
  protocol: string;
  brand: string;
  language: string;
  merchant_name: string;
  amount_text: string;
  /** Sealed with the secrets key (store/secrets.ts): it carries the payment's capability token. */
  notification_url: string | null;
  form_token: string;
  state: 'pending' | 'done';
  /** JSON: transStatus, ECI, authentication value. */
  outcome: string | null;
  created: number;
}

/** Wallet tokens that have paid (or are paying): one use per token transactionId. */
export interface WalletTokenUseTable {
  transaction_id: string;
  reference: string;
  /** The token as received (JSON), until its payment is final; null after. */
  token: string | null;
  created: number;
}

/** A card in the vault (005_vault): usable only by its merchant and mode, through its access token. */
export interface VaultCardTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  /** SHA-256 (hex) of the `vaultAccessToken`: the look-up key; the token itself is shown in its transaction. */
  access_token_hash: string;
  brand: string;
  /** First six and last four digits, the rest masked (what PCI DSS allows to show). */
  masked_pan: string;
  cardholder_first_name: string | null;
  cardholder_last_name: string | null;
  expiry_month: number;
  expiry_year: number;
  /** base64url of IV | GCM tag | ciphertext of the card number (vault/cipher.ts). */
  pan_ciphertext: string;
  /** Which vault key sealed `pan_ciphertext`: older keys stay listed for decryption after a rotation. */
  key_id: string;
  /** The enrollment (or `storeInVault` payment) that stored the card. */
  enrollment_reference: string;
  created: number;
  /** The scheme's reference of the card's first customer-present authorisation (024_vault_network_reference), named by its merchant-initiated payments. */
  network_reference: string | null;
}

/** The check value of the secrets key this database's secrets are sealed with (store/secrets.ts): one row. */
export interface SecretsKeyTable {
  check_value: string;
  created: number;
}

/** The one row readiness overwrites to prove the database takes writes (021_readiness_probe). */
export interface ReadinessProbeTable {
  id: number;
  probed_at: number;
}

/** A console account (013_console): a platform operator (no merchant) or a merchant's user. */
export interface OperatorTable {
  id: string;
  /** Lower case. */
  email: string;
  merchant_id: string | null;
  /** scrypt (operators/passwords.ts); null until a password is set. */
  password_hash: string | null;
  /** SHA-256 of the one-time set-password token, while one is outstanding. */
  set_password_hash: string | null;
  set_password_expires_at: number | null;
  created: number;
  disabled_at: number | null;
}

/** A signed-in console session; the cookie holds the id, the table only its SHA-256. */
export interface ConsoleSessionTable {
  id_hash: string;
  operator_id: string;
  /** The synchronizer token every state-changing form of this session carries. */
  csrf_token: string;
  created: number;
  /** Ends the session however it is used: its sign-in plus CONSOLE_SESSION_LIFETIME. */
  expires_at: number;
  /** Its last request, written at most once a minute (operators/sessions.ts); unused for CONSOLE_IDLE_TIMEOUT, it has ended (031_console_security). */
  last_used: number;
}

/** One password an account has had, the current one included, newest last (031_console_security): the last four are kept. */
export interface PasswordHistoryTable {
  id: Generated<number>;
  operator_id: string;
  /** scrypt (operators/passwords.ts). */
  password_hash: string;
  set_at: number;
}

/**
 * The sign-in attempts of one subject, an account (`account:<email>`) or a client address
 * (`address:<ip>`), in its current window (020_sign_in_attempts; operators/sessions.ts).
 */
export interface SignInAttemptTable {
  subject: string;
  /**
   * When the window began: its first attempt, or for an account the failure that locked it. An
   * address's ends ADDRESS_WINDOW_MS later, an account's CONSOLE_LOCKOUT_DURATION later.
   */
  window_started: number;
  /** Attempts counted in the window, refused ones included; a successful sign-in takes its own back. */
  attempts: number;
}

/** What console accounts did (append-only: database triggers refuse edits). */
export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  /** The console account that acted; '' for none: the command line, a sign-in that failed. */
  operator_id: string;
  /** Who acted: the account's e-mail, the e-mail a sign-in was tried with, or `user@host` at the command line. */
  operator_email: string;
  merchant_id: string | null;
  action: string;
  reference: string | null;
  /** JSON: the action's parameters (amount, outcome, reason, …); never a secret. */
  detail: string;
  /** The client address the request came from; the host's name for the command line. */
  address: string;
  /** 031: `allowed`, `refused` or `failed` (docs/console.md "Audit log"). */
  outcome: Generated<AuditOutcome>;
  /** 031: what the action was done to when not a payment: a merchant, an account, an e-mail signed in with, a delivery. */
  subject: string | null;
}

export type AuditOutcome = 'allowed' | 'refused' | 'failed';

export interface Database {
  merchants: MerchantTable;
  api_keys: ApiKeyTable;
  transactions: TransactionTable;
  transaction_events: TransactionEventTable;
  idempotency_records: IdempotencyRecordTable;
  merchant_webhooks: MerchantWebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  payment_pages: PaymentPageTable;
  threeds_sessions: ThreeDSSessionTable;
  acs_sim_transactions: AcsSimTransactionTable;
  vault_cards: VaultCardTable;
  wallet_token_uses: WalletTokenUseTable;
  secrets_key: SecretsKeyTable;
  acquirer_connections: AcquirerConnectionTable;
  operators: OperatorTable;
  console_sessions: ConsoleSessionTable;
  sign_in_attempts: SignInAttemptTable;
  password_history: PasswordHistoryTable;
  audit_log: AuditLogTable;
  acquirer_notifications: AcquirerNotificationTable;
  readiness_probe: ReadinessProbeTable;
  acquirer_claims: AcquirerClaimTable;
  disputes: DisputeTable;
  request_log: RequestLogTable;
}

/** One merchant API request made with an API key (030_request_log, docs/api.md "Request log"): never its body, query string or key. */
export interface RequestLogTable {
  id: Generated<number>;
  at: number;
  merchant_id: string;
  mode: Mode;
  /** The first characters of the API key (api_keys.key_prefix), never the key. */
  key_prefix: string;
  method: string;
  /** The matched route's pattern (`/api/v1/cancel/:token`), never the address as sent. */
  route: string;
  status: number;
  duration_ms: number;
  request_id: string;
  /** The problem's title of an answer that is an error (RFC 9457), else null. */
  problem_title: string | null;
}

/** A dispute at its acquirer (026_disputes, docs/disputes.md): its chargeback transaction's reference and its stage. */
export interface DisputeTable {
  /** The chargeback transaction's reference. */
  reference: string;
  payment_reference: string;
  /** The connector that told of it (`adyen`, or `simulator` for the test helper's). */
  connector: string;
  /** The acquirer's reference of the dispute (Adyen: the dispute's own pspReference, not its payment's). */
  acquirer_reference: string;
  /** ground/dispute-stages.ts `DisputeStage`. */
  stage: string;
  created: number;
  last_update: number;
}

/** A signed acquirer notification item, as applied (019_acquirer_notifications): the key is the acquirer's own name of the event. */
export interface AcquirerNotificationTable {
  connector: string;
  /** The acquirer's reference of the event (Adyen: pspReference; a modification's own, not its payment's). */
  acquirer_reference: string;
  /** Adyen: eventCode. */
  event_code: string;
  /** The acquirer's reference of the payment a modification is of (Adyen: originalReference). */
  original_reference: string | null;
  merchant_id: string;
  mode: Mode;
  /** Kassa's reference the item names (Adyen: merchantReference). */
  reference: string;
  /** 1: the acquirer says the event succeeded. */
  success: number;
  received: number;
}

/**
 * A capture, reversal or refund being asked of the acquirer (018_acquirer_claims): what asking it
 * again needs, and until when its request may still answer it.
 */
export interface AcquirerClaimTable {
  /** The action's own reference: its capture's or refund's transaction; a reversal's authorisation; a late payment given back (`cancelOrRefund`). */
  reference: string;
  action: 'capture' | 'reversal' | 'refund' | 'cancelOrRefund';
  /** What it is done to: the authorisation captured or reversed, the sale refunded, the ended payment paid late. */
  payment_reference: string;
  /** The acquirer's reference of the money (the authorisation's). */
  acquirer_reference: string;
  amount_minor: number;
  currency: string;
  idempotency_key: string;
  /** The lease: until then the request that claimed it answers it; from then on the recovery job may ask again. */
  due_at: number;
  created: number;
  /** How many times the recovery job took it to ask again (028_claim_asks). */
  asks: Generated<number>;
}

export type AcquirerClaimRow = Selectable<AcquirerClaimTable>;

/** A merchant's acquirer for one mode (012_acquirer_connections): which connector, where, and its sealed credentials. */
export interface AcquirerConnectionTable {
  merchant_id: string;
  mode: Mode;
  connector: string;
  endpoint: string;
  /** The merchant's account at the acquirer (Adyen: merchantAccount). */
  account: string;
  /** The connector's credentials as one JSON object, sealed (secrets.ts `bindings.acquirerSecrets`). */
  secrets: string;
  updated: number;
  /** JSON: the roots of the acquirer's other APIs by name (025_acquirer_endpoints: `checkout`, `disputes`), or null. */
  endpoints: string | null;
}

export type TransactionRow = Selectable<TransactionTable>;
export type NewTransaction = Insertable<TransactionTable>;
export type MerchantRow = Selectable<MerchantTable>;
export type OperatorRow = Selectable<OperatorTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type VaultCardRow = Selectable<VaultCardTable>;
export type NewVaultCard = Insertable<VaultCardTable>;
