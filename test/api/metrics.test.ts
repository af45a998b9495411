/**
 * Metrics (api/cockpit.ts, lib/metrics.ts): `GET /metrics` only with METRICS_TOKEN, and then the
 * named series move as payments are created, change status, are replayed, paid at the
 * acquirer and announced by webhook; the webhook backlog is read from the database. The
 * registry is the process's, shared by every app of this test file: counters are compared
 * before and after.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp, type TestApp } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { parseMetrics, sampleValue } from '../support/metrics.ts';

const TOKEN = 'metrics-token-for-tests';

async function scrape(t: TestApp) {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseMetrics(res.body);
}

for (const backend of backends) {
  describe(`metrics on ${backend}`, () => {
    const t = suiteApp(backend, { METRICS_TOKEN: TOKEN });
    const plain = suiteApp(backend);

    test('without METRICS_TOKEN there is no /metrics', async () => {
      const res = await plain.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 404);
    });

    test('/metrics asks for the token as a bearer credential', async () => {
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer']) {
        const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        assert.equal(res.statusCode, 401, String(authorization));
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="kassa-metrics"');
        assert.equal(res.json().status, 401);
      }
    });

    test('creating, replaying and completing a payment move their series; requests are timed by route pattern', async () => {
      const before = await scrape(t);
      const headers = { 'idempotency-reference': `metrics-${backend}` };
      const created = (await t.client.post('/payment', cardPayment(), { headers })).json();
      await t.client.post('/payment', cardPayment(), { headers });
      await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      const after = await scrape(t);
      const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
      assert.equal(delta('kassa_payments_created_total', { method: 'card', type: 'sale', status: 'pending', mode: 'test' }), 1);
      assert.equal(delta('kassa_payment_transitions_total', { method: 'card', status: 'success', mode: 'test' }), 1);
      assert.equal(delta('kassa_idempotent_replays_total', { route: '/api/v1/payment' }), 1);
      assert.equal(delta('kassa_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/payment', status: '200' }), 2);
      assert.equal(delta('kassa_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/test/complete', status: '200' }), 1);
    });

    test('a card payment times its acquirer call by outcome', async () => {
      const before = await scrape(t);
      const payment = (await t.client.post('/payment', cardPayment({ amount: '10.21' }))).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const paid = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.ok([200, 303].includes(paid.statusCode), paid.body);
      const after = await scrape(t);
      const declined = { acquirer: 'simulator', call: 'authorise', outcome: 'declined' };
      assert.equal(
        sampleValue(after, 'kassa_acquirer_call_duration_seconds_count', declined) - sampleValue(before, 'kassa_acquirer_call_duration_seconds_count', declined),
        1,
      );
      assert.equal(
        sampleValue(after, 'kassa_payment_transitions_total', { method: 'card', status: 'failed', mode: 'test' }) -
          sampleValue(before, 'kassa_payment_transitions_total', { method: 'card', status: 'failed', mode: 'test' }),
        1,
      );
    });

    test('the webhook backlog and the age of the oldest due delivery are read from the database', async () => {
      // No workers run in this app: the delivery stays due.
      const payment = (await t.client.post('/payment', cardPayment({ webhookUrl: 'http://127.0.0.1:9/hook' }))).json();
      await t.client.post('/test/complete', { reference: payment.reference, outcome: 'success' });
      const samples = await scrape(t);
      assert.equal(sampleValue(samples, 'kassa_webhook_backlog'), 1);
      assert.equal(sampleValue(samples, 'kassa_webhook_due'), 1);
      assert.ok(sampleValue(samples, 'kassa_webhook_oldest_due_age_seconds') >= 0);
      if (backend === 'postgres') assert.ok(sampleValue(samples, 'kassa_database_pool_connections', { state: 'open' }) >= 1);
    });
  });
}
