/**
 * What Kassa (src/main.ts, two HTTP processes under a primary; `npm start` runs it compiled, dist/main.js) prints and logs at start:
 * the demo merchant with a test key only and every payment method, and once each, what it found of an earlier
 * version's files (permissions taken off, a key file beside the database).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { basic, createTestDatabase } from '../support/app.ts';
import { spawn } from 'node:child_process';
import { freePort, kassaCli, startKassaProcess, waitForExit } from '../support/process.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { ensureKeyFile } from '../../src/lib/private-files.ts';
import { VAULT_KEY_FILE } from '../../src/vault/keys.ts';
import { paymentMethods } from '../../src/ground/payment-method.ts';

/** Waits for `condition`, at most 30 s, running `poll` (if any) before each look. */
async function until(condition: () => boolean, what: () => string, poll: () => Promise<void> = async () => {}) {
  for (let i = 0; i < 300; i++) {
    await poll();
    if (condition()) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(condition(), what());
}

const root = path.resolve(import.meta.dirname, '../..');

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('starting Kassa', () => {
  test('the compiled build starts with plain node (no tsx) and warns of a misspelt setting', async () => {
    assert.ok(fs.existsSync(path.join(root, 'dist/main.js')), 'npm run build made dist/ (scripts/test.sh runs it)');
    const db = await createTestDatabase('sqlite');
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: root,
      env: { PATH: process.env.PATH, ...db.env, PORT: String(port), HOST: '127.0.0.1', HTTP_PROCESSES: '1', DEMO_MERCHANT: 'false', PUBLIC_ULR: 'https://pay.example' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      let ready: Response | undefined;
      await until(
        () => ready?.status === 200 || child.exitCode !== null,
        () => `no answer; output:\n${output}`,
        async () => {
          ready = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
        },
      );
      assert.equal(ready?.status, 200, output);
      assert.match(output, /PUBLIC_ULR is not a Kassa setting: did you mean PUBLIC_URL\?/);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await waitForExit(child), 0);
      await db.drop();
    }
  });

  test('the demo merchant has a test key only: the start prints no live key, and a live key comes from the CLI, once', async () => {
    const db = await createTestDatabase('sqlite');
    const kassa = await startKassaProcess({ ...db.env, DEMO_MERCHANT: 'true', HTTP_PROCESSES: '2' });
    try {
      await until(
        () => kassa.output().includes('Try it:'),
        () => `the demo merchant's lines; output:\n${kassa.output()}`,
      );
      const output = kassa.output();
      const testKey = /test key: (test_[0-9A-Za-z]+)/.exec(output)?.[1];
      assert.ok(testKey, output);
      assert.doesNotMatch(output, /live_[0-9A-Za-z]/, 'no live key printed');
      const methods = (key: string) => fetch(`${kassa.baseUrl}/api/v1/method`, { headers: { authorization: basic(key) } });
      const listed = (await (await methods(testKey)).json()) as { method: string }[];
      assert.deepEqual(
        listed.map((m) => m.method),
        [...paymentMethods],
        'the demo merchant accepts every method Kassa knows',
      );

      const [demo] = JSON.parse(kassaCli(db.env, 'merchant', 'list', '--json')) as { merchantId: string; keys: Record<string, string> }[];
      assert.deepEqual(Object.keys(demo.keys), ['test'], 'the demo merchant has no live key');
      const { apiKey } = JSON.parse(kassaCli(db.env, 'key', 'rotate', '--merchant', demo.merchantId, '--mode', 'live', '--json'));
      assert.match(apiKey, /^live_/);
      assert.equal((await methods(apiKey)).status, 200, 'the live key the CLI showed works');
    } finally {
      kassa.child.kill('SIGKILL');
      await db.drop();
    }
  });

  test("a start on an earlier version's files takes the permissions off and names the key file beside the database, once each", async () => {
    const db = await createTestDatabase('sqlite');
    const config = loadConfig(db.env);
    const earlier = await openStore(config);
    await earlier.migrate();
    await earlier.close();
    fs.chmodSync(config.dataDir, 0o755);
    fs.chmodSync(path.join(config.dataDir, 'kassa.db'), 0o644);
    // Where earlier versions made the vault key: in DATA_DIR.
    const vaultKeyFile = path.join(config.dataDir, VAULT_KEY_FILE);
    ensureKeyFile(vaultKeyFile);
    const kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: '2' });
    try {
      const output = kassa.output();
      assert.equal(occurrences(output, 'took group and other permissions off'), 1, output);
      assert.equal(occurrences(output, `the key file ${vaultKeyFile} lies in DATA_DIR beside the database`), 1, output);
      assert.equal(fs.statSync(config.dataDir).mode & 0o777, 0o700);
      assert.equal(fs.existsSync(path.join(config.keyDir, VAULT_KEY_FILE)), false, 'the vault key in DATA_DIR is read, no second one made');
    } finally {
      kassa.child.kill('SIGKILL');
      await db.drop();
    }
  });
});
