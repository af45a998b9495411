/**
 * The webhook backlog as the metrics show it (api/cockpit.ts reads it at scrape time): pending
 * deliveries, those due now and not claimed, and since when the oldest of those is due. Every
 * figure comes from the partial index of pending deliveries (002_webhooks), so a scrape reads
 * the backlog, never the delivered history.
 */
import { sql } from 'kysely';
import type { Db } from './store.ts';

export interface WebhookBacklog {
  pending: number;
  due: number;
  /** Epoch ms at which the longest-waiting due delivery became due; null when none is due. */
  oldestDueAt: number | null;
}

export async function readWebhookBacklog(db: Db, now: number): Promise<WebhookBacklog> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select([
      sql<number | string>`count(*)`.as('pending'),
      sql<number | string | null>`sum(case when next_attempt_at <= ${now} then 1 else 0 end)`.as('due'),
      sql<number | string | null>`min(case when next_attempt_at <= ${now} then next_attempt_at end)`.as('oldest_due_at'),
    ])
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), due: Number(row.due ?? 0), oldestDueAt: row.oldest_due_at === null ? null : Number(row.oldest_due_at) };
}
