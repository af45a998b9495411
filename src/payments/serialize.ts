/** The payment object of docs/api.md#the-payment-object, exactly: built from a stored transaction row. */
import type { TransactionRow } from '../store/schema.ts';
import { amountNumber, findCurrency } from '../ground/amount.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import type { ThreeDSData } from '../threeds/fields.ts';
import { threeDSDataOf } from '../threeds/echo.ts';
import { addressesOf } from './flows.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { pageTokenOf } from '../lib/tokens.ts';
import { bindings } from '../store/secrets.ts';

/** What a payment's addresses are made of: the public root, and the secrets key that gives each payment's capability token. */
export interface PaymentLinks {
  publicUrl: string;
  secrets: SecretBox;
}

/**
 * The capability token in a payment's addresses: derived from its reference with the secrets
 * key, or for a payment created before tokens were derived, its own token, kept sealed
 * (store/migrations/007_sealed_secrets.ts). The same on every read and every process.
 */
export function pageTokenOfPayment(row: Pick<TransactionRow, 'reference' | 'page_token_sealed'>, secrets: SecretBox): string {
  return row.page_token_sealed === null ? pageTokenOf(secrets, row.reference) : secrets.open(row.page_token_sealed, bindings.pageToken(row.reference));
}

export const payUrlOf = (publicUrl: string, pageToken: string) => `${publicUrl}/pay/${pageToken}`;
export const cancelUrlOf = (publicUrl: string, pageToken: string) => `${publicUrl}/api/v1/cancel/${pageToken}`;
export const cardDataUrlOf = (publicUrl: string, pageToken: string) => `${publicUrl}/api/v1/card-data/${pageToken}`;

/** The `request` column: validated request data kept for the payment's later steps. */
export interface StoredRequest {
  threeDS: unknown;
  storeInVault?: boolean;
  preselectedBrand?: string;
  orderLines?: unknown[];
  [key: string]: unknown;
}

/** The `request` column of a payment (not an enrollment). */
export interface StoredPaymentRequest extends StoredRequest {
  threeDS: ThreeDSData;
  storeInVault?: boolean;
  preselectedBrand?: CardBrand;
  /** Vault payments: the stored card to pay with (found by its access token at creation). */
  vaultCardId?: string;
  /** The customer's bank the merchant named, for a method paid elsewhere (its BIC). */
  issuer?: string;
}

/**
 * The `request` column with its 3-D Secure data whole again: a payment stores the fields it echoes
 * once, in `echo` (pending-transaction.ts); rows stored before keep them in both, and the same values.
 * A field left out for its format is echoed for the merchant but does not come back (docs/threeds.md).
 */
export function storedRequestOf(row: Pick<TransactionRow, 'request' | 'echo'>): StoredPaymentRequest {
  const stored = JSON.parse(row.request) as StoredPaymentRequest;
  if (stored.threeDS !== undefined && row.echo !== '{}') stored.threeDS = threeDSDataOf(JSON.parse(row.echo) as Record<string, unknown>, stored.threeDS);
  return stored;
}

/** The columns the payment object is built from (the large `request` column is not needed). */
export type SerializableRow = Omit<TransactionRow, 'request' | 'card_last_four'>;

/** The columns of a transaction row that may change after its creation and show in its payment object. */
export type ChangingColumns = Pick<SerializableRow, 'status' | 'failure_code' | 'last_update' | 'brand' | 'details'>;

export const changingColumnsOf = ({ status, failure_code, last_update, brand, details }: ChangingColumns): ChangingColumns => ({
  status,
  failure_code,
  last_update,
  brand,
  details,
});

/**
 * An authorisation claimed by a capture or reversal being asked of the acquirer
 * (authorisation.ts `ClaimedStatus`) is shown `authorised`, the spec's word for it until the
 * answer completes it (docs/acquirers.md "Claims and leases").
 */
const shownCaptureStatus: Record<string, string> = { capturing: 'authorised', reversing: 'authorised' };

function shownDetails(stored: string): Record<string, unknown> {
  const details = JSON.parse(stored) as Record<string, unknown>;
  const shown = shownCaptureStatus[details.captureStatus as string];
  return shown === undefined ? details : { ...details, captureStatus: shown };
}

/** `pageToken`: the row's capability token when the caller has it already (a create derived it for the row). */
export function serializePayment(row: SerializableRow, { publicUrl, secrets }: PaymentLinks, pageToken = pageTokenOfPayment(row, secrets)): Record<string, unknown> {
  const currency = findCurrency(row.currency)!;
  const answer = addressesOf(row);
  const payment: Record<string, unknown> = {
    reference: row.reference,
    created: row.created,
    lastUpdate: row.last_update,
    method: row.method,
    type: row.type,
    status: row.status,
    amount: amountNumber(row.amount_minor, currency),
    currency: row.currency,
    language: row.language,
  };
  if (row.failure_code) payment.failureCode = row.failure_code;
  if (row.return_url) payment.returnUrl = row.return_url;
  if (answer.payUrl) payment.payUrl = payUrlOf(publicUrl, pageToken);
  if (answer.cancelUrl) payment.cancelUrl = cancelUrlOf(publicUrl, pageToken);
  if (answer.cardDataUrl) payment.cardDataUrl = cardDataUrlOf(publicUrl, pageToken);
  if (row.merchant_order_reference) payment.merchantOrderReference = row.merchant_order_reference;
  if (row.description) payment.description = row.description;
  if (row.metadata) payment.metadata = row.metadata;
  payment.paidout = 'no';
  payment.entryMode = 'ecom';
  if (row.brand) payment.brand = row.brand;
  if (row.parent_reference) payment.parentReference = row.parent_reference;
  payment.details = shownDetails(row.details);
  return row.echo === '{}' ? payment : Object.assign(payment, JSON.parse(row.echo));
}
