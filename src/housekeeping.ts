/**
 * Hourly housekeeping (run with the background workers): idempotency records go after
 * their 24 hours (docs/decisions.md#idempotency), finished webhook deliveries — delivered or given up —
 * with their attempts after WEBHOOK_RETENTION, console sessions expired or idle past
 * CONSOLE_IDLE_TIMEOUT, the counts of console sign-in attempts whose window has ended
 * (operators/sessions.ts), and the request log's entries after
 * REQUEST_LOG_RETENTION (docs/api.md "Request log"). Each purge deletes in batches of one
 * unit of work, oldest first, so the writer is never held long however much is due.
 */
import type { Config } from './config.ts';
import type { Db, Store } from './store/store.ts';
import { RETENTION_MS } from './payments/runner/idempotency.ts';
import { deleteExpiredRecords } from './store/idempotency-records.ts';
import { deleteFinishedDeliveries } from './store/webhooks.ts';
import { deleteEndedSignInWindows, deleteExpiredSessions } from './store/operators.ts';
import { ADDRESS_WINDOW_MS } from './operators/sessions.ts';
import { deleteOldRequestLog } from './store/request-log.ts';

export const HOUSEKEEPING_INTERVAL_MS = 3600_000;
const BATCH = 1000;

async function purgeInBatches(store: Store, deleteBatch: (db: Db, limit: number) => Promise<number>): Promise<number> {
  let purged = 0;
  for (;;) {
    const deleted = await store.transact((db) => deleteBatch(db, BATCH));
    purged += deleted;
    if (deleted < BATCH) return purged;
  }
}

export async function runHousekeeping(config: Pick<Config, 'webhooks' | 'requestLogRetentionMs' | 'console'>, store: Store, now = Date.now()) {
  return {
    idempotencyRecords: await purgeInBatches(store, (db, limit) => deleteExpiredRecords(db, now - RETENTION_MS, limit)),
    webhookDeliveries: await purgeInBatches(store, (db, limit) => deleteFinishedDeliveries(db, now - config.webhooks.retentionMs, limit)),
    consoleSessions: await purgeInBatches(store, (db, limit) => deleteExpiredSessions(db, now, now - config.console.idleTimeoutMs, limit)),
    signInWindows: await purgeInBatches(store, (db, limit) =>
      deleteEndedSignInWindows(db, store.dialect, now - Math.max(ADDRESS_WINDOW_MS, config.console.lockoutMs), limit),
    ),
    requestLog: await purgeInBatches(store, (db, limit) => deleteOldRequestLog(db, now - config.requestLogRetentionMs, limit)),
  };
}
