/**
 * Webhook delivery settings, read from the environment by config.ts:
 * - WEBHOOK_TIMEOUT_MS (10000): a receiver must answer within this; longer is a failed attempt (DESIGN §3).
 * - WEBHOOK_CONCURRENCY (64): deliveries in flight at once per process.
 * - WEBHOOK_BATCH_SIZE (100): deliveries claimed per database round trip.
 * - WEBHOOK_LEASE_MS (60000): how long a claim lasts; a crashed worker's deliveries are retried after it.
 *   Must exceed the timeout, so a live claim never expires while its request is still running.
 * - WEBHOOK_POLL_INTERVAL_MS (250): how often an idle worker looks for due deliveries.
 * - WEBHOOK_RETRY_SCHEDULE (PT1M,PT5M,PT30M,PT2H,PT6H,PT12H,PT24H,PT24H): waits after each failed attempt,
 *   as ISO 8601 durations; after the last one the delivery is given up.
 * - WEBHOOK_RETENTION (P30D): how long a finished delivery (delivered or given up) and its attempts stay
 *   visible to `kassa webhook deliveries` before the hourly housekeeping deletes them.
 * - WEBHOOK_TEST_PRIVATE_NETWORKS (true): test-mode webhooks may go to loopback and private networks
 *   (ssrf.ts), so a merchant's local receiver works out of the box; production turns it off. Link-local
 *   and cloud-metadata addresses are refused whatever this says, and live webhooks never reach either.
 */
import { parseIsoDuration } from '../lib/duration.ts';
import { flag } from '../lib/flag.ts';
import { defaultRetrySchedule } from './schedule.ts';

export interface WebhookSettings {
  timeoutMs: number;
  concurrency: number;
  batchSize: number;
  leaseMs: number;
  pollIntervalMs: number;
  retryScheduleMs: number[];
  retentionMs: number;
  /** Test-mode webhooks may reach loopback and private networks. */
  testPrivateNetworks: boolean;
}

type Env = Record<string, string | undefined>;

export function loadWebhookSettings(env: Env): WebhookSettings {
  const settings: WebhookSettings = {
    timeoutMs: positive(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
    concurrency: positive(env, 'WEBHOOK_CONCURRENCY', 64),
    batchSize: positive(env, 'WEBHOOK_BATCH_SIZE', 100),
    leaseMs: positive(env, 'WEBHOOK_LEASE_MS', 60_000),
    pollIntervalMs: positive(env, 'WEBHOOK_POLL_INTERVAL_MS', 250),
    retryScheduleMs: schedule(env.WEBHOOK_RETRY_SCHEDULE),
    retentionMs: duration(env, 'WEBHOOK_RETENTION', 'P30D'),
    testPrivateNetworks: flag(env, 'WEBHOOK_TEST_PRIVATE_NETWORKS', true),
  };
  if (settings.leaseMs <= settings.timeoutMs) {
    throw new Error(`WEBHOOK_LEASE_MS (${settings.leaseMs}) must be longer than WEBHOOK_TIMEOUT_MS (${settings.timeoutMs})`);
  }
  return settings;
}

function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) === 0) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

function duration(env: Env, name: string, fallback: string): number {
  const raw = env[name] || fallback;
  const ms = parseIsoDuration(raw);
  if (ms === undefined || ms <= 0) throw new Error(`${name} must be a positive ISO 8601 duration such as ${fallback}, got "${raw}"`);
  return ms;
}

function schedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return [...defaultRetrySchedule];
  return raw.split(',').map((part) => {
    const ms = parseIsoDuration(part.trim());
    if (ms === undefined || ms <= 0) throw new Error(`WEBHOOK_RETRY_SCHEDULE must list ISO 8601 durations such as PT1M,PT5M; "${part.trim()}" is not one`);
    return ms;
  });
}
