/**
 * Create a payment (docs/api.md#create-a-payment): validate → decide → store, in one unit of work.
 * The response is the payment object with status `pending` and a `payUrl`.
 */
import { Problem } from '../ground/problem.ts';
import type { VaultCardRow } from '../store/schema.ts';
import type { Caller } from '../merchants/merchants.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import { isExpired } from './requests/card-input.ts';
import { parsePaymentRequest, type PaymentRequest } from './requests/payment-request.ts';
import type { RequestRules } from './requests/rows.ts';
import { pendingTransactionRow, type PlannedTransaction } from './pending-transaction.ts';
import { cardView } from '../vault/vault.ts';
import { flowOf } from './flows.ts';
import type { SecretBox } from '../lib/secret-box.ts';

export interface CreateContext {
  caller: Caller;
  defaultExpiryMs: number;
  defaultExpiry: string;
  now: number;
  /** Vault payments: the caller's card found by `details.vaultAccessToken` (a read before the unit of work), if any. */
  vaultCard?: VaultCardRow;
  secrets: SecretBox;
}

/** What an operation's run gives a creation: its caller and clock, the configured default expiry and the secrets key, with the vault card it read. */
export function creationContext(
  { caller, now, ports }: { caller: Caller; now: number; ports: { settings: { paymentExpiry: string; paymentExpiryMs: number }; links: { secrets: SecretBox } } },
  vaultCard: VaultCardRow | undefined,
): CreateContext {
  return { caller, now, defaultExpiry: ports.settings.paymentExpiry, defaultExpiryMs: ports.settings.paymentExpiryMs, vaultCard, secrets: ports.links.secrets };
}

/** Validates `body` against the caller's settings and the request rules (webhookUrl reach, returnUrl schemes); throws a 422 Problem listing every failing field. */
export function validatePaymentBody(body: Record<string, unknown>, caller: Caller, rules: RequestRules): PaymentRequest {
  const { errors, request } = parsePaymentRequest(body, { settings: caller.settings, ...rules });
  if (!request) throw new Problem('validationFailed', { errors });
  return request;
}

/** The new payment's row, decided without I/O: validation and building happen outside the unit of work. */
export function planPayment(request: PaymentRequest, ctx: CreateContext): PlannedTransaction {
  const flow = flowOf(request.flow);
  if (flow.creation === 'vault-card') return planVaultPayment(request, ctx);
  return pendingTransactionRow(request, {
    owner: ctx.caller,
    method: request.method,
    type: request.type,
    flow: request.flow,
    amountMinor: request.amountMinor,
    currency: request.currency.code,
    storedRequest: { storeInVault: request.storeInVault, preselectedBrand: request.brand, orderLines: request.orderLines, issuer: request.issuer },
    details: flow.expiryInDetails ? { expirationDuration: request.expirationDuration ?? ctx.defaultExpiry } : {},
    now: ctx.now,
    expiresAt: ctx.now + (request.expirationMs ?? ctx.defaultExpiryMs),
    secrets: ctx.secrets,
  });
}

/**
 * A vault payment (docs/api.md#create-a-payment): a card payment whose card is the caller's stored card. Its
 * brand, masked number and cardholder name show from creation on (docs/api.md#the-payment-object, docs/api.md#the-details-object); the
 * card's id is kept for the page, which decrypts the number only to authorise.
 */
function planVaultPayment(request: PaymentRequest, ctx: CreateContext): PlannedTransaction {
  const card = ctx.vaultCard;
  if (!card)
    throw new Problem('validationFailed', {
      errors: [{ field: '/details/vaultAccessToken', code: 'unknown', message: 'is not a vault access token of this merchant and mode' }],
    });
  if (isExpired({ month: card.expiry_month, year: card.expiry_year }, new Date(ctx.now))) {
    throw new Problem('validationFailed', {
      errors: [
        {
          field: '/details/vaultAccessToken',
          code: 'card_expired',
          message: `is a card that expired at the end of ${String(card.expiry_month).padStart(2, '0')}/${card.expiry_year}`,
        },
      ],
    });
  }
  if (!ctx.caller.settings.cardBrands.includes(card.brand as CardBrand)) {
    throw new Problem('validationFailed', {
      errors: [{ field: '/details/vaultAccessToken', code: 'brand_not_accepted', message: `is a ${card.brand} card, a brand this merchant no longer accepts` }],
    });
  }
  const { row, pageToken } = pendingTransactionRow(request, {
    owner: ctx.caller,
    method: request.method,
    type: request.type,
    flow: request.flow,
    amountMinor: request.amountMinor,
    currency: request.currency.code,
    storedRequest: { vaultCardId: card.id, orderLines: request.orderLines },
    details: cardView(card),
    now: ctx.now,
    expiresAt: ctx.now + (request.expirationMs ?? ctx.defaultExpiryMs),
    secrets: ctx.secrets,
  });
  return { row: { ...row, brand: card.brand }, pageToken };
}
