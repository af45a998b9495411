/**
 * Background work run inside the server process (RUN_WORKERS=true): expiry, wallet payment recovery, acquirer recovery
 * (authorisations with an unknown outcome), webhook delivery and hourly housekeeping.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { startExpirySweeper } from './payments/jobs/expiry.ts';
import { WebhookWorker } from './events/worker.ts';
import { HOUSEKEEPING_INTERVAL_MS, runHousekeeping } from './housekeeping.ts';
import { startWalletRecovery } from './payments/jobs/wallet-recovery.ts';
import type { Ports } from './payments/ports.ts';
import { startAcquirerRecovery } from './payments/jobs/acquirer-recovery.ts';
import { databaseUnavailable } from './store/unavailable.ts';

/** The settings the workers read beside the ports': their intervals, housekeeping's retention and webhook delivery's. */
type WorkerSettings = Pick<Config, 'expirySweepIntervalMs' | 'acquirerRecoveryIntervalMs' | 'webhooks' | 'requestLogRetentionMs' | 'console'>;

export function startWorkers(config: WorkerSettings, ports: Ports, log: FastifyBaseLogger): () => Promise<void> {
  const { store } = ports;
  /**
   * A failed run's log line. The database away fails every run until it is back (the webhook worker
   * polls every WEBHOOK_POLL_INTERVAL_MS): a warn with its code, not a stack each time
   * (docs/operations.md "When the database is away"); any other failure is an error with its stack.
   */
  const failed = (what: string) => (err: unknown) =>
    databaseUnavailable(err) ? log.warn({ code: (err as { code?: unknown }).code }, `${what} failed: database unavailable`) : log.error({ err }, `${what} failed`);
  const stopExpiry = startExpirySweeper(ports, config.expirySweepIntervalMs, failed('expiry sweep'));
  const stopWalletRecovery = startWalletRecovery(ports, config.expirySweepIntervalMs, failed('wallet payment recovery'));
  const stopAcquirerRecovery = startAcquirerRecovery(ports, config.acquirerRecoveryIntervalMs, failed('acquirer recovery'));
  const purge = setInterval(() => {
    runHousekeeping(config, store).catch(failed('housekeeping'));
  }, HOUSEKEEPING_INTERVAL_MS);
  purge.unref();
  const webhooks = new WebhookWorker(store, { ...config.webhooks, onError: failed('webhook delivery') }).start();
  return async () => {
    clearInterval(purge);
    await Promise.all([stopExpiry(), stopWalletRecovery(), stopAcquirerRecovery(), webhooks.stop()]);
  };
}
