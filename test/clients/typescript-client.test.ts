/**
 * The TypeScript client (clients/typescript): its generated files are what the OpenAPI document
 * gives today (regenerated and compared), and the package `npm pack` makes works when installed:
 * it pays (test helper) and refunds against a Kassa on 127.0.0.1, types a problem as KassaProblem,
 * replays with an Idempotency-Reference, and its webhook verifier accepts Kassa's signature only.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app.ts';
import { signWebhook, secretKey, webhookBody } from '../../src/events/signing.ts';
import { newWebhookSecret } from '../../src/lib/tokens.ts';
import { installClientPackage } from './client-package.ts';

const CLIENT = path.resolve('clients/typescript');

describe('the TypeScript client', () => {
  test('clients/typescript/openapi.json and src/openapi.ts are what `npm run client:generate` makes of the document today', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-client-types-'));
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-client.ts', dir], { stdio: 'pipe' });
      for (const file of ['openapi.json', 'src/openapi.ts']) {
        assert.equal(fs.readFileSync(path.join(CLIENT, file), 'utf8'), fs.readFileSync(path.join(dir, file), 'utf8'), `${file} is stale: run npm run client:generate`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('installed from its npm pack tarball', () => {
    let kassa: TestApp;
    let baseUrl: string;
    let installed: { dir: string; entry: string };
    let client: typeof import('../../clients/typescript/src/index.ts');

    before(async () => {
      installed = installClientPackage();
      client = await import(installed.entry);
      kassa = await startTestApp('sqlite', { RATE_LIMIT_PER_SECOND: '0' });
      await kassa.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = kassa.app.server.address() as { port: number };
      baseUrl = `http://127.0.0.1:${port}/api/v1`;
    });
    after(async () => {
      await kassa?.close();
      if (installed) fs.rmSync(installed.dir, { recursive: true, force: true });
    });

    test('creates, completes (test helper), reads and refunds a payment; an Idempotency-Reference replays', async () => {
      const kassaClient = client.createKassaClient({ baseUrl, apiKey: kassa.merchant.testApiKey });
      const request = { amount: '12.50', currency: 'EUR', method: 'card', returnUrl: 'https://shop.example/return' } as const;
      const created = await kassaClient.createPayment(request, { idempotencyReference: 'order-7' });
      assert.equal(created.status, 'pending');
      assert.equal((await kassaClient.createPayment(request, { idempotencyReference: 'order-7' })).reference, created.reference);
      const paid = await kassaClient.completeTestPayment({ reference: created.reference, outcome: 'success' });
      assert.equal(paid.status, 'success');
      const refund = await kassaClient.refund({ reference: created.reference, amount: '2.50' }, { idempotencyReference: 'refund-7' });
      assert.deepEqual([refund.type, refund.status, refund.amount, refund.parentReference], ['credit', 'success', 2.5, created.reference]);
      const [sale] = await kassaClient.transactions([created.reference]);
      assert.equal(sale!.details.refundedAmount, 2.5);
      assert.ok((await kassaClient.methods()).some((method) => method.method === 'card'));
      const dispute = await kassaClient.raiseTestDispute({ reference: created.reference, stage: 'chargeback', amount: '10.00' });
      assert.deepEqual([dispute.type, dispute.status, dispute.details.stage], ['chargeback', 'success', 'chargeback']);
      const accepted = await kassaClient.acceptDispute({ reference: dispute.reference });
      assert.equal(accepted.details.stage, 'accepted');
    });

    test('a refused request throws a KassaProblem with its type and every failing field', async () => {
      const kassaClient = client.createKassaClient({ baseUrl, apiKey: kassa.merchant.testApiKey });
      const refused = await kassaClient.createPayment({ amount: '10.505', currency: 'EUR', method: 'card' }).catch((error: unknown) => error);
      assert.ok(refused instanceof client.KassaProblem, String(refused));
      assert.equal(refused.status, 422);
      assert.equal(refused.type, `${kassa.config.publicUrl}/docs#problem-validation-failed`);
      assert.equal(refused.slug, 'validation-failed');
      assert.deepEqual(
        refused.errors.map((error) => error.field),
        ['/amount', '/returnUrl'],
      );
      const unknown = await kassaClient.transaction('tr_unknown').catch((error: unknown) => error);
      assert.ok(unknown instanceof client.KassaProblem);
      assert.equal(unknown.status, 404);
    });

    test('verifyWebhook accepts what Kassa signs and refuses another secret or a changed body', () => {
      const secret = newWebhookSecret();
      const body = webhookBody('tr_0VbzVTxBwEkdA5b9zgYJlnS7');
      const headers = signWebhook(secretKey(secret), 'msg_1', Date.now(), body);
      assert.deepEqual(client.verifyWebhook(secret, body, { ...headers }), { id: 'tr_0VbzVTxBwEkdA5b9zgYJlnS7' });
      assert.throws(() => client.verifyWebhook(newWebhookSecret(), body, { ...headers }), client.WebhookVerificationError);
      assert.throws(() => client.verifyWebhook(secret, body.replace('tr_', 'tr_x'), { ...headers }), client.WebhookVerificationError);
    });
  });
});
