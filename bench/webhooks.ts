/**
 * Webhook delivery throughput (target: ≥ 1,000 webhooks/s on SQLite): a batch of
 * committed outcomes in the outbox, one delivery worker with the production settings,
 * and a receiver on 127.0.0.1 that answers 200 at once, in its own thread so it does not
 * share the worker's event loop. Counts deliveries recorded as delivered per second of
 * wall time. Bounded: at most EVENTS deliveries and TIME_BUDGET_MS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/store.ts';
import { createMerchant } from '../src/merchants/merchants.ts';
import { setWebhookUrl } from '../src/events/admin.ts';
import { WebhookWorker } from '../src/events/worker.ts';
import { insertTransaction } from '../src/store/transactions.ts';
import { transition } from '../src/payments/transition.ts';
import { pendingPaymentRow } from '../test/events/support.ts';

const EVENTS = 10_000;
const TIME_BUDGET_MS = 20_000;

/** Answers every POST with 200 as soon as its body has arrived. */
const RECEIVER = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
let received = 0;
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => { received++; response.writeHead(200, { 'content-length': '0' }).end(); });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => { parentPort.postMessage({ received }); server.closeAllConnections(); server.close(); });
`;

export async function measureWebhookThroughput(): Promise<{ deliveredPerSecond: number; events: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-bench-webhooks-'));
  const receiver = new Worker(RECEIVER, { eval: true });
  const env = { DATA_DIR: path.join(dir, 'data'), KEY_DIR: path.join(dir, 'keys') };
  const store = await openStore(loadConfig(env));
  try {
    const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', resolve));
    await store.migrate();
    const { merchantId } = await createMerchant(store, 'Bench Shop');
    await setWebhookUrl(store, merchantId, `http://127.0.0.1:${port}/webhooks`);
    await fillOutbox(store, merchantId, EVENTS);

    const config = loadConfig(env);
    const worker = new WebhookWorker(store, { ...config.webhooks, onError: (error) => console.error(error) });
    const started = performance.now();
    worker.start();
    const deadline = Date.now() + TIME_BUDGET_MS;
    let delivered = 0;
    while (Date.now() < deadline) {
      delivered = await countDelivered(store);
      if (delivered >= EVENTS) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    delivered = await countDelivered(store);
    return { deliveredPerSecond: Math.round(delivered / seconds), events: delivered };
  } finally {
    receiver.postMessage('stop');
    await new Promise((resolve) => receiver.once('message', resolve));
    await receiver.terminate();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `count` pending payments moved to success through transition(), so the outbox holds one delivery each. */
async function fillOutbox(store: Awaited<ReturnType<typeof openStore>>, merchantId: string, count: number) {
  const now = Date.now();
  for (let done = 0; done < count; done += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, count - done) }, () =>
        store.transact(async (db) => {
          const row = { ...pendingPaymentRow(store.secrets, merchantId), created: now, last_update: now };
          const { reference } = row;
          await insertTransaction(db, row, 'created');
          await transition(db, { reference, from: 'pending', to: 'success', cause: 'acquirer_authorised', at: now });
        }),
      ),
    );
  }
}

async function countDelivered(store: Awaited<ReturnType<typeof openStore>>): Promise<number> {
  const row = await store.read
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'delivered')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureWebhookThroughput();
  console.log(`webhook delivery (SQLite, local receiver answering 200): ${result.deliveredPerSecond} webhooks/s over ${result.events} deliveries`);
}
