/**
 * `npm run bench`: Kassa per core, against a yardstick and a peer measured in the same run
 * (these machines are noisy; ratios travel better). Every server under test runs pinned to
 * core 0 (`taskset`), and this process, which generates the load (autocannon; bench/open-loop.ts
 * for the fixed-rate run), to core 1. The yardstick is a Fastify hello-world; the peer an
 * in-memory mock PSP (stripe-stateful-mock) creating a charge. Kassa runs with one HTTP process
 * on SQLite and on PostgreSQL: create, read, and creates offered at a fixed rate (half the peer's
 * create throughput) in an open loop. Then Kassa with `npm start`'s default (one HTTP process per
 * core), sharing the cores with the load generator. Kassa always runs from the compiled build, as
 * `npm start` does (`npm run bench` builds first; test/support/process.ts KASSA_MAIN). Results
 * are printed and written to bench/results/latest.json.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { fullCardPayment } from './fixtures.ts';
import { openLoop, type OpenLoopResult } from './open-loop.ts';
import { createTestDatabase, type Backend } from '../test/support/app.ts';
import { freePort, kassaCli, KASSA_MAIN } from '../test/support/process.ts';
import { loadConfig } from '../src/config.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const WARMUP_S = 2;
const OPEN_LOOP_S = 10;
const CONNECTIONS = 50;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',') as Backend[];
const SERVER_CORE = '0';
const LOAD_CORE = '1';
const ALL_CORES = `0-${os.cpus().length - 1}`;
const root = path.resolve(import.meta.dirname, '..');
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString());

// As `npm start` would run it on this machine (counted before this process is pinned to one core).
const everyCore = loadConfig({}).httpProcesses;
// autocannon and the open-loop generator run in this process: every thread of it on the load core.
execFileSync('taskset', ['-a', '-p', '-c', LOAD_CORE, String(process.pid)], { stdio: 'ignore' });

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU time of the server process (all its threads) per request answered; one-process servers only. */
  cpuMicrosPerRequest?: number;
  /** The server's CPU time over the wall time: near 1 means the server's core, not the load generator, was the limit. */
  serverCpuShare?: number;
}

/** A server under test, started through `taskset` (which execs node: the child's pid is the server's). */
interface Server {
  child: ChildProcess;
  url: string;
  /** Whether its CPU time is its own: one process, pinned. */
  pinned: boolean;
}

function launch(args: string[], env: Record<string, string>, cores: string): ChildProcess {
  const child = spawn('taskset', ['-c', cores, process.execPath, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) process.stderr.write(`${args.join(' ')} exited with ${code}\n`);
  });
  return child;
}

async function waitForAnswer(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url);
      return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

async function stop({ child }: Server) {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** User + system CPU seconds of a process so far, all its threads (proc(5): fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** What one run sends: a method and path, headers, a body, and per-request variation. */
interface Load {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** POST: a unique Idempotency-Reference on every request. */
  uniqueIdempotencyReference?: boolean;
  /** GET: cycle through these paths. */
  paths?: string[];
}

async function drive(name: string, server: Server, load: Load): Promise<Measured> {
  process.stderr.write(`measuring ${name}…\n`);
  await closedLoop(server, load, WARMUP_S);
  const cpuBefore = cpuSeconds(server.child.pid!);
  const started = performance.now();
  const result = await closedLoop(server, load, DURATION_S);
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ...(server.pinned && { cpuMicrosPerRequest: (cpu * 1e6) / result.requests.total, serverCpuShare: cpu / wallSeconds }),
  };
}

let sequence = 0;
const uniqueReference = () => `bench-${process.pid}-${++sequence}`;

function closedLoop(server: Server, load: Load, seconds: number) {
  let next = 0;
  return autocannon({
    url: server.url + load.path,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: load.method ?? 'GET',
        headers: load.headers,
        body: load.body,
        setupRequest: (request) => {
          if (load.uniqueIdempotencyReference) request.headers = { ...request.headers, 'idempotency-reference': uniqueReference() };
          if (load.paths) request.path = load.paths[next++ % load.paths.length];
          return request;
        },
      },
    ],
  });
}

async function measureHello(): Promise<Measured> {
  const port = await freePort();
  const server = { child: launch(['--import', 'tsx', 'bench/hello.ts'], { PORT: String(port) }, SERVER_CORE), url: `http://127.0.0.1:${port}`, pinned: true };
  try {
    await waitForAnswer(server.url);
    return await drive('hello-world', server, { path: '/' });
  } finally {
    await stop(server);
  }
}

/** The peer: an in-memory mock PSP creating a charge, nothing written to disk. */
async function measurePeer(): Promise<Measured> {
  const port = await freePort();
  const child = launch(['node_modules/stripe-stateful-mock/dist/cli.js'], { PORT: String(port), LOG_LEVEL: 'warn' }, SERVER_CORE);
  const server = { child, url: `http://127.0.0.1:${port}`, pinned: true };
  try {
    await waitForAnswer(server.url);
    return await drive('peer POST /v1/charges', server, {
      path: '/v1/charges',
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_x', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=1050&currency=eur&source=tok_visa',
    });
  } finally {
    await stop(server);
  }
}

interface KassaRuns {
  closed: Measured[];
  openLoop?: OpenLoopResult & { name: string };
}

/**
 * Kassa on one backend. `httpProcesses` 1: pinned to the server core, and an open-loop run of
 * creates at `openLoopRate`; otherwise as `npm start` runs it, on every core.
 */
async function measureKassa(backend: Backend, httpProcesses: number, openLoopRate?: number): Promise<KassaRuns> {
  const database = await createTestDatabase(backend);
  const port = await freePort();
  const env = {
    ...database.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    HTTP_PROCESSES: String(httpProcesses),
    LOG_LEVEL: 'warn',
    LOG_REQUESTS: 'false',
    DEMO_MERCHANT: 'false',
    RATE_LIMIT_PER_SECOND: '0',
  };
  const label = `${backend}, ${httpProcesses === 1 ? 'one core' : `${httpProcesses} processes`}`;
  try {
    const merchant = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Bench Shop', '--json'));
    const pinned = httpProcesses === 1;
    const server = { child: launch([...KASSA_MAIN], env, pinned ? SERVER_CORE : ALL_CORES), url: `http://127.0.0.1:${port}`, pinned };
    try {
      await waitForAnswer(`${server.url}/health`);
      const headers = { authorization: `Basic ${Buffer.from(`${merchant.testApiKey}:`).toString('base64')}`, 'content-type': 'application/json' };
      const body = JSON.stringify(fullCardPayment);
      const create = await drive(`Kassa POST /payment (${label})`, server, { path: '/api/v1/payment', method: 'POST', headers, body, uniqueIdempotencyReference: true });
      const references: string[] = [];
      for (let i = 0; i < 100; i++) {
        const res = await fetch(`${server.url}/api/v1/payment`, { method: 'POST', headers, body });
        references.push(((await res.json()) as { reference: string }).reference);
      }
      const read = await drive(`Kassa GET /transaction (${label})`, server, {
        path: '/api/v1/transaction',
        headers: { authorization: headers.authorization },
        paths: references.map((reference) => `/api/v1/transaction?reference=${reference}`),
      });
      if (openLoopRate === undefined) return { closed: [create, read] };
      const name = `Kassa POST /payment open loop (${label})`;
      process.stderr.write(`measuring ${name} at ${Math.round(openLoopRate)}/s…\n`);
      const load = { url: `${server.url}/api/v1/payment`, headers, body, ratePerSecond: openLoopRate };
      await openLoop({ ...load, idempotencyPrefix: uniqueReference(), seconds: WARMUP_S });
      const open = await openLoop({ ...load, idempotencyPrefix: uniqueReference(), seconds: OPEN_LOOP_S });
      return { closed: [create, read], openLoop: { name, ...open } };
    } finally {
      await stop(server);
    }
  } finally {
    await database.drop();
  }
}

/** Micro-benchmarks that other parts of Kassa register as bench/<name>.ts exporting a measure function. */
async function optionalMeasure<T>(file: string, exportName: string): Promise<T | undefined> {
  if (!fs.existsSync(path.join(root, file))) return undefined;
  const module = await import(path.join(root, file));
  return typeof module[exportName] === 'function' ? module[exportName]() : undefined;
}

const helloBefore = await measureHello();
const peer = await measurePeer();
const openLoopRate = peer.requestsPerSecond / 2;
const perCore: KassaRuns[] = [];
for (const backend of BACKENDS) perCore.push(await measureKassa(backend, 1, openLoopRate));
const multiProcess: KassaRuns[] = [];
for (const backend of BACKENDS) multiProcess.push(await measureKassa(backend, everyCore));
const helloAfter = await measureHello();
const hello: Measured = {
  ...helloBefore,
  requestsPerSecond: (helloBefore.requestsPerSecond + helloAfter.requestsPerSecond) / 2,
  p50Ms: (helloBefore.p50Ms + helloAfter.p50Ms) / 2,
  p99Ms: (helloBefore.p99Ms + helloAfter.p99Ms) / 2,
  cpuMicrosPerRequest: (helloBefore.cpuMicrosPerRequest! + helloAfter.cpuMicrosPerRequest!) / 2,
  serverCpuShare: (helloBefore.serverCpuShare! + helloAfter.serverCpuShare!) / 2,
};
const threedsValidation = await optionalMeasure<Record<string, number>>('bench/threeds-validation.ts', 'measureThreeDSValidation');
const webhooks = await optionalMeasure<Record<string, number>>('bench/webhooks.ts', 'measureWebhookThroughput');

const rows = [hello, peer, ...[...perCore, ...multiProcess].flatMap((runs) => runs.closed)].map((m) => ({
  ...m,
  helloRatio: m.requestsPerSecond / hello.requestsPerSecond,
  peerRatio: m.requestsPerSecond / peer.requestsPerSecond,
  // What each server would answer with a whole core to itself, from its CPU time per request: unlike
  // requests/s, not moved by other work on a shared machine (PostgreSQL's own CPU is not counted).
  cpuHelloRatio: m.cpuMicrosPerRequest === undefined ? undefined : hello.cpuMicrosPerRequest! / m.cpuMicrosPerRequest,
  cpuPeerRatio: m.cpuMicrosPerRequest === undefined ? undefined : peer.cpuMicrosPerRequest! / m.cpuMicrosPerRequest,
}));
const openLoops = perCore.flatMap((runs) => (runs.openLoop ? [runs.openLoop] : []));

const fixed = (value: number | undefined, digits: number) => (value === undefined ? '' : value.toFixed(digits));
console.log(
  `\nKassa benchmark: servers on core ${SERVER_CORE}, load (autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per run) on core ${LOAD_CORE}; ` +
    `the ${everyCore}-process runs on every core, with the load; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}, node ${process.version}`,
);
console.table(
  rows.map((r) => ({
    run: r.name,
    'req/s': Math.round(r.requestsPerSecond),
    '× hello': r.helloRatio.toFixed(3),
    '× peer': r.peerRatio.toFixed(3),
    'p50 ms': Number(r.p50Ms.toFixed(2)),
    'p99 ms': Number(r.p99Ms.toFixed(2)),
    'CPU µs/req': fixed(r.cpuMicrosPerRequest, 0),
    'CPU × hello': fixed(r.cpuHelloRatio, 3),
    'CPU × peer': fixed(r.cpuPeerRatio, 3),
    'server CPU': fixed(r.serverCpuShare, 2),
    'non-2xx': r.non2xx,
    errors: r.errors,
  })),
);
console.log(`Open loop: creates offered at half the peer's create throughput for ${OPEN_LOOP_S} s, latency from when each request was due`);
console.table(
  openLoops.map((r) => ({
    run: r.name,
    'offered/s': Math.round(r.offeredPerSecond),
    completed: r.completed,
    'p50 ms': Number(r.p50Ms.toFixed(2)),
    'p99 ms': Number(r.p99Ms.toFixed(2)),
    'max ms': Number(r.maxMs.toFixed(2)),
    'non-2xx': r.non2xx,
    errors: r.errors,
  })),
);

const rowOf = (prefix: string) => rows.find((r) => r.name.startsWith(prefix));
const sqliteCreate = rowOf('Kassa POST /payment (sqlite, one core)');
const sqliteRead = rowOf('Kassa GET /transaction (sqlite, one core)');
const postgresCreate = rowOf('Kassa POST /payment (postgres, one core)');
const sqliteOpen = openLoops.find((r) => r.name.includes('sqlite'));
const targets = [
  { target: 'SQLite create ≥ 1.3× peer', value: sqliteCreate?.peerRatio, met: (v: number) => v >= 1.3 },
  { target: 'SQLite create ≥ 1.3× peer, by CPU per request', value: sqliteCreate?.cpuPeerRatio, met: (v: number) => v >= 1.3 },
  { target: 'SQLite read ≥ 0.5× hello-world', value: sqliteRead?.helloRatio, met: (v: number) => v >= 0.5 },
  { target: 'SQLite read ≥ 0.5× hello-world, by CPU per request', value: sqliteRead?.cpuHelloRatio, met: (v: number) => v >= 0.5 },
  { target: 'SQLite open loop p99 ≤ 5 ms', value: sqliteOpen?.p99Ms, met: (v: number) => v <= 5 },
  { target: 'PostgreSQL create ≥ 0.06× hello-world', value: postgresCreate?.helloRatio, met: (v: number) => v >= 0.06 },
].flatMap(({ target, value, met }) => (value === undefined ? [] : [{ target, value: Number(value.toFixed(3)), met: met(value) }]));
console.table(targets);
if (threedsValidation)
  console.log(
    `3-D Secure 2 validation of a fully populated request: median ${threedsValidation.medianMicros.toFixed(1)} µs, p99 ${threedsValidation.p99Micros.toFixed(1)} µs`,
  );
if (webhooks) console.log(`Webhook delivery on SQLite: ${Math.round(webhooks.deliveredPerSecond)} webhooks/s (${webhooks.events} events)`);

const out = path.join(root, 'bench', 'results');
fs.mkdirSync(out, { recursive: true });
const report = {
  at: new Date().toISOString(),
  driver: 'autocannon',
  connections: CONNECTIONS,
  durationSeconds: DURATION_S,
  openLoopSeconds: OPEN_LOOP_S,
  serverCore: SERVER_CORE,
  loadCore: LOAD_CORE,
  cores: os.cpus().length,
  loadAverage: os.loadavg(),
  everyCoreHttpProcesses: everyCore,
  node: process.version,
  hello: { before: helloBefore, after: helloAfter },
  runs: rows,
  openLoops,
  targets,
  threedsValidation,
  webhooks,
};
fs.writeFileSync(path.join(out, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`written: ${path.relative(root, path.join(out, 'latest.json'))}`);
