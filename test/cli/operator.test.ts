/** `kassa operator create|list|reset-password|disable`, run as a user would, on SQLite and PostgreSQL. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { KASSA_CLI } from '../support/process.ts';
import { openStore } from '../../src/store/store.ts';
import { loadConfig } from '../../src/config.ts';

const run = promisify(execFile);
const kassa = (env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [...KASSA_CLI, ...args], { env: { ...process.env, PUBLIC_URL: 'https://pay.example', ...env } });

/** Runs kassa with `input` on standard input. */
function kassaWithInput(env: Record<string, string>, input: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...KASSA_CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

for (const backend of backends) {
  describe(`kassa operator on ${backend}`, () => {
    let db: TestDatabase;
    before(async () => (db = await createTestDatabase(backend)));
    after(() => db.drop());

    test('create --json prints one object with a set-password link under PUBLIC_URL/dashboard', async () => {
      const created = JSON.parse((await kassa(db.env, 'operator', 'create', '--email', 'Ops@Example.com', '--json')).stdout);
      assert.deepEqual(Object.keys(created).sort(), ['email', 'operatorId', 'setPasswordUrl']);
      assert.equal(created.email, 'ops@example.com');
      assert.match(created.setPasswordUrl, /^https:\/\/pay\.example\/dashboard\/set-password\/sp_[0-9A-Za-z]{43}$/);
    });

    test('the link follows --public-url, else PUBLIC_URL; unset, it says the link is the default one', async () => {
      const unset = { ...db.env, PUBLIC_URL: '' };
      const plain = await run(process.execPath, [...KASSA_CLI, 'operator', 'create', '--email', 'nourl@example.com'], {
        env: Object.fromEntries(Object.entries({ ...process.env, ...unset }).filter(([name]) => name !== 'PUBLIC_URL')) as Record<string, string>,
      });
      assert.match(plain.stdout, /http:\/\/localhost:8080\/dashboard\/set-password\//);
      assert.match(plain.stderr, /PUBLIC_URL is not set: the link starts with http:\/\/localhost:8080/);
      const given = JSON.parse(
        (await kassa(db.env, 'operator', 'create', '--email', 'given@example.com', '--public-url', 'https://kassa.shop.example/', '--json')).stdout,
      );
      assert.match(given.setPasswordUrl, /^https:\/\/kassa\.shop\.example\/dashboard\/set-password\//);
      await assert.rejects(kassa(db.env, 'operator', 'create', '--email', 'bad@example.com', '--public-url', 'not a url'), /--public-url not a url is not a URL/);
    });

    test('--password-stdin sets the password (no link); --merchant limits the account; list and disable', async () => {
      const merchant = JSON.parse((await kassa(db.env, 'merchant', 'create', '--name', 'Shop', '--json')).stdout);
      const made = await kassaWithInput(
        db.env,
        'a good long password 7\n',
        'operator',
        'create',
        '--email',
        'shop@example.com',
        '--merchant',
        merchant.merchantId,
        '--password-stdin',
        '--json',
      );
      assert.equal(made.code, 0, made.stderr);
      assert.deepEqual(Object.keys(JSON.parse(made.stdout)).sort(), ['email', 'operatorId']);
      const short = await kassaWithInput(db.env, 'short\n', 'operator', 'create', '--email', 'weak@example.com', '--password-stdin');
      assert.equal(short.code, 1);
      assert.match(short.stderr, /at least 12 characters/);
      const noDigit = await kassaWithInput(db.env, 'only letters here\n', 'operator', 'create', '--email', 'weak@example.com', '--password-stdin');
      assert.deepEqual([noDigit.code, /must contain a digit/.test(noDigit.stderr)], [1, true], noDigit.stderr);
      const noLetter = await kassaWithInput(db.env, '1234 5678 9012\n', 'operator', 'create', '--email', 'weak@example.com', '--password-stdin');
      assert.deepEqual([noLetter.code, /must contain a letter/.test(noLetter.stderr)], [1, true], noLetter.stderr);
      await assert.rejects(kassa(db.env, 'operator', 'create', '--email', 'shop@example.com'), /exists already/);
      await assert.rejects(kassa(db.env, 'operator', 'create', '--email', 'x@example.com', '--merchant', 'mer_nope'), /no merchant/);
      await kassa(db.env, 'operator', 'disable', '--email', 'SHOP@example.com');
      const list = JSON.parse((await kassa(db.env, 'operator', 'list', '--json')).stdout) as {
        email: string;
        merchantId: string | null;
        disabled: boolean;
        passwordSet: boolean;
      }[];
      const shop = list.find((o) => o.email === 'shop@example.com')!;
      assert.deepEqual([shop.merchantId, shop.disabled, shop.passwordSet], [merchant.merchantId, true, true]);
      assert.ok(!JSON.stringify(list).includes('scrypt'), 'list never shows a password hash');
      await assert.rejects(kassa(db.env, 'operator', 'disable', '--email', 'nobody@example.com'), /no account/);
    });

    test('reset-password prints a new set-password link for an account, audited; an unknown or disabled account is refused', async () => {
      await kassaWithInput(db.env, 'a good long password 7\n', 'operator', 'create', '--email', 'forgot@example.com', '--password-stdin');
      const { stdout } = await kassa(db.env, 'operator', 'reset-password', '--email', 'Forgot@example.com');
      assert.match(stdout, /^set-password link for forgot@example\.com \(one use, 7 days\): https:\/\/pay\.example\/dashboard\/set-password\/sp_[0-9A-Za-z]{43}\n$/);
      await assert.rejects(kassa(db.env, 'operator', 'reset-password', '--email', 'nobody@example.com'), /no active account with e-mail nobody@example\.com/);
      await kassa(db.env, 'operator', 'disable', '--email', 'forgot@example.com');
      await assert.rejects(kassa(db.env, 'operator', 'reset-password', '--email', 'forgot@example.com'), /no active account/);
      const store = await openStore(loadConfig(db.env));
      try {
        const audited = await store.read
          .selectFrom('audit_log')
          .select(['operator_email', 'action', 'address'])
          .where('operator_email', '=', 'forgot@example.com')
          .execute();
        assert.deepEqual(audited, [{ operator_email: 'forgot@example.com', action: 'reset_password_link', address: 'command line' }]);
      } finally {
        await store.close();
      }
    });
  });
}
