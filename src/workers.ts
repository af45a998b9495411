/**
 * Background work run inside the server process (RUN_WORKERS=true): expiry, wallet payment recovery, acquirer recovery
 * (authorisations with an unknown outcome), webhook delivery and hourly housekeeping.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Store } from './store/store.ts';
import { startExpirySweeper } from './payments/expiry.ts';
import { WebhookWorker } from './events/worker.ts';
import { HOUSEKEEPING_INTERVAL_MS, runHousekeeping } from './housekeeping.ts';
import { startWalletRecovery } from './payments/wallet-recovery.ts';
import { paymentPorts } from './payments/ports.ts';
import { startAcquirerRecovery } from './payments/acquirer-recovery.ts';

export function startWorkers(config: Config, store: Store, log: FastifyBaseLogger): () => Promise<void> {
  const stopExpiry = startExpirySweeper(paymentPorts(config, store), config.expirySweepIntervalMs, (err) => log.error({ err }, 'expiry sweep failed'));
  const stopWalletRecovery = startWalletRecovery(paymentPorts(config, store), config.expirySweepIntervalMs, (err) =>
    log.error({ err }, 'wallet payment recovery failed'),
  );
  const stopAcquirerRecovery = startAcquirerRecovery(paymentPorts(config, store), config.acquirerRecoveryIntervalMs, (err) =>
    log.error({ err }, 'acquirer recovery failed'),
  );
  const purge = setInterval(() => {
    runHousekeeping(config, store).catch((err) => log.error({ err }, 'housekeeping failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  purge.unref();
  const webhooks = new WebhookWorker(store, { ...config.webhooks, onError: (err) => log.error({ err }, 'webhook delivery failed') }).start();
  return async () => {
    clearInterval(purge);
    await Promise.all([stopExpiry(), stopWalletRecovery(), stopAcquirerRecovery(), webhooks.stop()]);
  };
}
