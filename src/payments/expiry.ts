/**
 * Expiry of pending payments (DESIGN §3): a pending payment past its `expires_at`
 * becomes failed/expired. Safe with many Kassa processes on one database: on
 * PostgreSQL candidates are claimed with FOR UPDATE SKIP LOCKED, and each change is
 * the usual compare-and-set, so a payment completed meanwhile is left alone.
 */
import type { Store } from '../store/store.ts';
import { claimDuePayments } from '../store/transactions.ts';
import { transition } from './transition.ts';
import { runEvery } from '../lib/periodic.ts';

const BATCH = 200;

/** Expires what is due at `now`; returns the references it expired. */
export async function expireDuePayments(store: Store, now = Date.now()): Promise<string[]> {
  return store.transact(async (db) => {
    const due = await claimDuePayments(db, store.dialect, now, BATCH);
    const expired: string[] = [];
    for (const { reference } of due) {
      if (await transition(db, { reference, from: 'pending', to: 'failed', failureCode: 'expired', cause: 'expired', at: now })) {
        expired.push(reference);
      }
    }
    return expired;
  });
}

/** Runs `expireDuePayments` every `intervalMs` until stopped. */
export function startExpirySweeper(store: Store, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  return runEvery(intervalMs, async () => {
    while ((await expireDuePayments(store)).length === BATCH);
  }, onError);
}
