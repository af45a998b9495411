/**
 * `kassa webhook …` (docs/webhooks.md): a merchant's webhook URL and signing secret, the
 * deliveries with their attempts, and redelivery. Registered by kassa.ts.
 */
import { Command, InvalidArgumentError } from 'commander';
import { print, withStore, withStoreForReading } from './store.ts';
import { webhookReach, whyRefused } from '../events/ssrf.ts';
import { loadConfig } from '../config.ts';
import { deliveriesOf, redeliver, rotateWebhookSecret, sendTestWebhook, setWebhookUrl, showWebhook, type DeliveryView, type WebhookEndpoint } from '../events/admin.ts';
import type { Mode } from '../store/schema.ts';

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

function describeEndpoint(endpoint: WebhookEndpoint): string {
  const lines = [
    `merchant ${endpoint.merchantId}`,
    `  url:    ${endpoint.url ?? '(none: only payments with their own webhookUrl are notified)'}`,
    `  secret: ${endpoint.secret}`,
  ];
  // What each mode's attempts will refuse under this configuration (names are checked only when connecting).
  const settings = loadConfig().webhooks;
  for (const mode of ['live', 'test'] as const) {
    const refused = endpoint.url === null ? undefined : whyRefused(new URL(endpoint.url), webhookReach(mode, settings));
    if (refused) lines.push(`  note:   ${mode}-mode webhooks are not sent here: ${refused}`);
  }
  return lines.join('\n');
}

function describeDelivery(d: DeliveryView): string {
  const head = `${d.id}  ${d.reference}  ${d.mode}  ${d.event}  ${d.state}  created ${time(d.created)}  attempts ${d.attempts}`;
  const next = d.state === 'pending' ? `\n  next attempt ${time(d.nextAttemptAt)}` : '';
  const attempts = d.attemptLog.map(
    (a) => `\n  ${time(a.at)}  ${a.statusCode ?? '---'}  ${a.durationMs} ms  ${a.error ?? 'ok'}${a.nextRetryAt !== null ? `  next retry ${time(a.nextRetryAt)}` : ''}`,
  );
  return head + attempts.join('') + next;
}

export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description("manage merchants' webhooks");

  webhook
    .command('set')
    .description("set a merchant's webhook URL (its signing secret stays)")
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--url <url>', 'absolute http(s) URL; an empty string removes it')
    .option('--json', 'print JSON')
    .action(({ merchant, url, json }: { merchant: string; url: string; json?: boolean }) =>
      withStore(async (store) => {
        const endpoint = await setWebhookUrl(store, merchant, url.trim() === '' ? null : url.trim());
        print(json ? JSON.stringify(endpoint) : describeEndpoint(endpoint));
      }),
    );

  webhook
    .command('show')
    .description("show a merchant's webhook URL and signing secret")
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print JSON')
    .action(({ merchant, json }: { merchant: string; json?: boolean }) =>
      withStoreForReading(async (store) => {
        const endpoint = await showWebhook(store, merchant);
        print(json ? JSON.stringify(endpoint) : describeEndpoint(endpoint));
      }),
    );

  webhook
    .command('rotate-secret')
    .description('replace the signing secret; every attempt from now on is signed with the new one')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print JSON')
    .action(({ merchant, json }: { merchant: string; json?: boolean }) =>
      withStore(async (store) => {
        const endpoint = await rotateWebhookSecret(store, merchant);
        print(json ? JSON.stringify(endpoint) : `${describeEndpoint(endpoint)}\nThe previous secret no longer signs anything.`);
      }),
    );

  webhook
    .command('test')
    .description("send a test event to the merchant's webhook URL through the outbox; its attempts list with `kassa webhook deliveries`")
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--mode <mode>', 'test or live: which addresses it may reach, as for a payment of that mode', 'test')
    .option('--json', 'print JSON')
    .action(({ merchant, mode, json }: { merchant: string; mode: string; json?: boolean }) =>
      withStore(async (store) => {
        if (mode !== 'test' && mode !== 'live') throw new InvalidArgumentError('--mode must be test or live');
        const queued = await sendTestWebhook(store, merchant, mode as Mode);
        print(
          json
            ? JSON.stringify({ ...queued, state: 'pending' })
            : `test webhook ${queued.id} (body {"id":"${queued.reference}"}) queued; a running Kassa sends it shortly`,
        );
      }),
    );

  webhook
    .command('deliveries')
    .description("list a merchant's webhook deliveries, newest first, with every attempt")
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--reference <reference>', 'only the deliveries of this transaction')
    .option('--limit <n>', 'at most this many deliveries (default 50)', (value) => {
      if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive whole number');
      return Number(value);
    })
    .option('--json', 'print JSON')
    .action(({ merchant, reference, limit, json }: { merchant: string; reference?: string; limit?: number; json?: boolean }) =>
      withStoreForReading(async (store) => {
        const deliveries = await deliveriesOf(store, { merchantId: merchant, reference, limit });
        if (json) return print(JSON.stringify(deliveries));
        print(deliveries.length === 0 ? 'no webhook deliveries' : deliveries.map(describeDelivery).join('\n'));
      }),
    );

  webhook
    .command('redeliver')
    .description('send a delivery again now (same webhook-id), from the start of the retry schedule')
    .requiredOption('--id <id>', 'delivery id (webhook-id), as listed by `kassa webhook deliveries`')
    .option('--json', 'print JSON')
    .action(({ id, json }: { id: string; json?: boolean }) =>
      withStore(async (store) => {
        const queued = await redeliver(store, id);
        print(json ? JSON.stringify({ ...queued, state: 'pending' }) : `delivery ${queued.id} (${queued.reference}) queued; a running Kassa sends it shortly`);
      }),
    );
}
