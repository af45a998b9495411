/**
 * Configuration as one schema (src/config.ts, lib/settings.ts): every variable declared once
 * with type, default and description, the README's table generated from it, bad values stopping
 * the start with the variable's name, and variables that look meant for Kassa warned about.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { allSettings, loadConfig } from '../../src/config.ts';
import { SettingError } from '../../src/lib/settings.ts';
import { withDeclaredTable } from '../../scripts/config-table.ts';

const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

test("the README's configuration table is the one src/config.ts declares (npm run config-table -- --write)", () => {
  assert.equal(readme, withDeclaredTable(readme));
});

test('every setting has a name of its own, a type, a default and a description', () => {
  const names = allSettings.map((definition) => definition.name);
  assert.equal(new Set(names).size, names.length);
  for (const definition of allSettings) {
    assert.match(definition.name, /^[A-Z][A-Z0-9_]*$/);
    assert.ok(definition.type && definition.shownDefault && definition.description.length > 10, definition.name);
  }
});

test('every variable the code reads is declared: no process.env outside src/config.ts', () => {
  const files = fs.readdirSync(path.resolve(import.meta.dirname, '../../src'), { recursive: true, withFileTypes: true });
  const readers = files.filter(
    (file) => file.isFile() && file.name.endsWith('.ts') && fs.readFileSync(path.join(file.parentPath, file.name), 'utf8').includes('process.env'),
  );
  assert.deepEqual(
    readers.map((file) => file.name),
    ['config.ts'],
  );
});

const bad: [string, string][] = [
  ['PORT', 'eighty'],
  ['PORT', '70000'],
  ['PUBLIC_URL', 'localhost:8080'],
  ['DATABASE_URL', 'kassa.db'],
  ['REDIS_URL', 'http://127.0.0.1:6379'],
  ['LOG_LEVEL', 'loud'],
  ['LOG_REQUESTS', 'sometimes'],
  ['SQLITE_SYNCHRONOUS', 'OFF'],
  ['PAYMENT_EXPIRY', '15 minutes'],
  ['REFUND_WINDOW', 'P0D'],
  ['REFUND_WINDOWS', 'diners=P1D'],
  ['HTTP_PROCESSES', '0'],
  ['DATABASE_POOL_SIZE', '-1'],
  ['TRUST_PROXY', 'true'],
  ['RETURN_URL_SCHEMES', 'javascript'],
  ['VAULT_KEY_ID', 'key one'],
  ['WEBHOOK_TIMEOUT_MS', '0'],
  ['WEBHOOK_LEASE_MS', '5000'],
  ['WEBHOOK_RETRY_SCHEDULE', 'PT1M,soon'],
  ['WEBHOOK_TEST_PRIVATE_NETWORKS', 'maybe'],
  ['WALLET_TOKEN_MAX_AGE', 'PT0S'],
  ['WALLET_PROCESSING_KEYS', 'key.pem'],
];
/** Settings whose value is a secret: named and measured, never shown. */
const badSecrets: [string, string][] = [
  ['SECRETS_KEY', 'short-secret'],
  ['CARD_SEAL_KEY', 'abcd-secret'],
  ['VAULT_KEY', 'vault-secret'],
  ['VAULT_OLD_KEYS', 'nocolon-secret'],
];
/** The one line `kassa` and the server print for a setting that is not valid (src/main.ts, src/cli/kassa.ts). */
const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof SettingError, `${JSON.stringify(env)}: ${String(error)}`);
    return error.message;
  }
  assert.fail(`${JSON.stringify(env)} was taken`);
};
for (const [name, raw] of bad) {
  test(`${name}="${raw}" stops the start with one line naming ${name}, its value and what it takes`, () => {
    const message = refusal({ [name]: raw, VAULT_KEY: name === 'VAULT_KEY_ID' ? Buffer.alloc(32).toString('base64') : '' });
    assert.match(message, new RegExp(`^${name} must be [^\n]+, got "${raw.includes(',') ? '[^"]+' : raw}"`));
  });
}
for (const [name, raw] of badSecrets) {
  test(`${name} not valid stops the start with one line naming it, without its value`, () => {
    const message = refusal({ [name]: raw });
    assert.match(message, new RegExp(`^${name} must [^\n]+$`));
    assert.ok(!message.includes(raw), message);
  });
}
test('WALLET_MERCHANT_ID without its certificate and key stops the start, naming what is missing', () => {
  assert.match(
    refusal({ WALLET_MERCHANT_ID: 'merchant.example' }),
    /^WALLET_MERCHANT_ID, WALLET_MERCHANT_IDENTITY_CERT, WALLET_MERCHANT_IDENTITY_KEY must be set together/,
  );
});

test('variables that look meant for Kassa are warned about, other programs’ are not', () => {
  const { unknownSettings } = loadConfig({
    KASSA_PORT: '9000',
    WEBHOOK_TIMEOUT: '5000',
    PUBLIC_ULR: 'https://pay.example',
    RUN_WORKER: 'false',
    HOME: '/root',
    PATH: '/usr/bin',
    NODE_ENV: 'production',
    HOSTNAME: 'kassa-1',
    PORT: '8080',
  });
  assert.deepEqual(unknownSettings, [
    'KASSA_PORT is not a Kassa setting (README "Configuration" lists them)',
    'WEBHOOK_TIMEOUT is not a Kassa setting: did you mean WEBHOOK_TIMEOUT_MS?',
    'PUBLIC_ULR is not a Kassa setting: did you mean PUBLIC_URL?',
    'RUN_WORKER is not a Kassa setting: did you mean RUN_WORKERS?',
  ]);
});

test('the defaults are what the table says', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.sqliteSynchronous, 'FULL');
  assert.equal(config.paymentExpiryMs, 15 * 60_000);
  assert.equal(config.webhooks.timeoutMs, 10_000);
  assert.equal(config.wallet.tokenMaxAgeMs, 5 * 60_000);
  assert.deepEqual(config.trustProxy, []);
  assert.equal(config.metricsToken, undefined);
});
