/** The admin CLI, run as a user would, against the server's own database (SQLite and PostgreSQL). */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { findMerchant } from '../../src/store/merchants.ts';
import { openWalletToken, testWalletPki, type WalletPaymentToken } from '../../src/wallet/index.ts';
import { kassaCliAsync as kassa, KASSA_MAIN, KASSA_PROGRAM } from '../support/process.ts';
import { root } from '../../bin/build-freshness.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = promisify(execFile);
type Failed = { code: number; stdout: string; stderr: string };

/** `kassa` as a user types it, without the test support's `--create`, in `cwd`. */
const bare = (cwd: string, env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [...KASSA_PROGRAM, ...args], { cwd, env: { ...process.env, ...env } });

describe('bin/kassa.js, what `npx kassa` runs', () => {
  /**
   * A copy of bin/ (in a package of ES modules, as Kassa's) beside a stand-in dist/ and src/ that say which ran, with the repository's
   * node_modules (tsx) linked in: the file times decide, as after `npm ci` (dist/ newer) and after
   * an edit of src/.
   */
  const fixture = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-bin-'));
    const write = (file: string, text: string, seconds: number) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
      fs.utimesSync(path.join(dir, file), seconds, seconds);
    };
    write('package.json', JSON.stringify({ type: 'module' }), 0);
    for (const file of ['kassa.js', 'build-freshness.js']) write(`bin/${file}`, fs.readFileSync(path.join(root, 'bin', file), 'utf8'), 0);
    const now = Date.now() / 1000;
    write('src/cli/kassa.ts', "const ran: string = 'src';\nconsole.log(ran);\n", now - 60);
    write('src/lib/other.ts', 'export {};\n', now - 60);
    write('dist/main.js', '', now);
    write('dist/cli/kassa.js', "console.log('dist');\n", now);
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    return { dir, write, kassa: () => run(process.execPath, [path.join(dir, 'bin/kassa.js')], { cwd: dir }) };
  };

  test('runs the build in dist/ when it is newer than every file of src/, else src/ through tsx, saying so in one line', async () => {
    const { dir, write, kassa } = fixture();
    try {
      assert.deepEqual(await kassa(), { stdout: 'dist\n', stderr: '' }, 'dist/ is current: plain Node, nothing said');
      write('src/lib/other.ts', 'export {};\n', Date.now() / 1000 + 60);
      const fromSources = await kassa();
      assert.equal(fromSources.stdout, 'src\n');
      assert.match(fromSources.stderr, /^kassa: src\/ is newer than the build in dist\/: running the TypeScript through tsx .*npm run build.*\n$/);
      fs.rmSync(path.join(dir, 'node_modules'));
      assert.deepEqual(await kassa(), { stdout: 'dist\n', stderr: '' }, 'a production install has no tsx: dist/ is what it runs');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--version prints Kassa's version", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    assert.equal((await run(process.execPath, [path.join(root, 'bin/kassa.js'), '--version'])).stdout, `${version}\n`);
    assert.equal((await bare(os.tmpdir(), {}, '-V')).stdout, `${version}\n`);
  });
});

describe('a setting that is not valid', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'PORT must be a whole number from 0 to 65535, got "abc"'],
    [{ PUBLIC_URL: 'localhost:8080' }, 'PUBLIC_URL must be an absolute http://… or https://… URL, got "localhost:8080"'],
    [
      { DATABASE_URL: 'mysql://kassa:hunter2@db.example/kassa' },
      'DATABASE_URL must be an absolute postgres://… or postgresql://… URL, got "mysql://kassa:***@db.example/kassa"',
    ],
  ];

  test('stops a kassa command with one line naming it, its value and what it takes, exit code 1', async () => {
    for (const [env, message] of cases) {
      const failed = (await bare(os.tmpdir(), env, 'merchant', 'list').catch((error: Failed) => error)) as Failed;
      assert.deepEqual([failed.code, failed.stdout, failed.stderr], [1, '', `kassa: ${message}\n`], JSON.stringify(env));
    }
  });

  test('stops the server (what `npm start` runs) the same way: one line, no stack, exit code 1', async () => {
    for (const [env, message] of cases) {
      const failed = (await run(process.execPath, [...KASSA_MAIN], { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 }).catch(
        (error: Failed) => error,
      )) as Failed;
      assert.deepEqual([failed.code, failed.stdout, failed.stderr], [1, '', `kassa: ${message}\n`], JSON.stringify(env));
    }
  });
});

describe('kassa in another directory than the server', () => {
  test('refuses a database that is not there, naming where it looked, and makes nothing; --create or kassa migrate make one', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-elsewhere-'));
    try {
      const refused = await bare(elsewhere, {}, 'merchant', 'list').catch((error: { code: number; stderr: string }) => error);
      assert.equal((refused as { code: number }).code, 1);
      const message = (refused as { stderr: string }).stderr;
      assert.match(message, /no Kassa database at .*kassa-elsewhere-[^/]+\/data\/kassa\.db/);
      assert.match(message, /kassa migrate.*--create/);
      assert.deepEqual(fs.readdirSync(elsewhere), [], 'no database, no key made');
      assert.match((await bare(elsewhere, {}, 'merchant', 'list', '--create')).stdout, /no merchants/);
      assert.ok(fs.existsSync(path.join(elsewhere, 'data', 'kassa.db')));
      const other = path.join(elsewhere, 'other');
      assert.match((await bare(elsewhere, { DATA_DIR: other }, 'migrate')).stdout, /applied: 001_foundation/);
      assert.match((await bare(elsewhere, { DATA_DIR: other }, 'merchant', 'list')).stdout, /no merchants/);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

for (const backend of backends) {
  describe(`kassa CLI on ${backend}`, () => {
    let db: TestDatabase;
    before(async () => (db = await createTestDatabase(backend)));
    after(() => db.drop());

    test('a command on an empty database stops, naming it; `kassa migrate` makes it', async () => {
      const empty = await createTestDatabase(backend);
      try {
        const refused = await bare(process.cwd(), empty.env, 'merchant', 'list').catch((error: { code: number; stderr: string }) => error);
        assert.equal((refused as { code: number }).code, 1);
        assert.match((refused as { stderr: string }).stderr, /no Kassa database at /);
        await bare(process.cwd(), empty.env, 'migrate');
        assert.match((await bare(process.cwd(), empty.env, 'merchant', 'list')).stdout, /no merchants/);
      } finally {
        await empty.drop();
      }
    });

    test('merchant create --json prints exactly one JSON object with the keys', async () => {
      const { stdout } = await kassa(db.env, 'merchant', 'create', '--name', 'CLI Shop', '--json');
      const created = JSON.parse(stdout);
      assert.deepEqual(Object.keys(created).sort(), ['liveApiKey', 'merchantId', 'testApiKey']);
      assert.match(created.testApiKey, /^test_/);
      assert.match(created.liveApiKey, /^live_/);
      const list = JSON.parse((await kassa(db.env, 'merchant', 'list', '--json')).stdout);
      const listed = list.find((m: { merchantId: string }) => m.merchantId === created.merchantId);
      assert.equal(listed.name, 'CLI Shop');
      assert.ok(!JSON.stringify(list).includes(created.testApiKey), 'list never shows a whole key');
    });

    test('key rotate revokes the old key and prints a new one', async () => {
      const created = JSON.parse((await kassa(db.env, 'merchant', 'create', '--name', 'Rotate', '--json')).stdout);
      const rotated = JSON.parse((await kassa(db.env, 'key', 'rotate', '--merchant', created.merchantId, '--mode', 'live', '--json')).stdout);
      assert.match(rotated.apiKey, /^live_/);
      assert.notEqual(rotated.apiKey, created.liveApiKey);
    });

    test("merchant vault-path sets the merchant's vault payment path; confirm is the default", async () => {
      const created = JSON.parse((await kassa(db.env, 'merchant', 'create', '--name', 'Vault', '--json')).stdout);
      const settingsOf = async () => {
        const store = await openStore(loadConfig(db.env));
        try {
          return JSON.parse((await findMerchant(store.read, created.merchantId))!.settings).vaultPaymentPath;
        } finally {
          await store.close();
        }
      };
      assert.equal(await settingsOf(), 'confirm');
      const { stdout } = await kassa(db.env, 'merchant', 'vault-path', '--merchant', created.merchantId, '--path', 'direct');
      assert.match(stdout, /direct/);
      assert.equal(await settingsOf(), 'direct');
      await assert.rejects(kassa(db.env, 'merchant', 'vault-path', '--merchant', created.merchantId, '--path', 'sometimes'));
      await assert.rejects(kassa(db.env, 'merchant', 'vault-path', '--merchant', 'mer_nope', '--path', 'direct'), /no merchant/);
    });

    test('merchant card-brands sets the brands the merchant accepts, at least one of the known ones', async () => {
      const created = JSON.parse((await kassa(db.env, 'merchant', 'create', '--name', 'Brands', '--json')).stdout);
      const { stdout } = await kassa(db.env, 'merchant', 'card-brands', '--merchant', created.merchantId, '--brands', 'mastercard, visa');
      assert.match(stdout, /card brands of mer_\w+: visa, mastercard/);
      const store = await openStore(loadConfig(db.env));
      try {
        assert.deepEqual(JSON.parse((await findMerchant(store.read, created.merchantId))!.settings).cardBrands, ['visa', 'mastercard']);
      } finally {
        await store.close();
      }
      await assert.rejects(kassa(db.env, 'merchant', 'card-brands', '--merchant', created.merchantId, '--brands', 'diners'), /--brands must be among/);
      await assert.rejects(kassa(db.env, 'merchant', 'card-brands', '--merchant', created.merchantId, '--brands', ','), /--brands must name at least one/);
    });

    test('merchant methods enables and disables payment methods, prints them without a change, and refuses unknown names', async () => {
      const created = JSON.parse((await kassa(db.env, 'merchant', 'create', '--name', 'Methods', '--json')).stdout);
      const shown = await kassa(db.env, 'merchant', 'methods', '--merchant', created.merchantId);
      assert.equal(shown.stdout, `payment methods of ${created.merchantId}: card, landingpage, walletpay\n`);
      const changed = await kassa(db.env, 'merchant', 'methods', '--merchant', created.merchantId, '--disable', 'walletpay, landingpage');
      assert.equal(changed.stdout, `payment methods of ${created.merchantId}: card\n`);
      const json = await kassa(db.env, 'merchant', 'methods', '--merchant', created.merchantId, '--enable', 'walletpay', '--disable', 'card', '--json');
      assert.deepEqual(JSON.parse(json.stdout), { merchantId: created.merchantId, methods: ['walletpay'] });
      const store = await openStore(loadConfig(db.env));
      try {
        assert.deepEqual(JSON.parse((await findMerchant(store.read, created.merchantId))!.settings).methods, ['walletpay']);
      } finally {
        await store.close();
      }
      assert.equal(
        (await kassa(db.env, 'merchant', 'methods', '--merchant', created.merchantId, '--disable', 'walletpay')).stdout,
        `payment methods of ${created.merchantId}: none\n`,
      );

      for (const [args, message] of [
        [
          ['--enable', 'card,cash'],
          /^kassa: --enable names an unknown payment method: cash \(known: card, landingpage, walletpay, ideal, paypal, klarna, banktransfer\)\n$/,
        ],
        [
          ['--disable', 'cash,cheque'],
          /^kassa: --disable names unknown payment methods: cash, cheque \(known: card, landingpage, walletpay, ideal, paypal, klarna, banktransfer\)\n$/,
        ],
        [['--enable', 'card', '--disable', 'card'], /^kassa: --disable names card, which --enable names too\n$/],
      ] as const) {
        await assert.rejects(kassa(db.env, 'merchant', 'methods', '--merchant', created.merchantId, ...args), (e: { code: number; stderr: string }) => {
          assert.equal(e.code, 1, args.join(' '));
          // The audit entry's log line (JSON) comes first; the refusal is the line a person reads.
          assert.match(e.stderr.replace(/^\{.*"audit":true.*\}\n/gm, ''), message);
          return true;
        });
      }
      await assert.rejects(kassa(db.env, 'merchant', 'methods', '--merchant', 'mer_nope'), /no merchant/);
      await assert.rejects(kassa(db.env, 'merchant', 'methods', '--merchant', 'mer_nope', '--enable', 'card'), /no merchant/);
      assert.equal(
        (await kassa(db.env, 'merchant', 'methods', '--merchant', created.merchantId)).stdout,
        `payment methods of ${created.merchantId}: none\n`,
        'a refused change changes nothing',
      );
    });

    test('bad arguments fail with a message and a non-zero exit', async () => {
      await assert.rejects(kassa(db.env, 'key', 'rotate', '--merchant', 'mer_nope', '--mode', 'test'), (e: { code: number; stderr: string }) => {
        assert.equal(e.code, 1);
        assert.match(e.stderr, /no merchant/);
        return true;
      });
      await assert.rejects(kassa(db.env, 'key', 'rotate', '--merchant', 'x', '--mode', 'prod'));
      await assert.rejects(kassa(db.env, 'merchant', 'create'));
    });
  });
}

describe('kassa wallet test-token', () => {
  test('prints a test wallet token for the amount, currency and brand, which opens with the test keys', async () => {
    const { stdout } = await kassa({}, 'wallet', 'test-token', '--amount', '25.10', '--currency', 'eur', '--brand', 'mastercard');
    const token = JSON.parse(stdout) as WalletPaymentToken;
    assert.equal(token.paymentData.version, 'EC_v1');
    assert.equal(token.paymentMethod?.network, 'MasterCard');
    const opened = await openWalletToken(token, { trust: { rootsPem: [testWalletPki.rootPem] }, keys: [testWalletPki.processingKey] });
    assert.deepEqual([opened.amountMinor, opened.currencyNumeric, opened.pan], [2510, '978', '5555555555554444']);
  });

  test('refuses an amount the currency cannot hold, an unknown currency or brand, with exit code 1', async () => {
    for (const args of [
      ['--amount', '1.234', '--currency', 'EUR'],
      ['--amount', '1', '--currency', 'XYZ'],
      ['--amount', '1', '--currency', 'EUR', '--brand', 'diners'],
    ]) {
      const failed = await kassa({}, 'wallet', 'test-token', ...args).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failed?.code, 1, args.join(' '));
      assert.match(failed!.stderr, /^kassa: /);
    }
  });
});
