/**
 * Operator side of webhooks (DESIGN §3 "Webhooks"; docs/webhooks.md): a merchant's URL and signing secret,
 * the list of deliveries with their attempts, and redelivery. Used by the admin CLI.
 */
import type { Store } from '../store/store.ts';
import { findMerchant } from '../store/merchants.ts';
import { attemptsOf, findDelivery, findMerchantWebhook, listDeliveries, requeueDelivery, upsertMerchantWebhook } from '../store/webhooks.ts';
import { checkHttpUrl } from '../lib/urls.ts';
import { newWebhookSecret } from './signing.ts';

export interface WebhookEndpoint {
  merchantId: string;
  url: string | null;
  secret: string;
}

export class AdminError extends Error {}

/** Sets (or with `null` removes) the merchant's webhook URL; a secret is created on first use and kept after. */
export async function setWebhookUrl(store: Store, merchantId: string, url: string | null, now = Date.now()): Promise<WebhookEndpoint> {
  if (url !== null) {
    const check = checkHttpUrl(url);
    if (!check.ok) throw new AdminError(`--url ${check.message}`);
  }
  return store.transact(async (db) => {
    await requireMerchant(db, merchantId);
    const secret = (await findMerchantWebhook(db, merchantId))?.secret ?? newWebhookSecret();
    await upsertMerchantWebhook(db, { merchantId, url, secret, updated: now });
    return { merchantId, url, secret };
  });
}

/** The merchant's endpoint; a merchant that never had one gets its secret now, so it can verify per-payment webhooks. */
export async function showWebhook(store: Store, merchantId: string, now = Date.now()): Promise<WebhookEndpoint> {
  return store.transact(async (db) => {
    await requireMerchant(db, merchantId);
    const existing = await findMerchantWebhook(db, merchantId);
    if (existing) return { merchantId, url: existing.url, secret: existing.secret };
    const secret = newWebhookSecret();
    await upsertMerchantWebhook(db, { merchantId, url: null, secret, updated: now });
    return { merchantId, url: null, secret };
  });
}

/** A new secret, used for every attempt from now on (retries of earlier events included). */
export async function rotateWebhookSecret(store: Store, merchantId: string, now = Date.now()): Promise<WebhookEndpoint> {
  return store.transact(async (db) => {
    await requireMerchant(db, merchantId);
    const url = (await findMerchantWebhook(db, merchantId))?.url ?? null;
    const secret = newWebhookSecret();
    await upsertMerchantWebhook(db, { merchantId, url, secret, updated: now });
    return { merchantId, url, secret };
  });
}

export interface AttemptView {
  at: number;
  durationMs: number;
  url: string | null;
  statusCode: number | null;
  error: string | null;
  nextRetryAt: number | null;
}

export interface DeliveryView {
  id: string;
  reference: string;
  mode: string;
  event: string;
  state: 'pending' | 'delivered' | 'failed';
  created: number;
  attempts: number;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  attemptLog: AttemptView[];
}

export async function deliveriesOf(store: Store, filter: { merchantId: string; reference?: string; limit?: number }): Promise<DeliveryView[]> {
  await requireMerchant(store.read, filter.merchantId);
  const deliveries = await listDeliveries(store.read, { ...filter, limit: filter.limit ?? 50 });
  const attempts = await attemptsOf(
    store.read,
    deliveries.map((d) => d.id),
  );
  return deliveries.map((d) => ({
    id: d.id,
    reference: d.reference,
    mode: d.mode,
    event: d.event,
    state: d.state,
    created: d.created,
    attempts: d.attempts,
    nextAttemptAt: d.state === 'pending' ? d.next_attempt_at : null,
    deliveredAt: d.delivered_at,
    attemptLog: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({ at: a.at, durationMs: a.duration_ms, url: a.url, statusCode: a.status_code, error: a.error, nextRetryAt: a.next_retry_at })),
  }));
}

/** Sends a delivery again now, from the start of the retry schedule, with the same `webhook-id`. */
export async function redeliver(store: Store, deliveryId: string, now = Date.now()): Promise<{ id: string; reference: string }> {
  return store.transact(async (db) => {
    const delivery = await findDelivery(db, deliveryId);
    if (!delivery) throw new AdminError(`no webhook delivery with id ${deliveryId}`);
    await requeueDelivery(db, deliveryId, now);
    return { id: delivery.id, reference: delivery.reference };
  });
}

async function requireMerchant(db: Store['read'], merchantId: string) {
  if (!(await findMerchant(db, merchantId))) throw new AdminError(`no merchant with id ${merchantId}`);
}
