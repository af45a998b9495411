/** `kassa webhook …` (docs/webhooks.md) through the real command, on SQLite and PostgreSQL. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createMerchant, type CreatedMerchant } from '../../src/merchants/merchants.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { completePayment, fastWorkerOptions, insertPendingPayment, startReceiver, waitFor } from './support.ts';
import { KASSA_CLI } from '../support/process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

for (const backend of backends) {
  describe(`kassa webhook (${backend})`, () => {
    let database: TestDatabase;
    let store: Store;
    let merchant: CreatedMerchant;

    const kassa = async (...args: string[]) => {
      try {
        const { stdout } = await run(process.execPath, [...KASSA_CLI, ...args], {
          cwd: root,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...database.env },
        });
        return { code: 0, stdout, stderr: '' };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const json = async (...args: string[]) => {
      const result = await kassa(...args, '--json');
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout);
    };

    before(async () => {
      database = await createTestDatabase(backend);
      store = await openStore(loadConfig(database.env));
      await store.migrate();
      merchant = await createMerchant(store, 'CLI Shop');
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    test('set, show and rotate-secret manage the URL and the whsec_ secret', async () => {
      const set = await json('webhook', 'set', '--merchant', merchant.merchantId, '--url', 'https://shop.example/kassa');
      assert.equal(set.url, 'https://shop.example/kassa');
      assert.match(set.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(await json('webhook', 'show', '--merchant', merchant.merchantId), set);
      const moved = await json('webhook', 'set', '--merchant', merchant.merchantId, '--url', 'https://shop.example/v2');
      assert.equal(moved.secret, set.secret, 'changing the URL keeps the secret');
      const rotated = await json('webhook', 'rotate-secret', '--merchant', merchant.merchantId);
      assert.equal(rotated.url, 'https://shop.example/v2');
      assert.notEqual(rotated.secret, set.secret);
      const text = await kassa('webhook', 'show', '--merchant', merchant.merchantId);
      assert.match(text.stdout, new RegExp(`secret: ${rotated.secret.replace(/[+/]/g, '\\$&')}`));
    });

    test('test queues a signed test event through the outbox, which the worker delivers to the merchant URL', async () => {
      const shop = await createMerchant(store, 'Test Event Shop');
      const refused = await kassa('webhook', 'test', '--merchant', shop.merchantId);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /--url is not set/);
      const endpoint = await json('webhook', 'set', '--merchant', shop.merchantId, '--url', 'http://127.0.0.1:1/placeholder');
      const receiver = await startReceiver(() => endpoint.secret);
      try {
        await json('webhook', 'set', '--merchant', shop.merchantId, '--url', receiver.url);
        const queued = await json('webhook', 'test', '--merchant', shop.merchantId);
        assert.match(queued.reference, /^whtest_/);
        const worker = new WebhookWorker(store, fastWorkerOptions()).start();
        try {
          const received = await waitFor('the test webhook', () => receiver.received.find((r) => r.webhookId === queued.id));
          assert.deepEqual(received.verified, { ok: true, payload: { id: queued.reference } });
        } finally {
          await worker.stop();
        }
        const [delivery] = await json('webhook', 'deliveries', '--merchant', shop.merchantId);
        assert.deepEqual([delivery.id, delivery.event, delivery.state], [queued.id, 'test', 'delivered']);
      } finally {
        await receiver.close();
      }
    });

    test('bad input and unknown merchants fail with a message and exit code 1', async () => {
      const badUrl = await kassa('webhook', 'set', '--merchant', merchant.merchantId, '--url', 'ftp://shop.example/');
      assert.equal(badUrl.code, 1);
      assert.match(badUrl.stderr, /--url must be an absolute http\(s\) URL/);
      const unknown = await kassa('webhook', 'show', '--merchant', 'mer_nobody');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no merchant with id mer_nobody/);
      const noDelivery = await kassa('webhook', 'redeliver', '--id', 'msg_nothing');
      assert.equal(noDelivery.code, 1);
      assert.match(noDelivery.stderr, /no webhook delivery with id msg_nothing/);
    });

    test('deliveries lists attempts with status, error and next retry; redeliver sends again', async () => {
      let secret = '';
      let answer = 500;
      const receiver = await startReceiver(
        () => secret,
        () => answer,
      );
      try {
        secret = (await json('webhook', 'set', '--merchant', merchant.merchantId, '--url', receiver.url)).secret;
        const reference = await insertPendingPayment(store, merchant.merchantId);
        await completePayment(store, reference, 'failed');
        const worker = new WebhookWorker(store, fastWorkerOptions({ retryScheduleMs: [3600_000] })).start();
        await waitFor('the first attempt', () => receiver.received.length === 1);
        await worker.stop();

        const [listed] = await json('webhook', 'deliveries', '--merchant', merchant.merchantId, '--reference', reference);
        assert.equal(listed.reference, reference);
        assert.equal(listed.event, 'failed/rejected');
        assert.equal(listed.state, 'pending');
        assert.equal(listed.id, receiver.received[0].webhookId);
        assert.equal(listed.attemptLog.length, 1);
        const [attempt] = listed.attemptLog;
        assert.equal(attempt.statusCode, 500);
        assert.equal(attempt.error, 'HTTP 500');
        assert.equal(attempt.nextRetryAt, listed.nextAttemptAt);
        assert.ok(attempt.nextRetryAt > attempt.at);
        const text = await kassa('webhook', 'deliveries', '--merchant', merchant.merchantId, '--reference', reference);
        assert.match(text.stdout, new RegExp(`${listed.id}  ${reference}  test  failed/rejected  pending`));
        assert.match(text.stdout, /  500  \d+ ms  HTTP 500  next retry \d{4}-/);

        answer = 200;
        assert.equal((await json('webhook', 'redeliver', '--id', listed.id)).state, 'pending');
        const again = new WebhookWorker(store, fastWorkerOptions()).start();
        await waitFor('the redelivery', () => receiver.acknowledged().has(reference));
        await again.stop();
        const [after] = await json('webhook', 'deliveries', '--merchant', merchant.merchantId, '--reference', reference);
        assert.equal(after.state, 'delivered');
        assert.deepEqual(
          after.attemptLog.map((a: { statusCode: number }) => a.statusCode),
          [500, 200],
        );
        assert.equal(receiver.received[1].webhookId, listed.id);
      } finally {
        await receiver.close();
      }
    });
  });
}
