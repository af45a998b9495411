/**
 * Crash safety of webhooks (docs/decisions.md#webhooks, docs/architecture.md#quality-bars): the real server process is killed
 * with SIGKILL after outcomes committed — once before any delivery was attempted, once
 * while the deliveries were in flight to a receiver that had not answered — and after
 * a restart every outcome is acknowledged exactly once, with its original webhook-id.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createMerchant, type CreatedMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { backends, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { startReceiver, waitFor, type Receiver } from './support.ts';
import { KASSA_MAIN } from '../support/process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Server {
  url: string;
  process: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

/** Kassa (test/support/process.ts KASSA_MAIN) on the test database, listening on a free port of 127.0.0.1. */
async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, KASSA_MAIN, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', DEMO_MERCHANT: 'false', LOG_REQUESTS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = `exited with ${signal ?? code}`;
      resolve();
    }),
  );
  const listening = () => {
    if (exit) throw new Error(`the server ${exit}`);
    return /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  };
  const url = await waitFor('the server to listen', listening, 30_000, 25).catch((error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}; its output:\n${output}`);
  });
  return { url, process: child, exited, output: () => output };
}

async function killHard(server: Server) {
  server.process.kill('SIGKILL');
  await server.exited;
}

for (const backend of backends) {
  describe(`webhooks survive kill -9 (${backend})`, () => {
    let database: TestDatabase;
    let store: Store;
    let merchant: CreatedMerchant;
    let receiver: Receiver;
    let secret = '';
    const servers: Server[] = [];

    before(async () => {
      database = await createTestDatabase(backend);
      store = await openStore(loadConfig(database.env));
      await store.migrate();
      merchant = await createMerchant(store, 'Crash Shop');
      receiver = await startReceiver(() => secret);
      secret = (await setWebhookUrl(store, merchant.merchantId, receiver.url)).secret;
    });
    after(async () => {
      for (const server of servers) if (server.process.exitCode === null && server.process.signalCode === null) await killHard(server);
      await receiver.close();
      await store.close();
      await database.drop();
    });

    const env = (runWorkers: boolean) => ({
      ...database.env,
      RUN_WORKERS: String(runWorkers),
      WEBHOOK_TIMEOUT_MS: '4000',
      WEBHOOK_LEASE_MS: '5000',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE: 'PT1S,PT1S,PT1S,PT1S',
    });

    async function completedPayment(server: Server): Promise<string> {
      const call = async (route: string, body: unknown) => {
        const response = await fetch(`${server.url}/api/v1${route}`, {
          method: 'POST',
          headers: { authorization: basic(merchant.testApiKey), 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 200, `${route}: ${await response.clone().text()}`);
        return (await response.json()) as { reference: string; status: string };
      };
      const { reference } = await call('/payment', cardPayment());
      assert.equal((await call('/test/complete', { reference, outcome: 'success' })).status, 'success');
      return reference;
    }

    test('outcomes committed before a kill -9 are all delivered after the restart, each acknowledged once', async () => {
      // 1. Committed, never attempted: the process has no delivery worker and dies.
      const first = await startServer(env(false));
      servers.push(first);
      const undelivered = [await completedPayment(first), await completedPayment(first), await completedPayment(first)];
      await killHard(first);
      assert.equal(receiver.received.length, 0);

      // 2. Attempted but not acknowledged: the receiver holds every request open while the process dies.
      receiver.behave(() => 'hang');
      const second = await startServer(env(true));
      servers.push(second);
      const inFlight = [await completedPayment(second), await completedPayment(second), await completedPayment(second)];
      const all = [...undelivered, ...inFlight];
      await waitFor('every webhook to be in flight', () => all.every((reference) => receiver.received.some((r) => r.body.includes(reference))));
      await killHard(second);
      assert.equal(receiver.acknowledged().size, 0);

      // 3. Restart: the lapsed leases and the never-claimed rows are delivered, and answered this time.
      receiver.behave(() => 200);
      const third = await startServer(env(true));
      servers.push(third);
      const acknowledged = await waitFor(
        'every outcome acknowledged',
        () => {
          const seen = receiver.acknowledged();
          return all.every((reference) => seen.has(reference)) && seen;
        },
        30_000,
      );
      await waitFor('every delivery recorded as delivered', async () => {
        const rows = await store.read.selectFrom('webhook_deliveries').select(['reference', 'state']).execute();
        return rows.length === all.length && rows.every((row) => row.state === 'delivered');
      });
      third.process.kill('SIGTERM');
      await third.exited;

      assert.equal(acknowledged.size, all.length);
      for (const reference of all) {
        const [ack, ...more] = acknowledged.get(reference)!;
        assert.equal(more.length, 0, `${reference} acknowledged more than once`);
        assert.deepEqual(ack.verified, { ok: true, payload: { id: reference } });
        const hung = receiver.received.filter((r) => r.body.includes(reference) && r.answered === null);
        assert.ok(hung.length >= 1, `${reference} was in flight at the kill`);
        assert.ok(
          hung.every((r) => r.webhookId === ack.webhookId),
          'the retry keeps the webhook-id',
        );
      }
    });
  });
}
