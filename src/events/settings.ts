/**
 * Webhook delivery settings (WEBHOOK_* variables), declared here with their defaults and
 * descriptions (lib/settings.ts) and composed by config.ts. The lease must exceed the timeout, so
 * a live claim never expires while its request is still running.
 */
import { parseIsoDuration } from '../lib/duration.ts';
import { boolean, duration, integer, invalid, setting, SettingError, value, type Env } from '../lib/settings.ts';
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

const variables = {
  timeoutMs: integer(10_000, { name: 'WEBHOOK_TIMEOUT_MS', min: 1, description: 'A webhook receiver must answer 2xx within this' }),
  concurrency: integer(64, { name: 'WEBHOOK_CONCURRENCY', min: 1, description: 'Webhook deliveries in flight per process' }),
  batchSize: integer(100, { name: 'WEBHOOK_BATCH_SIZE', min: 1, description: 'Deliveries claimed per database round trip' }),
  leaseMs: integer(60_000, {
    name: 'WEBHOOK_LEASE_MS',
    min: 1,
    description: "How long a worker's claim lasts; a crashed worker's deliveries are retried after it (must exceed the timeout)",
  }),
  pollIntervalMs: integer(250, { name: 'WEBHOOK_POLL_INTERVAL_MS', min: 1, description: 'How often an idle delivery worker looks for due webhooks' }),
  retryScheduleMs: setting({
    name: 'WEBHOOK_RETRY_SCHEDULE',
    type: 'ISO 8601 duration list',
    shownDefault: '`PT1M,PT5M,PT30M,PT2H,PT6H,PT12H,PT24H,PT24H`',
    description: 'Waits after each failed attempt (about 3 days); then the delivery is given up and stays visible',
    read: (raw) => {
      if (raw === undefined || raw.trim() === '') return [...defaultRetrySchedule];
      return raw.split(',').map((part) => {
        const ms = parseIsoDuration(part.trim());
        if (ms === undefined || ms <= 0) throw invalid('WEBHOOK_RETRY_SCHEDULE', 'a list of positive ISO 8601 durations such as PT1M,PT5M', part.trim());
        return ms;
      });
    },
  }),
  retentionMs: duration('P30D', {
    name: 'WEBHOOK_RETENTION',
    description: 'How long a finished delivery (delivered or given up) and its attempts stay visible; the hourly housekeeping then deletes them',
  }),
  testPrivateNetworks: boolean(true, {
    name: 'WEBHOOK_TEST_PRIVATE_NETWORKS',
    description:
      "Test-mode webhooks may go to loopback and private networks (`127.0.0.0/8`, `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `100.64.0.0/10`, `::1`, `fc00::/7`), so a receiver on the merchant's own machine works in the quickstart. Turn it off in production ([below](#running-in-production)). Link-local and cloud-metadata addresses are refused in every mode whatever this says; live webhooks reach public addresses only",
  }),
};

export const webhookVariables = Object.values(variables);

export function loadWebhookSettings(env: Env): WebhookSettings {
  const settings: WebhookSettings = {
    timeoutMs: value(env, variables.timeoutMs),
    concurrency: value(env, variables.concurrency),
    batchSize: value(env, variables.batchSize),
    leaseMs: value(env, variables.leaseMs),
    pollIntervalMs: value(env, variables.pollIntervalMs),
    retryScheduleMs: value(env, variables.retryScheduleMs),
    retentionMs: value(env, variables.retentionMs),
    testPrivateNetworks: value(env, variables.testPrivateNetworks),
  };
  if (settings.leaseMs <= settings.timeoutMs) {
    throw new SettingError(`WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS (${settings.timeoutMs}), got "${settings.leaseMs}"`);
  }
  return settings;
}
