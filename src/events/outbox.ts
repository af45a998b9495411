/**
 * The webhook outbox (docs/decisions.md#webhooks): `transition()` calls `enqueueWebhook` in the unit
 * of work that changes the status, so the delivery row commits with the change or
 * not at all. Delivery happens later, outside any unit (worker.ts).
 */
import type { Db } from '../store/store.ts';
import { insertDelivery, webhookTargetOf } from '../store/webhooks.ts';
import { randomBase62 } from '../lib/tokens.ts';

/** Statuses the merchant is told about (docs/api.md#webhooks): the final ones, and a hold for review. */
export const notifiedStatuses: ReadonlySet<string> = new Set(['success', 'failed', 'manualintervention']);

/** The `webhook-id`: one per event, the same on every retry and redelivery. */
export const newWebhookId = () => `msg_${randomBase62(24)}`;

export interface OutcomeEvent {
  reference: string;
  to: string;
  failureCode?: string | null;
  at: number;
}

/**
 * Writes the delivery row for a status change, when the change is one the merchant is
 * told about and a webhook URL is configured (the payment's `webhookUrl` or its
 * merchant's). The URL itself is looked up again at each attempt, so a corrected URL
 * or rotated secret applies to retries. Returns the delivery id, if any.
 */
export async function enqueueWebhook(db: Db, event: OutcomeEvent): Promise<string | undefined> {
  if (!notifiedStatuses.has(event.to)) return undefined;
  return enqueueDelivery(db, { reference: event.reference, event: event.failureCode ? `${event.to}/${event.failureCode}` : event.to, at: event.at });
}

/**
 * Writes the delivery row for a dispute's new stage (docs/disputes.md "Webhooks"): every stage is
 * told, whatever its chargeback's status, as `chargeback/<stage>` for the operator.
 */
export async function enqueueDisputeWebhook(db: Db, event: { reference: string; stage: string; at: number }): Promise<string | undefined> {
  return enqueueDelivery(db, { reference: event.reference, event: `chargeback/${event.stage}`, at: event.at });
}

async function enqueueDelivery(db: Db, delivery: { reference: string; event: string; at: number }): Promise<string | undefined> {
  const target = await webhookTargetOf(db, delivery.reference);
  if (!target?.url) return undefined;
  const id = newWebhookId();
  await insertDelivery(db, { id, merchantId: target.merchant_id, mode: target.mode, reference: delivery.reference, event: delivery.event, at: delivery.at });
  return id;
}
