/** Webhook outbox and delivery worker (docs/decisions.md#webhooks; docs/webhooks.md), on SQLite and PostgreSQL. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, startTestApp, type TestApp } from '../support/app.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { redeliver, setWebhookUrl, showWebhook, deliveriesOf } from '../../src/events/admin.ts';
import { transition } from '../../src/payments/transition.ts';
import { expireDuePayments } from '../../src/payments/jobs/expiry.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { attemptsFor, completePayment, deliveriesFor, fastWorkerOptions, insertPendingPayment, startReceiver, waitFor, type Receiver } from './support.ts';

for (const backend of backends) {
  describe(`webhook delivery (${backend})`, () => {
    let t: TestApp;
    let secret: string;
    let receiver: Receiver;
    let worker: WebhookWorker | undefined;

    before(async () => {
      t = await startTestApp(backend);
      receiver = await startReceiver(() => secret);
      secret = (await setWebhookUrl(t.store, t.merchant.merchantId, receiver.url)).secret;
    });
    after(async () => {
      await worker?.stop();
      await receiver.close();
      await t.close();
    });

    const runWorker = (overrides: Parameters<typeof fastWorkerOptions>[0] = {}) => {
      worker = new WebhookWorker(t.store, fastWorkerOptions(overrides)).start();
      return worker;
    };
    const stopWorker = async () => {
      await worker?.stop();
      worker = undefined;
    };
    const forReference = (reference: string) => receiver.received.filter((r) => r.body.includes(reference));

    test('a receiver failing 3 times then succeeding gets exactly one success and 3 retries, all with one webhook-id', async () => {
      const reference = await insertPendingPayment(t.store, t.merchant.merchantId);
      let calls = 0;
      receiver.behave((r) => (r.body.includes(reference) && ++calls <= 3 ? 500 : 200));
      runWorker();
      await completePayment(t.store, reference);
      const [delivery] = await waitFor('delivered', async () => {
        const rows = await deliveriesFor(t.store, reference);
        return rows.length === 1 && rows[0].state === 'delivered' && rows;
      });
      await stopWorker();

      const seen = forReference(reference);
      assert.deepEqual(
        seen.map((r) => r.answered),
        [500, 500, 500, 200],
      );
      assert.equal(new Set(seen.map((r) => r.webhookId)).size, 1);
      assert.equal(seen[0].webhookId, delivery.id);
      for (const r of seen) {
        assert.equal(r.body, JSON.stringify({ id: reference }));
        assert.equal(r.contentType, 'application/json');
        assert.match(r.timestamp, /^\d{10}$/);
        assert.match(r.signature, /^v1,[A-Za-z0-9+/]+=*$/);
        assert.deepEqual(r.verified, { ok: true, payload: { id: reference } });
      }
      const attempts = await attemptsFor(t.store, delivery.id);
      assert.deepEqual(
        attempts.map((a) => a.status_code),
        [500, 500, 500, 200],
      );
      assert.deepEqual(
        attempts.map((a) => a.next_retry_at === null),
        [false, false, false, true],
      );
      assert.deepEqual(
        attempts.map((a) => a.error),
        ['HTTP 500', 'HTTP 500', 'HTTP 500', null],
      );
      assert.equal(delivery.attempts, 4);
      assert.equal(delivery.event, 'success');
    });

    test('a receiver that hangs is cut off at the timeout and the delivery is retried', async () => {
      const reference = await insertPendingPayment(t.store, t.merchant.merchantId);
      let first = true;
      receiver.behave((r) => {
        if (!r.body.includes(reference)) return 200;
        if (first) return (first = false), 'hang';
        return 200;
      });
      runWorker({ timeoutMs: 300, leaseMs: 10_000 });
      await completePayment(t.store, reference);
      const [delivery] = await waitFor('delivered after a timeout', async () => {
        const rows = await deliveriesFor(t.store, reference);
        return rows[0]?.state === 'delivered' && rows;
      });
      await stopWorker();
      const attempts = await attemptsFor(t.store, delivery.id);
      assert.equal(attempts.length, 2);
      assert.equal(attempts[0].status_code, null);
      assert.match(attempts[0].error ?? '', /^timed out: no answer within 300 ms$/);
      assert.notEqual(attempts[0].next_retry_at, null);
      assert.equal(attempts[1].status_code, 200);
      const seen = forReference(reference);
      assert.deepEqual(
        seen.map((r) => r.answered),
        [null, 200],
      );
      assert.equal(seen[0].webhookId, seen[1].webhookId);
    });

    test('a change whose unit of work rolls back leaves no delivery; a committed one leaves exactly one', async () => {
      const rolledBack = await insertPendingPayment(t.store, t.merchant.merchantId);
      await assert.rejects(
        t.store.transact(async (db) => {
          await transition(db, { reference: rolledBack, from: 'pending', to: 'success', cause: 'test_helper', at: Date.now() });
          throw new Error('the unit fails after the change');
        }),
        /the unit fails after the change/,
      );
      assert.equal((await deliveriesFor(t.store, rolledBack)).length, 0);
      const committed = await insertPendingPayment(t.store, t.merchant.merchantId);
      await completePayment(t.store, committed, 'failed');
      const rows = await deliveriesFor(t.store, committed);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].state, 'pending');
      assert.equal(rows[0].event, 'failed/rejected');
    });

    test('a delivery failing through the whole schedule is given up, visible, and redelivered with the same webhook-id', async () => {
      const reference = await insertPendingPayment(t.store, t.merchant.merchantId);
      let accept = false;
      receiver.behave((r) => (r.body.includes(reference) && !accept ? 503 : 200));
      runWorker({ retryScheduleMs: [10, 10] });
      await completePayment(t.store, reference);
      const [given] = await waitFor('given up', async () => {
        const rows = await deliveriesFor(t.store, reference);
        return rows[0]?.state === 'failed' && rows;
      });
      assert.equal(given.attempts, 3);
      const [view] = await deliveriesOf(t.store, { merchantId: t.merchant.merchantId, reference });
      assert.equal(view.state, 'failed');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [
          [503, 'HTTP 503'],
          [503, 'HTTP 503'],
          [503, 'HTTP 503'],
        ],
      );
      assert.equal(view.attemptLog.at(-1)!.nextRetryAt, null);

      accept = true;
      await redeliver(t.store, given.id);
      await waitFor('redelivered', async () => (await deliveriesFor(t.store, reference))[0]?.state === 'delivered');
      await stopWorker();
      const seen = forReference(reference);
      assert.deepEqual(
        seen.map((r) => r.answered),
        [503, 503, 503, 200],
      );
      assert.equal(new Set(seen.map((r) => r.webhookId)).size, 1);
    });

    test("a payment's webhookUrl overrides the merchant's URL and is signed with the merchant's secret", async () => {
      const other = await startReceiver(() => secret);
      try {
        const reference = await insertPendingPayment(t.store, t.merchant.merchantId, { webhookUrl: other.url });
        runWorker();
        await completePayment(t.store, reference);
        await waitFor('delivered to the override', () => other.acknowledged().has(reference));
        await stopWorker();
        assert.equal(forReference(reference).length, 0);
        assert.deepEqual(other.received[0].verified, { ok: true, payload: { id: reference } });
      } finally {
        await other.close();
      }
    });

    test('a merchant without a webhook URL gets no deliveries, unless a payment names its own webhookUrl', async () => {
      const quiet = await createMerchant(t.store, 'Polling Shop');
      const polled = await insertPendingPayment(t.store, quiet.merchantId);
      await completePayment(t.store, polled);
      assert.equal((await deliveriesFor(t.store, polled)).length, 0);

      let quietSecret = '';
      const own = await startReceiver(() => quietSecret);
      try {
        const reference = await insertPendingPayment(t.store, quiet.merchantId, { webhookUrl: own.url });
        await completePayment(t.store, reference);
        quietSecret = (await showWebhook(t.store, quiet.merchantId)).secret;
        assert.match(quietSecret, /^whsec_/);
        runWorker();
        await waitFor('delivered', () => own.acknowledged().has(reference));
        await stopWorker();
        assert.deepEqual(own.received[0].verified, { ok: true, payload: { id: reference } });
      } finally {
        await own.close();
      }
    });

    test('expiry and cancel notify the merchant like any other outcome', async () => {
      const expiring = await insertPendingPayment(t.store, t.merchant.merchantId);
      await expireDuePayments(t.app.ports, Date.now() + 3600_000);
      assert.deepEqual(
        (await deliveriesFor(t.store, expiring)).map((d) => d.event),
        ['failed/expired'],
      );

      const client = api(t.app, t.merchant.testApiKey);
      const created = (await client.post('/payment', cardPayment())).json();
      const cancelled = await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname });
      assert.equal(cancelled.statusCode, 200);
      assert.deepEqual(
        (await deliveriesFor(t.store, created.reference)).map((d) => d.event),
        ['failed/cancelled'],
      );
    });

    test('a rotated secret signs the retries of earlier events', async () => {
      const reference = await insertPendingPayment(t.store, t.merchant.merchantId);
      await completePayment(t.store, reference);
      const { rotateWebhookSecret } = await import('../../src/events/admin.ts');
      secret = (await rotateWebhookSecret(t.store, t.merchant.merchantId)).secret;
      runWorker();
      await waitFor('delivered', () => receiver.acknowledged().has(reference));
      await stopWorker();
      assert.deepEqual(forReference(reference)[0].verified, { ok: true, payload: { id: reference } });
    });
  });
}
