/** A payment's `request` document keeps each 3-D Secure field once: the echoed ones live in `echo` only. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parsePaymentRequest } from '../../src/payments/requests/payment-request.ts';
import { planPayment } from '../../src/payments/create.ts';
import { storedRequestOf } from '../../src/payments/serialize.ts';
import { defaultSettings } from '../../src/merchants/merchants.ts';
import { fullCardPayment } from '../../bench/fixtures.ts';
import { SecretBox } from '../../src/lib/secret-box.ts';
import { webhookReach } from '../../src/events/ssrf.ts';
import type { TransactionRow } from '../../src/store/schema.ts';

const settings = defaultSettings();
const { request } = parsePaymentRequest(structuredClone(fullCardPayment), {
  settings,
  webhooks: webhookReach('test', { testPrivateNetworks: true }),
  returnUrlSchemes: [],
});
const caller = { merchantId: 'mer_test', merchantName: 'Test Shop', mode: 'test' as const, settings };
const { row } = planPayment(request!, { caller, defaultExpiry: 'PT15M', defaultExpiryMs: 900_000, now: 1_700_000_000_000, secrets: new SecretBox(randomBytes(32)) });

test('the request document leaves out the echoed fields, and storedRequestOf gives the 3-D Secure data whole', () => {
  const echo = JSON.parse(row.echo) as Record<string, string>;
  assert.ok(Object.keys(echo).length > 10, 'the example echoes its billing and shipping fields');
  const document = JSON.parse(row.request) as { threeDS: Record<string, unknown> };
  for (const name of Object.keys(echo)) assert.equal(document.threeDS[name], undefined, name);
  assert.deepEqual(storedRequestOf(row as TransactionRow).threeDS, request!.threeDS);
});

test('a row stored with the echoed fields in both places reads the same', () => {
  const before = { ...row, request: JSON.stringify({ ...JSON.parse(row.request), threeDS: request!.threeDS }) };
  assert.deepEqual(storedRequestOf(before as TransactionRow).threeDS, request!.threeDS);
});

test('a transaction without 3-D Secure data (a refund) reads as stored', () => {
  assert.deepEqual(storedRequestOf({ request: '{"orderLines":[]}', echo: '{}' }), { orderLines: [] });
});

test('a field left out for its format is echoed for the merchant, named, and not in the 3-D Secure data read back', () => {
  const offFormat = { ...structuredClone(fullCardPayment), scaReady: 'no', billingAddress: 'x'.repeat(60), accountInfo: { email: 'jan@exämple.com' } };
  const parsed = parsePaymentRequest(offFormat, { settings, webhooks: webhookReach('test', { testPrivateNetworks: true }), returnUrlSchemes: [] });
  assert.deepEqual(parsed.errors, []);
  const planned = planPayment(parsed.request!, {
    caller,
    defaultExpiry: 'PT15M',
    defaultExpiryMs: 900_000,
    now: 1_700_000_000_000,
    secrets: new SecretBox(randomBytes(32)),
  }).row;
  const echo = JSON.parse(planned.echo) as Record<string, unknown>;
  assert.equal(echo.billingAddress, 'x'.repeat(60));
  assert.deepEqual(
    (echo.threeDSFieldsLeftOut as { field: string }[]).map((entry) => entry.field),
    ['/billingAddress', '/accountInfo/email'],
  );
  const threeDS = storedRequestOf(planned as TransactionRow).threeDS;
  assert.equal(threeDS.billingAddress, undefined);
  assert.equal(threeDS.accountInfo?.email, undefined);
  assert.equal(threeDS.billingCity, fullCardPayment.billingCity, 'the fields that fit come back');
  assert.equal(JSON.stringify(threeDS).includes('threeDSFieldsLeftOut'), false);
});
