/**
 * Operator side of webhooks (docs/webhooks.md): a merchant's URL and signing secret,
 * the list of deliveries with their attempts, redelivery and test webhooks. Used by the admin CLI and the console.
 */
import type { Db, Store } from '../store/store.ts';
import { findMerchant } from '../store/merchants.ts';
import { attemptsOf, findDelivery, findMerchantWebhook, insertDelivery, listDeliveries, requeueDelivery, upsertMerchantWebhook } from '../store/webhooks.ts';
import type { Mode } from '../store/schema.ts';
import { bindings } from '../store/secrets.ts';
import { checkHttpUrl } from '../lib/urls.ts';
import { newWebhookSecret, randomBase62 } from '../lib/tokens.ts';
import { newWebhookId } from './outbox.ts';
import { whyRefused, widestReach } from './ssrf.ts';
import { invalidSetting, Problem } from '../ground/problem.ts';

export interface WebhookEndpoint {
  merchantId: string;
  url: string | null;
  secret: string;
}

/**
 * Sets (or with `null` removes) the merchant's webhook URL; its secret stays.
 * The URL serves both modes, so only what no webhook may reach is refused here (ssrf.ts); each attempt is checked against its own mode.
 */
export async function setWebhookUrl(store: Store, merchantId: string, url: string | null, now = Date.now()): Promise<WebhookEndpoint> {
  if (url !== null) {
    const check = checkHttpUrl(url);
    if (!check.ok) throw invalidSetting('url', check.message);
    const refused = whyRefused(new URL(url), widestReach);
    if (refused) throw invalidSetting('url', `is refused for webhooks in every mode: ${refused}`);
  }
  return store.transact(async (db) => {
    const { secret } = await endpointOf(store, db, merchantId);
    await upsertMerchantWebhook(db, { merchantId, url, secret: sealed(store, merchantId, secret), updated: now });
    return { merchantId, url, secret };
  });
}

/** The merchant's URL and signing secret. */
export async function showWebhook(store: Store, merchantId: string): Promise<WebhookEndpoint> {
  return endpointOf(store, store.read, merchantId);
}

/** A new secret, used for every attempt from now on (retries of earlier events included). */
export async function rotateWebhookSecret(store: Store, merchantId: string, now = Date.now()): Promise<WebhookEndpoint> {
  return store.transact(async (db) => {
    const { url } = await endpointOf(store, db, merchantId);
    const secret = newWebhookSecret();
    await upsertMerchantWebhook(db, { merchantId, url, secret: sealed(store, merchantId, secret), updated: now });
    return { merchantId, url, secret };
  });
}

/** The `reference` of a test webhook's body: no transaction has it, so a receiver can tell a test from a payment's event. */
export const TEST_WEBHOOK_PREFIX = 'whtest_';

/**
 * A test event through the outbox to the merchant's webhook URL, signed and retried like any
 * other, so its attempts show with the deliveries. Its body names `whtest_…` instead of a
 * payment; `mode` decides which addresses it may reach, as for a payment of that mode.
 */
export async function sendTestWebhook(store: Store, merchantId: string, mode: Mode, now = Date.now()): Promise<{ id: string; reference: string }> {
  return store.transact(async (db) => {
    const { url } = await endpointOf(store, db, merchantId);
    if (url === null) throw invalidSetting('url', 'is not set: a test webhook goes to the merchant’s webhook URL');
    const delivery = { id: newWebhookId(), reference: `${TEST_WEBHOOK_PREFIX}${randomBase62(16)}` };
    await insertDelivery(db, { ...delivery, merchantId, mode, event: 'test', at: now });
    return delivery;
  });
}

/** Every merchant has an endpoint row with its secret from its creation on (merchants.ts; 007_sealed_secrets for earlier ones). */
async function endpointOf(store: Store, db: Db, merchantId: string): Promise<WebhookEndpoint> {
  await requireMerchant(db, merchantId);
  const row = (await findMerchantWebhook(db, merchantId))!;
  return { merchantId, url: row.url, secret: store.secrets.open(row.secret, bindings.webhookSecret(merchantId)) };
}

const sealed = (store: Store, merchantId: string, secret: string) => store.secrets.seal(secret, bindings.webhookSecret(merchantId));

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

export async function deliveriesOf(store: Store, filter: { merchantId: string; reference?: string; event?: string; limit?: number }): Promise<DeliveryView[]> {
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
    if (!delivery) throw new Problem('invalidSetting', `no webhook delivery with id ${deliveryId}`);
    await requeueDelivery(db, deliveryId, now);
    return { id: delivery.id, reference: delivery.reference };
  });
}

async function requireMerchant(db: Db, merchantId: string) {
  if (!(await findMerchant(db, merchantId))) throw new Problem('invalidSetting', `no merchant with id ${merchantId}`);
}
