/**
 * Faults of the database are answers, not deaths (docs/operations.md "When the database is
 * away"). A PostgreSQL of the test's own (test/support/private-postgres.ts) is restarted with
 * `pg_ctl stop -m fast` under Kassa, idle and under a light create load, with one process and with
 * a primary and two HTTP processes: no process ends, every request during the outage (/metrics too) is a 503
 * problem with Retry-After (never a 500, never a dropped connection), readiness is 503 during it
 * and 200 after, and creates succeed again without restarting Kassa. On SQLite, a full disk (a
 * tmpfs filled up) is a 503 and not ready (every probe while creates are refused) until space is freed, and then the database checks
 * whole; a start of the server or of a `kassa` command on a filesystem without room for the WAL,
 * or with KEY_DIR on a full one, ends in one line naming the file and leaves nothing half-made.
 * The tmpfs parts need root (`mount`): CI runs as root, where they fail rather than skip.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { backends, basic, cardPayment, POSTGRES_ADMIN_URL, startTestApp } from '../support/app.ts';
import { databaseUnavailable } from '../../src/store/unavailable.ts';
import { DATABASE_CHECK_SHARED_MS } from '../../src/api/cockpit.ts';
import { randomBase62 } from '../../src/lib/tokens.ts';
import { childPids, KASSA_CLI, KASSA_MAIN, kassaCli, startKassaProcess, waitForExit, type KassaProcess } from '../support/process.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { fillUp, mountTmpfs, needsRoot } from '../support/disk.ts';

const root = path.resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 100 ms until it returns a value, at most `ms`. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const found = await probe();
    if (found !== undefined) return found;
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/** What the requests of one stretch of the test got: status counts, and requests whose connection dropped. */
class Tally {
  readonly statuses = new Map<number, number>();
  dropped = 0;
  count(status: number) {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }
  get(status: number) {
    return this.statuses.get(status) ?? 0;
  }
  toString() {
    return `${JSON.stringify(Object.fromEntries(this.statuses))}, ${this.dropped} dropped`;
  }
}

/** A 503 the database's absence answers: a problem with Retry-After. */
async function assertUnavailable(res: Response, what: string) {
  const body = await res.text();
  assert.equal(res.status, 503, `${what}: ${body.replace(/\s+/g, ' ').slice(0, 300)}`);
  assert.match(res.headers.get('retry-after') ?? '', /^\d+$/, `${what} carries Retry-After`);
  return body;
}

function merchantApi(baseUrl: string, key: string) {
  let next = 0;
  return {
    create: () =>
      fetch(`${baseUrl}/api/v1/payment`, {
        method: 'POST',
        headers: { authorization: basic(key), 'content-type': 'application/json' },
        body: JSON.stringify(cardPayment({ merchantOrderReference: `fault-${next++}` })),
      }),
    ready: () => fetch(`${baseUrl}/health/ready`),
  };
}

/** Creates from `clients` clients, a few milliseconds apart, until stopped: every answer counted in `tally`. */
function createLoad(api: ReturnType<typeof merchantApi>, tally: Tally, clients = 2) {
  let stopped = false;
  const client = async () => {
    while (!stopped) {
      try {
        const res = await api.create();
        tally.count(res.status);
        if (res.status === 503) await assertUnavailable(res, 'a create under load');
        else await res.arrayBuffer();
      } catch {
        tally.dropped++;
      }
      await sleep(10);
    }
  };
  const running = Array.from({ length: clients }, client);
  return async () => {
    stopped = true;
    await Promise.all(running);
  };
}

describe('a PostgreSQL restart under Kassa', () => {
  let server: PrivatePostgres;
  const made: string[] = [];
  before(async () => {
    server = await startPrivatePostgres();
  });
  after(() => {
    server?.remove();
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  const RESTARTS = { idle: 3, loaded: 3 };
  const METRICS_TOKEN = 'metrics-token-of-the-fault-tests';

  for (const processes of [1, 2]) {
    test(`HTTP_PROCESSES=${processes}: ${RESTARTS.idle} restarts idle and ${RESTARTS.loaded} under creates, every request during them a 503 with Retry-After, all processes alive, ready and creating after`, async () => {
      const database = `kassa_${processes}`;
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-keys-'));
      made.push(keyDir);
      const env = {
        DATABASE_URL: server.url.replace(/\/postgres$/, `/${database}`),
        KEY_DIR: keyDir,
        HTTP_PROCESSES: String(processes),
        RATE_LIMIT_PER_SECOND: '0',
        METRICS_TOKEN: METRICS_TOKEN,
      };
      const key = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Fault Shop', '--json')).testApiKey as string;
      const kassa = await startKassaProcess(env);
      try {
        const api = merchantApi(kassa.baseUrl, key);
        const first = await api.create();
        assert.equal(first.status, 200, await first.clone().text());
        const { payUrl } = (await first.json()) as { payUrl: string };
        const pids = childPids(kassa.child.pid!).sort();
        assert.equal(pids.length, processes === 1 ? 0 : processes);
        const during = new Tally();
        const underLoad = new Tally();
        for (let restart = 0; restart < RESTARTS.idle + RESTARTS.loaded; restart++) {
          const stopLoad = restart >= RESTARTS.idle ? createLoad(api, underLoad) : undefined;
          if (stopLoad) await sleep(300);
          server.stop();
          // Readiness shares its check's answer for a second: it turns within a few.
          const notReady = await until('readiness 503 during the outage', 5000, async () => {
            const res = await api.ready();
            return res.status === 503 ? ((await res.json()) as { checks: { database: string } }) : void (await res.arrayBuffer());
          });
          assert.equal(notReady.checks.database, 'unreachable');
          for (let i = 0; i < 5; i++) {
            const res = await api.create().catch(() => undefined);
            if (!res) {
              during.dropped++;
              continue;
            }
            during.count(res.status);
            const body = await assertUnavailable(res, 'a create during the outage');
            assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
            assert.equal(JSON.parse(body).title, 'Database unavailable');
          }
          // A scrape reads the webhook backlog: with several processes the primary reads it and tells the HTTP process.
          const metrics = await fetch(`${kassa.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
          during.count(metrics.status);
          assert.equal(JSON.parse(await assertUnavailable(metrics, '/metrics during the outage')).title, 'Database unavailable');
          const page = await fetch(payUrl);
          during.count(page.status);
          assert.match(await assertUnavailable(page, 'the payment page during the outage'), /<html/i);
          // A console page that reads the database (a set-password link is looked up).
          const consolePage = await fetch(`${kassa.baseUrl}/dashboard/set-password/${randomBase62(32)}`);
          during.count(consolePage.status);
          assert.match(await assertUnavailable(consolePage, 'a console page during the outage'), /<html/i);
          server.start();
          await until('readiness 200 after the restart', 20_000, async () => {
            const res = await api.ready();
            await res.arrayBuffer();
            return res.status === 200 || undefined;
          });
          await stopLoad?.();
          for (let i = 0; i < 3; i++) {
            const res = await api.create();
            assert.equal(res.status, 200, `a create after restart ${restart + 1}: ${await res.text()}`);
          }
          assert.equal(kassa.child.exitCode, null, kassa.output());
          assert.deepEqual(childPids(kassa.child.pid!).sort(), pids, `no HTTP process ended:\n${kassa.output()}`);
        }
        console.log(`HTTP_PROCESSES=${processes}: during outages ${during}; under load across restarts ${underLoad}`);
        assert.deepEqual([...during.statuses.keys()], [503], `requests during the outages: ${during}`);
        assert.equal(during.dropped, 0);
        assert.deepEqual(
          [...underLoad.statuses.keys()].filter((status) => status !== 200 && status !== 503),
          [],
          `creates under load: ${underLoad}`,
        );
        assert.ok(underLoad.get(503) > 0 && underLoad.get(200) > 0, `the load saw outages and successes: ${underLoad}`);
        assert.equal(underLoad.dropped, 0, `creates under load: ${underLoad}`);
        assert.doesNotMatch(kassa.output(), /unhandled error|uncaught|an HTTP process ended/i);
      } catch (error) {
        kassa.child.kill('SIGKILL');
        throw new Error(`${(error as Error).message}\nKassa's output, last lines:\n${kassa.output().slice(-4000)}`, { cause: error });
      }
      kassa.child.kill('SIGTERM');
      assert.equal(await waitForExit(kassa.child), 0, `a clean stop after the restarts: ${kassa.output().slice(-4000)}`);
    });
  }
});

describe('a PostgreSQL connection ended while a unit of work holds it between two queries', { skip: !backends.includes('postgres') && 'no PostgreSQL' }, () => {
  test('fails that unit as the database being away, and the process and the next units go on', async () => {
    const t = await startTestApp('postgres');
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      const failure = await t.store
        .transact(async (db) => {
          const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          // The server's 57P01 arrives while no query runs on the client: pg raises it as the client's 'error' event.
          await sleep(300);
          await sql`SELECT 1`.execute(db);
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.equal(databaseUnavailable(failure)?.status, 503, String(failure));
      for (let i = 0; i < 3; i++) assert.equal((await t.client.post('/payment', cardPayment())).statusCode, 200);
    } finally {
      await admin.end();
      await t.close();
    }
  });
});

describe('SQLite on a full disk', { skip: needsRoot }, () => {
  test('a full disk is a 503 with Retry-After and not ready; once space is freed, creates succeed and the database is whole', async () => {
    const disk = mountTmpfs('80m');
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-keys-'));
    const dataDir = path.join(disk.dir, 'data');
    const env = { DATA_DIR: dataDir, KEY_DIR: keyDir, HTTP_PROCESSES: '1', RATE_LIMIT_PER_SECOND: '0' };
    let kassa: KassaProcess | undefined;
    try {
      const key = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Full Disk Shop', '--json')).testApiKey as string;
      kassa = await startKassaProcess(env);
      const api = merchantApi(kassa.baseUrl, key);
      assert.equal((await api.create()).status, 200);
      const filler = path.join(disk.dir, 'filler');
      fillUp(filler);
      // The preallocated WAL still takes commits for a while (sqlite.ts), and once larger ones fail
      // smaller ones still fit for seconds: readiness, which asks the filesystem's free space, is
      // not ready as soon as its shared answer of before the fill has run out.
      const full = new Tally();
      const stopLoad = createLoad(api, full, 4);
      await until('a 503 once the disk is full', 60_000, async () => full.get(503) || undefined);
      await stopLoad();
      await sleep(DATABASE_CHECK_SHARED_MS);
      for (let probe = 0; probe < 5; probe++) {
        const refused = await api.create();
        const body = await assertUnavailable(refused, 'a create on the full disk');
        assert.equal(JSON.parse(body).title, 'Database unavailable');
        const ready = await api.ready();
        const notReady = (await ready.json()) as { checks: { database: string }; reason: string };
        assert.equal(ready.status, 503, `readiness while creates are refused: ${JSON.stringify(notReady)}`);
        assert.equal(notReady.checks.database, 'not writable');
        assert.equal(notReady.reason, 'ENOSPC');
        await sleep(DATABASE_CHECK_SHARED_MS / 2);
      }
      console.log(`SQLite, disk full: creates ${full}`);
      assert.deepEqual(
        [...full.statuses.keys()].filter((status) => status !== 200 && status !== 503),
        [],
        `creates on the filling disk: ${full}`,
      );
      assert.equal(full.dropped, 0);

      fs.rmSync(filler);
      await until('a create once space is freed', 15_000, async () => ((await api.create()).status === 200 ? true : undefined));
      await until('readiness 200 once space is freed', 5000, async () => ((await api.ready()).status === 200 ? true : undefined));
      assert.equal(kassa.child.exitCode, null, kassa.output());
      assert.doesNotMatch(kassa.output(), /unhandled error|uncaught/i);
      kassa.child.kill('SIGTERM');
      assert.equal(await waitForExit(kassa.child), 0, kassa.output());
      const db = new BetterSqlite3(path.join(dataDir, 'kassa.db'), { readonly: true });
      try {
        assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
      } finally {
        db.close();
      }
    } finally {
      if (kassa?.child.exitCode === null) kassa.child.kill('SIGKILL');
      if (kassa) await waitForExit(kassa.child);
      disk.remove();
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  });

  /** The server's start and a `kassa` command that opens the database: each says what to fix in one line. */
  const programs = {
    'the server': [...KASSA_MAIN],
    'the kassa command': [...KASSA_CLI, 'merchant', 'create', '--name', 'Small Disk Shop'],
  };
  /** Runs `args` to its end: its exit code and everything it wrote. */
  async function runToEnd(args: string[], env: Record<string, string>) {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env, HTTP_PROCESSES: '1', PORT: '0', DEMO_MERCHANT: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    return { code: await waitForExit(child), lines: output.trim().split('\n') };
  }

  for (const [program, args] of Object.entries(programs)) {
    test(`${program} on a filesystem without room for the WAL ends with one line naming it and the space, and leaves no WAL`, async () => {
      const disk = mountTmpfs('2m');
      const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-keys-'));
      const dataDir = path.join(disk.dir, 'data');
      try {
        const { code, lines } = await runToEnd(args, { DATA_DIR: dataDir, KEY_DIR: keyDir });
        assert.equal(code, 1, lines.join('\n'));
        const wal = path.join(dataDir, 'kassa.db-wal');
        const free = lines[0]?.match(/has (\d+\.\d) MiB/)?.[1];
        assert.deepEqual(lines, [
          `kassa: not enough disk space for the database's write-ahead log ${wal}: it needs 64.0 MiB, the filesystem has ${free} MiB free; free some space or set DATA_DIR to a larger filesystem`,
        ]);
        assert.ok(Number(free) <= 2);
        assert.equal(fs.existsSync(wal), false, 'no partial WAL left behind');
      } finally {
        disk.remove();
        fs.rmSync(keyDir, { recursive: true, force: true });
      }
    });

    test(`${program} with KEY_DIR on a full filesystem ends with one line naming the key file, and leaves no part of it`, async () => {
      const disk = mountTmpfs('1m');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-data-'));
      const keyDir = path.join(disk.dir, 'keys');
      try {
        fs.mkdirSync(keyDir);
        fillUp(path.join(disk.dir, 'filler'));
        const { code, lines } = await runToEnd(args, { DATA_DIR: dataDir, KEY_DIR: keyDir });
        assert.equal(code, 1, lines.join('\n'));
        assert.deepEqual(lines, [
          `kassa: not enough disk space to make the key file ${path.join(keyDir, 'secrets-key.json')}; free some space or set KEY_DIR to another filesystem`,
        ]);
        assert.deepEqual(fs.readdirSync(keyDir), [], 'no partly written key file left behind');
      } finally {
        disk.remove();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
