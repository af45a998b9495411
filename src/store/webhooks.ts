/** Webhook queries, nothing else: merchant endpoints, the delivery outbox, attempts. */
import type { Db } from './store.ts';
import type { Mode, WebhookDeliveryState } from './schema.ts';

export async function findMerchantWebhook(db: Db, merchantId: string) {
  return db.selectFrom('merchant_webhooks').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function upsertMerchantWebhook(db: Db, row: { merchantId: string; url: string | null; secret: string; updated: number }) {
  await db
    .insertInto('merchant_webhooks')
    .values({ merchant_id: row.merchantId, url: row.url, secret: row.secret, updated: row.updated })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ url: row.url, secret: row.secret, updated: row.updated }))
    .execute();
}

/** A new merchant's endpoint: its signing secret (sealed), no URL yet. */
export async function insertMerchantWebhook(db: Db, row: { merchantId: string; secret: string; updated: number }) {
  await db.insertInto('merchant_webhooks').values({ merchant_id: row.merchantId, url: null, secret: row.secret, updated: row.updated }).execute();
}

/** Where the webhook of `reference` goes: its own `webhookUrl`, else its merchant's URL. */
export async function webhookTargetOf(db: Db, reference: string) {
  return db
    .selectFrom('transactions as t')
    .leftJoin('merchant_webhooks as w', 'w.merchant_id', 't.merchant_id')
    .select((eb) => ['t.merchant_id', 't.mode', eb.fn.coalesce('t.webhook_url', 'w.url').as('url')])
    .where('t.reference', '=', reference)
    .executeTakeFirst();
}

export async function insertDelivery(db: Db, row: { id: string; merchantId: string; mode: Mode; reference: string; event: string; at: number }) {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: row.id,
      merchant_id: row.merchantId,
      mode: row.mode,
      reference: row.reference,
      event: row.event,
      created: row.at,
      state: 'pending',
      next_attempt_at: row.at,
      claim: null,
      last_attempt_at: null,
      last_status_code: null,
      last_error: null,
      delivered_at: null,
    })
    .execute();
}

export interface ClaimedDelivery {
  id: string;
  merchant_id: string;
  reference: string;
  mode: Mode;
  failures: number;
  url: string | null;
  /** The merchant's signing secret, sealed (store/secrets.ts). */
  secret: string | null;
}

/**
 * Claims up to `limit` due deliveries for `leaseUntil - now` ms under `claim`. Run in
 * a unit of work: on PostgreSQL the candidates are locked with FOR UPDATE SKIP LOCKED
 * so concurrent workers take disjoint sets; on SQLite the unit holds the write lock.
 * A claim pushes `next_attempt_at` to the lease's end, so a crashed worker's
 * deliveries become due again by themselves.
 */
export async function claimDueDeliveries(
  db: Db,
  options: { now: number; leaseUntil: number; claim: string; limit: number; skipLocked: boolean },
): Promise<ClaimedDelivery[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    // A test webhook (events/admin.ts) has no transaction: it goes to the merchant's URL.
    .leftJoin('transactions as t', 't.reference', 'd.reference')
    .leftJoin('merchant_webhooks as w', 'w.merchant_id', 'd.merchant_id')
    .select((eb) => ['d.id', 'd.merchant_id', 'd.reference', 'd.mode', 'd.failures', eb.fn.coalesce('t.webhook_url', 'w.url').as('url'), 'w.secret'])
    .where('d.state', '=', 'pending')
    .where('d.next_attempt_at', '<=', options.now)
    .orderBy('d.next_attempt_at')
    .limit(options.limit);
  if (options.skipLocked) query = query.forUpdate('d').skipLocked();
  const due = await query.execute();
  if (due.length === 0) return [];
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: options.leaseUntil, claim: options.claim })
    .where(
      'id',
      'in',
      due.map((d) => d.id),
    )
    .execute();
  return due;
}

export interface AttemptRecord {
  deliveryId: string;
  claim: string;
  at: number;
  durationMs: number;
  url: string | null;
  statusCode: number | null;
  error: string | null;
  /** The delivery's state after this attempt, and when it is tried next (pending only). */
  state: WebhookDeliveryState;
  nextRetryAt: number | null;
  failures: number;
}

/** Records an attempt and moves the delivery on, if the claim is still ours (a lapsed lease leaves it to its new owner). */
export async function recordAttempt(db: Db, attempt: AttemptRecord): Promise<boolean> {
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: attempt.deliveryId,
      at: attempt.at,
      duration_ms: attempt.durationMs,
      url: attempt.url,
      status_code: attempt.statusCode,
      error: attempt.error,
      next_retry_at: attempt.nextRetryAt,
    })
    .execute();
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      state: attempt.state,
      next_attempt_at: attempt.nextRetryAt,
      claim: null,
      attempts: eb('attempts', '+', 1),
      failures: attempt.failures,
      last_attempt_at: attempt.at,
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      ...(attempt.state === 'delivered' ? { delivered_at: attempt.at + attempt.durationMs } : {}),
    }))
    .where('id', '=', attempt.deliveryId)
    .where('claim', '=', attempt.claim)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findDelivery(db: Db, id: string) {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sends a delivery again from the start of the schedule, keeping its `webhook-id`. */
export async function requeueDelivery(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', next_attempt_at: now, claim: null, failures: 0 })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listDeliveries(db: Db, filter: { merchantId: string; reference?: string; event?: string; limit: number }) {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('merchant_id', '=', filter.merchantId);
  if (filter.reference) query = query.where('reference', '=', filter.reference);
  if (filter.event) query = query.where('event', '=', filter.event);
  return query.orderBy('created', 'desc').orderBy('id').limit(filter.limit).execute();
}

export async function attemptsOf(db: Db, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
}

/**
 * Deletes up to `limit` finished deliveries (delivered or given up) created before `before`,
 * with their attempts; returns how many. A delivery put back to pending meanwhile stays.
 */
export async function deleteFinishedDeliveries(db: Db, before: number, limit: number): Promise<number> {
  const oldest = db.selectFrom('webhook_deliveries').select('id').where('state', '<>', 'pending').where('created', '<', before).orderBy('created').limit(limit);
  const gone = await db.deleteFrom('webhook_deliveries').where('id', 'in', oldest).where('state', '<>', 'pending').returning('id').execute();
  if (gone.length > 0)
    await db
      .deleteFrom('webhook_attempts')
      .where(
        'delivery_id',
        'in',
        gone.map((row) => row.id),
      )
      .execute();
  return gone.length;
}
