/** Signatures, secrets, the retry schedule and the settings: pure logic, table-driven. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { secretKey, signWebhook, webhookBody } from '../../src/events/signing.ts';
import { newWebhookSecret } from '../../src/lib/tokens.ts';
import { defaultRetrySchedule, nextRetryAt } from '../../src/events/schedule.ts';
import { loadWebhookSettings } from '../../src/events/settings.ts';
import { loadConfig } from '../../src/config.ts';

test('a secret is whsec_ and the base64 of 32 random bytes, different every time', () => {
  const secrets = new Set(Array.from({ length: 20 }, newWebhookSecret));
  assert.equal(secrets.size, 20);
  for (const secret of secrets) {
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(secretKey(secret).length, 32);
  }
});

test('the body is the reference and nothing else', () => {
  assert.equal(webhookBody('tr_abc'), '{"id":"tr_abc"}');
});

test('signatures are what standardwebhooks signs, and it verifies them', () => {
  const secret = newWebhookSecret();
  const at = Date.now();
  const body = webhookBody('tr_123');
  const headers = signWebhook(secretKey(secret), 'msg_1', at, body);
  const reference = new Webhook(secret);
  assert.equal(headers['webhook-signature'], reference.sign('msg_1', new Date(at), body));
  assert.equal(headers['webhook-timestamp'], String(Math.floor(at / 1000)));
  assert.deepEqual(reference.verify(body, { ...headers }), { id: 'tr_123' });
  assert.throws(() => reference.verify(webhookBody('tr_124'), { ...headers }), /No matching signature/);
  assert.throws(() => new Webhook(newWebhookSecret()).verify(body, { ...headers }), /No matching signature/);
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const scheduleCases: [failures: number, wait: number | undefined][] = [
  [1, 1 * MINUTE],
  [2, 5 * MINUTE],
  [3, 30 * MINUTE],
  [4, 2 * HOUR],
  [5, 6 * HOUR],
  [6, 12 * HOUR],
  [7, 24 * HOUR],
  [8, 24 * HOUR],
  [9, undefined],
];
for (const [failures, wait] of scheduleCases) {
  test(`after failed attempt ${failures} the next comes ${wait === undefined ? 'never (given up)' : `${wait / MINUTE} min later`}`, () => {
    assert.equal(nextRetryAt(defaultRetrySchedule, failures, 1000), wait === undefined ? undefined : 1000 + wait);
  });
}

test('the whole schedule spans about 3 days (docs/webhooks.md#retries)', () => {
  const total = defaultRetrySchedule.reduce((a, b) => a + b, 0);
  assert.ok(total > 2.5 * 24 * HOUR && total <= 3 * 24 * HOUR, `${total / HOUR} h`);
});

test('defaults: 10 s timeout, 60 s lease, the schedule of docs/webhooks.md#retries; config carries them', () => {
  const settings = loadWebhookSettings({});
  assert.equal(settings.timeoutMs, 10_000);
  assert.equal(settings.leaseMs, 60_000);
  assert.deepEqual(settings.retryScheduleMs, defaultRetrySchedule);
  assert.deepEqual(loadConfig({}).webhooks, settings);
});

test('settings come from WEBHOOK_* variables and are checked', () => {
  const settings = loadWebhookSettings({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '5000', WEBHOOK_RETRY_SCHEDULE: 'PT1S, PT2M' });
  assert.equal(settings.timeoutMs, 2000);
  assert.deepEqual(settings.retryScheduleMs, [1000, 120_000]);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_LEASE_MS: '10000' }), /must be longer than WEBHOOK_TIMEOUT_MS/);
  assert.throws(
    () => loadWebhookSettings({ WEBHOOK_RETRY_SCHEDULE: 'PT1M,soon' }),
    /WEBHOOK_RETRY_SCHEDULE must be a list of positive ISO 8601 durations such as PT1M,PT5M, got "soon"/,
  );
  assert.throws(() => loadWebhookSettings({ WEBHOOK_CONCURRENCY: '0' }), /positive whole number/);
});
