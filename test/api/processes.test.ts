/**
 * Several HTTP processes behind one port (HTTP_PROCESSES=2), on SQLite and PostgreSQL:
 * consecutive connections land on different processes, and still a 3-D Secure
 * challenge started on one ends on another (one card-sealing key), simultaneous
 * duplicates of an Idempotency-Reference make one payment, simultaneous refunds never add
 * up to more than the sale, a killed HTTP process is
 * replaced without the service stopping, and SIGTERM stops them all with exit code 0 —
 * also when it is sent to `npm start` rather than to Kassa itself (as a container stop does).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMetrics, sampleValue } from '../support/metrics.ts';
import { api, backends, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { childPids, freePort, httpInjector, kassaCli, startKassaProcess, waitForExit, type KassaProcess } from '../support/process.ts';
import { card, openPage, playChallenge, postForm } from '../pages/flow.ts';

const PROCESSES = 2;
const METRICS_TOKEN = 'cluster-metrics-token';

/** Waits for `condition`, at most 60 s: a process starting on a loaded CI machine can take many seconds. */
async function until(condition: () => boolean, what: string | (() => string)) {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(condition(), typeof what === 'string' ? what : what());
}

for (const backend of backends) {
  describe(`several HTTP processes on ${backend}`, () => {
    let db: TestDatabase;
    let kassa: KassaProcess;
    let merchant: ReturnType<typeof api>;
    before(async () => {
      db = await createTestDatabase(backend);
      const { testApiKey } = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Cluster Shop', '--json'));
      kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: String(PROCESSES), RATE_LIMIT_PER_SECOND: '0', METRICS_TOKEN });
      merchant = api(httpInjector(kassa.baseUrl), testApiKey);
      await until(
        () => childPids(kassa.child.pid!).length === PROCESSES,
        () => `${PROCESSES} HTTP processes; now ${childPids(kassa.child.pid!)}; Kassa's output:\n${kassa.output()}`,
      );
    });
    after(async () => {
      if (kassa?.child.exitCode === null) kassa.child.kill('SIGKILL');
      await db?.drop();
    });

    test('a challenge started on one process completes on another', async () => {
      const http = httpInjector(kassa.baseUrl);
      const created = await merchant.post('/payment', cardPayment({ amount: '12.11' }));
      assert.equal(created.statusCode, 200, created.body);
      const payment = created.json();
      const { path, csrf } = await openPage(http, payment.payUrl);
      // Every request below is a new connection, so the card is sealed and unsealed by different processes.
      const challenge = await postForm(http, `${path}/card`, { csrf, ...card() });
      assert.equal(challenge.statusCode, 200, challenge.body);
      const done = await playChallenge(http, path, challenge.body, '1234');
      assert.equal(done.statusCode, 303, done.body);
      const read = (await merchant.get(`/transaction?reference=${payment.reference}`)).json();
      assert.equal(read.status, 'success');
    });

    test('20 simultaneous requests with one Idempotency-Reference over separate connections make one payment', async () => {
      const body = cardPayment({ merchantOrderReference: 'cluster-once' });
      const answers = await Promise.all(Array.from({ length: 20 }, () => merchant.post('/payment', body, { headers: { 'idempotency-reference': 'cluster-once' } })));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        Array(20).fill(200),
      );
      assert.equal(new Set(answers.map((a) => a.json().reference)).size, 1);
      assert.equal(answers.filter((a) => a.headers['idempotent-replayed'] !== 'true').length, 1, 'exactly one was not a replay');
    });

    test('20 simultaneous refunds of 1.00 on a 10.00 sale over separate connections accept exactly 10', async () => {
      const sale = (await merchant.post('/payment', cardPayment({ amount: '10.00' }))).json().reference;
      assert.equal((await merchant.post('/test/complete', { reference: sale, outcome: 'success' })).statusCode, 200);
      const answers = await Promise.all(Array.from({ length: 20 }, () => merchant.post('/refund', { reference: sale, amount: '1.00' })));
      assert.equal(answers.filter((a) => a.statusCode === 200).length, 10, answers.map((a) => a.statusCode).join(' '));
      assert.ok(answers.every((a) => a.statusCode === 200 || a.json().errors?.[0]?.code === 'fully_refunded' || a.statusCode === 409));
      assert.equal((await merchant.get(`/transaction?reference=${sale}`)).json().details.refundedAmount, 10);
    });

    test('every HTTP process is ready: it asks the primary, which runs the workers', async () => {
      // New connections: each lands on the next process.
      for (let i = 0; i < PROCESSES * 2; i++) {
        const res = await httpInjector(kassa.baseUrl).inject({ method: 'GET', url: '/health/ready' });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().checks, { database: 'ok', migrations: 'current', workers: 'running' });
      }
    });

    test('/metrics, asked of any HTTP process, adds up every process: requests served by each, webhooks sent by the primary', async () => {
      const scrape = async () => {
        const res = await httpInjector(kassa.baseUrl).inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
        assert.equal(res.statusCode, 200, res.body);
        return parseMetrics(res.body);
      };
      const success = { method: 'card', status: 'success', mode: 'test' };
      const successesBefore = sampleValue(await scrape(), 'kassa_payment_transitions_total', success);
      const received: string[] = [];
      const receiver = http.createServer((request, response) => {
        request.resume();
        request.on('end', () => {
          received.push(String(request.headers['webhook-id']));
          response.end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = receiver.address() as AddressInfo;
        const payment = (await merchant.post('/payment', cardPayment({ webhookUrl: `http://127.0.0.1:${port}/hook` }))).json();
        assert.equal((await merchant.post('/test/complete', { reference: payment.reference, outcome: 'success' })).statusCode, 200);
        await until(() => received.length > 0, 'the primary delivered the webhook');
        const LIVE_CHECKS = 6;
        for (let i = 0; i < LIVE_CHECKS; i++) assert.equal((await httpInjector(kassa.baseUrl).inject({ method: 'GET', url: '/health/live' })).statusCode, 200);
        for (let i = 0; i < PROCESSES; i++) {
          const samples = await scrape();
          assert.equal(sampleValue(samples, 'kassa_http_request_duration_seconds_count', { route: '/health/live', status: '200' }), LIVE_CHECKS);
          assert.equal(sampleValue(samples, 'kassa_webhook_attempts_total', { outcome: 'delivered' }), 1);
          assert.equal(sampleValue(samples, 'kassa_payment_transitions_total', success), successesBefore + 1);
          assert.ok(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds'));
        }
      } finally {
        receiver.close();
      }
    });

    test('a killed HTTP process is replaced and the service keeps answering', async () => {
      const [victim, survivor] = childPids(kassa.child.pid!);
      process.kill(victim, 'SIGKILL');
      // Once the primary has reaped it, it deals no more connections to it.
      await until(() => !childPids(kassa.child.pid!).includes(victim), 'the primary noticed the death');
      for (let i = 0; i < 6; i++) {
        const answer = await merchant.post('/payment', cardPayment());
        assert.equal(answer.statusCode, 200, answer.body);
      }
      await until(
        () => {
          const now = childPids(kassa.child.pid!);
          return now.length === PROCESSES && now.includes(survivor) && !now.includes(victim);
        },
        () => `a new HTTP process replaced the killed one; processes now ${childPids(kassa.child.pid!)}; Kassa's output:\n${kassa.output()}`,
      );
    });

    test('SIGTERM stops the primary and every HTTP process with exit code 0', async () => {
      const children = childPids(kassa.child.pid!);
      kassa.child.kill('SIGTERM');
      assert.equal(await waitForExit(kassa.child), 0, kassa.output());
      for (const pid of children) assert.throws(() => process.kill(pid, 0), 'HTTP process still running');
    });
  });
}

test('SIGTERM sent to `npm start` stops Kassa and all its processes', async () => {
  const db = await createTestDatabase('sqlite');
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, ...db.env, PORT: String(port), HOST: '127.0.0.1', DEMO_MERCHANT: 'false', LOG_LEVEL: 'warn', HTTP_PROCESSES: String(PROCESSES) },
    stdio: 'ignore',
  });
  try {
    // npm → Kassa's primary → its HTTP processes (however npm's shell runs the script).
    const family = () => {
      const found: number[] = [];
      for (let next = childPids(npm.pid!); next.length > 0; next = next.flatMap(childPids)) found.push(...next);
      return found;
    };
    await until(() => family().length >= 1 + PROCESSES, 'npm start runs Kassa with its HTTP processes');
    const started = family();
    npm.kill('SIGTERM');
    await waitForExit(npm);
    await until(() => started.every((pid) => !alive(pid)), 'every Kassa process ended');
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
    await db.drop();
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
