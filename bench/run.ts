/**
 * `npm run bench`: Kassa per core, against a yardstick and a peer measured in the same run
 * (these machines are noisy; ratios travel better). Every server under test runs pinned to
 * core 0 (`taskset`), and this process, which generates the load (autocannon; bench/open-loop.ts
 * for the fixed-rate runs), to core 1. The yardstick is a Fastify hello-world; the peer an
 * in-memory mock PSP (stripe-stateful-mock) creating a charge, also offered creates in an open
 * loop at half and a quarter of its own throughput. Kassa runs with one HTTP process on SQLite
 * and on PostgreSQL: create (50 connections, and 1), creates one at a time from one client
 * beside the disk's own fdatasync, read, and creates offered in an open loop at the peer's same
 * rates from the same generator (PostgreSQL also at half its own create throughput); once more
 * on SQLite as `npm start` runs it (its log level and request log, standard output to a file);
 * then what logging costs (`loggingCost`): the quiet configuration, `npm start`'s and
 * `LOG_LEVEL=silent`, one Kassa each, driven in alternated rounds with hello-world measured before
 * each read (`readPerHello`, the read's ratio from those pairs). Then Kassa with `npm start`'s default (one HTTP process per
 * core), sharing the cores with the load generator. Kassa always runs from the compiled build, as
 * `npm start` does (`npm run bench` builds first; test/support/process.ts KASSA_MAIN). Results
 * are printed and written to bench/results/latest.json.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { fullCardPayment } from './fixtures.ts';
import { openLoop, type OpenLoopLoad, type OpenLoopResult } from './open-loop.ts';
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

/** `stdout`: a file its standard output goes to (as a service manager keeps it), else nowhere. */
function launch(args: string[], env: Record<string, string>, cores: string, stdout?: string): ChildProcess {
  const out = stdout === undefined ? 'ignore' : fs.openSync(stdout, 'a');
  const child = spawn('taskset', ['-c', cores, process.execPath, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] });
  if (typeof out === 'number') fs.closeSync(out);
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

async function drive(name: string, server: Server, load: Load, connections = CONNECTIONS, seconds = DURATION_S): Promise<Measured> {
  process.stderr.write(`measuring ${name}…\n`);
  await closedLoop(server, load, WARMUP_S, connections);
  const cpuBefore = cpuSeconds(server.child.pid!);
  const started = performance.now();
  const result = await closedLoop(server, load, seconds, connections);
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

function closedLoop(server: Server, load: Load, seconds: number, connections: number) {
  let next = 0;
  return autocannon({
    url: server.url + load.path,
    connections,
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

/** The yardstick, a Fastify hello-world, started pinned to the server core and answering. */
async function startHello(): Promise<Server> {
  const port = await freePort();
  const server = { child: launch(['--import', 'tsx', 'bench/hello.ts'], { PORT: String(port) }, SERVER_CORE), url: `http://127.0.0.1:${port}`, pinned: true };
  try {
    await waitForAnswer(server.url);
  } catch (error) {
    await stop(server);
    throw error;
  }
  return server;
}

/** The yardstick; with `alone`, also from one connection: what this machine charges any server for requests that arrive one at a time. */
async function measureHello(alone = false): Promise<{ fifty: Measured; one?: Measured }> {
  const server = await startHello();
  try {
    const fifty = await drive('hello-world', server, { path: '/' });
    return { fifty, ...(alone ? { one: await drive('hello-world, 1 connection', server, { path: '/' }, 1) } : {}) };
  } finally {
    await stop(server);
  }
}

/** One open-loop run, named, at a share of a closed-loop rate. */
interface NamedOpenLoop extends OpenLoopResult {
  name: string;
  /** Which rate it was offered: a share of the peer's create throughput, or of Kassa's own. */
  offeredAs: string;
}

/** The open-loop shares of the peer's create throughput every server is offered, from the same generator. */
const PEER_SHARES = [
  { share: 1 / 2, label: "half the peer's rate" },
  { share: 1 / 4, label: "a quarter of the peer's rate" },
];

async function openLoopRun(name: string, offeredAs: string, load: Omit<OpenLoopLoad, 'idempotencyPrefix' | 'seconds'>): Promise<NamedOpenLoop> {
  process.stderr.write(`measuring ${name} at ${Math.round(load.ratePerSecond)}/s…\n`);
  await openLoop({ ...load, idempotencyPrefix: uniqueReference(), seconds: WARMUP_S });
  return { name, offeredAs, ...(await openLoop({ ...load, idempotencyPrefix: uniqueReference(), seconds: OPEN_LOOP_S })) };
}

/** The peer: an in-memory mock PSP creating a charge, nothing written to disk; closed loop, then the open-loop rates from the same generator as Kassa's. */
async function measurePeer(): Promise<{ create: Measured; createAlone: Measured; openLoops: NamedOpenLoop[] }> {
  const port = await freePort();
  const child = launch(['node_modules/stripe-stateful-mock/dist/cli.js'], { PORT: String(port), LOG_LEVEL: 'warn' }, SERVER_CORE);
  const server = { child, url: `http://127.0.0.1:${port}`, pinned: true };
  const load = { headers: { authorization: 'Bearer sk_test_x', 'content-type': 'application/x-www-form-urlencoded' }, body: 'amount=1050&currency=eur&source=tok_visa' };
  try {
    await waitForAnswer(server.url);
    const create = await drive('peer POST /v1/charges', server, { path: '/v1/charges', method: 'POST', ...load });
    const createAlone = await drive('peer POST /v1/charges, 1 connection', server, { path: '/v1/charges', method: 'POST', ...load }, 1);
    const openLoops: NamedOpenLoop[] = [];
    for (const { share, label } of PEER_SHARES) {
      openLoops.push(
        await openLoopRun(`peer POST /v1/charges open loop (${label})`, label, {
          url: `${server.url}/v1/charges`,
          ...load,
          ratePerSecond: create.requestsPerSecond * share,
        }),
      );
    }
    return { create, createAlone, openLoops };
  } finally {
    await stop(server);
  }
}

/** Creates one at a time from one client, as most shops send them: each latency, and the server's CPU per create. */
interface Sequential {
  name: string;
  creates: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
}

async function sequentialCreates(name: string, server: Server, headers: Record<string, string>, body: string, count: number): Promise<Sequential> {
  process.stderr.write(`measuring ${name}…\n`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        `${server.url}/api/v1/payment`,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body), 'idempotency-reference': uniqueReference() } },
        (response) => response.resume().on('end', resolve),
      );
      request.on('error', reject);
      request.end(body);
    });
  for (let i = 0; i < 100; i++) await send();
  const latencies: number[] = [];
  const cpuBefore = cpuSeconds(server.child.pid!);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await send();
    latencies.push(performance.now() - started);
  }
  const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { name, creates: count, p50Ms: at(0.5), p99Ms: at(0.99), cpuMicrosPerRequest: (cpu * 1e6) / count };
}

/** The disk's own cost of a durable commit: a 4 KiB write and fdatasync, one after the other, in the database's directory. */
function fdatasyncLatency(directory: string, count = 300): { p50Ms: number; p99Ms: number } {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `fdatasync-probe-${process.pid}`);
  const fd = fs.openSync(file, 'w');
  const page = Buffer.alloc(4096, 1);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      fs.writeSync(fd, page, 0, page.length, (i % 16) * page.length);
      fs.fdatasyncSync(fd);
      latencies.push(performance.now() - started);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  latencies.sort((a, b) => a - b);
  return { p50Ms: latencies[Math.floor(count / 2)]!, p99Ms: latencies[Math.floor(count * 0.99)]! };
}

/** Kassa's create: a card payment with every 3-D Secure 2 field, under the merchant's test key, each with its own Idempotency-Reference. */
function kassaCreates(testApiKey: string) {
  const headers = { authorization: `Basic ${Buffer.from(`${testApiKey}:`).toString('base64')}`, 'content-type': 'application/json' };
  return { path: '/api/v1/payment', method: 'POST' as const, headers, body: JSON.stringify(fullCardPayment), uniqueIdempotencyReference: true };
}

/** Kassa's read: 100 payments created first through `url`, read in turn. */
async function kassaReads(url: string, { headers, body }: ReturnType<typeof kassaCreates>): Promise<Load> {
  const references: string[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${url}/api/v1/payment`, { method: 'POST', headers, body });
    references.push(((await res.json()) as { reference: string }).reference);
  }
  return {
    path: '/api/v1/transaction',
    headers: { authorization: headers.authorization },
    paths: references.map((reference) => `/api/v1/transaction?reference=${reference}`),
  };
}

interface KassaRuns {
  closed: Measured[];
  openLoops: NamedOpenLoop[];
  sequential?: Sequential;
  fdatasync?: { p50Ms: number; p99Ms: number };
}

interface KassaOptions {
  httpProcesses: number;
  /**
   * `quiet`: warnings only, no request log; `default`: as `npm start` runs it — its log level and
   * request log, standard output to a file as a service manager keeps it.
   */
  logging: 'quiet' | 'default';
  /** One core only: creates at these open-loop rates too. */
  openLoopRates?: { ratePerSecond: number; offeredAs: string }[];
  /** One core only: an open-loop run at this share of its own closed-loop create throughput. */
  ownShare?: number;
  /** One core only: creates from one connection and one at a time, and the disk's fdatasync. */
  alone?: boolean;
}

/**
 * Kassa on one backend. One HTTP process: pinned to the server core, with the runs `options`
 * asks for; otherwise as `npm start` runs it, on every core.
 */
async function measureKassa(backend: Backend, options: KassaOptions): Promise<KassaRuns> {
  const { httpProcesses, logging } = options;
  const database = await createTestDatabase(backend);
  const port = await freePort();
  const env: Record<string, string> = {
    ...database.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    HTTP_PROCESSES: String(httpProcesses),
    ...LOGGING[logging],
    DEMO_MERCHANT: 'false',
    RATE_LIMIT_PER_SECOND: '0',
  };
  const label = `${backend}, ${httpProcesses === 1 ? 'one core' : `${httpProcesses} processes`}${logging === 'default' ? ', npm start logging' : ''}`;
  const logFile = path.join(os.tmpdir(), `kassa-bench-${process.pid}.log`);
  try {
    const merchant = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Bench Shop', '--json'));
    const pinned = httpProcesses === 1;
    const server = {
      child: launch([...KASSA_MAIN], env, pinned ? SERVER_CORE : ALL_CORES, logging === 'default' ? logFile : undefined),
      url: `http://127.0.0.1:${port}`,
      pinned,
    };
    try {
      await waitForAnswer(`${server.url}/health`);
      const createLoad = kassaCreates(merchant.testApiKey);
      const { headers, body } = createLoad;
      const create = await drive(`Kassa POST /payment (${label})`, server, createLoad);
      const readLoad = await kassaReads(server.url, createLoad);
      const read = await drive(`Kassa GET /transaction (${label})`, server, readLoad);
      const runs: KassaRuns = { closed: [create, read], openLoops: [] };
      if (options.alone) {
        runs.closed.push(await drive(`Kassa POST /payment, 1 connection (${label})`, server, createLoad, 1));
        runs.closed.push(await drive(`Kassa GET /transaction, 1 connection (${label})`, server, readLoad, 1));
        runs.sequential = await sequentialCreates(`Kassa POST /payment one at a time (${label})`, server, headers, body, 2000);
        if (database.env.DATA_DIR) runs.fdatasync = fdatasyncLatency(database.env.DATA_DIR);
      }
      const load = { url: `${server.url}/api/v1/payment`, headers, body };
      for (const { ratePerSecond, offeredAs } of options.openLoopRates ?? []) {
        runs.openLoops.push(await openLoopRun(`Kassa POST /payment open loop (${label}, ${offeredAs})`, offeredAs, { ...load, ratePerSecond }));
      }
      if (options.ownShare !== undefined) {
        const offeredAs = `${options.ownShare} of its own create rate`;
        runs.openLoops.push(
          await openLoopRun(`Kassa POST /payment open loop (${label}, ${offeredAs})`, offeredAs, { ...load, ratePerSecond: create.requestsPerSecond * options.ownShare }),
        );
      }
      return runs;
    } finally {
      await stop(server);
    }
  } finally {
    fs.rmSync(logFile, { force: true });
    await database.drop();
  }
}

/** Each logging configuration's settings (`default`: none, as `npm start` runs). */
const LOGGING = {
  quiet: { LOG_LEVEL: 'warn', LOG_REQUESTS: 'false' },
  default: {},
  silent: { LOG_LEVEL: 'silent', LOG_REQUESTS: 'false' },
} as const;
const LOGGING_ROUNDS = 3;
const LOGGING_SECONDS = 4;

interface LoggingRuns {
  /** Per configuration, the run of median CPU per request of its rounds, creates and reads. */
  median: Record<keyof typeof LOGGING, { create: Measured; read: Measured }>;
  /** Every round's CPU µs per request, in the order run, with hello-world's in the same round. */
  rounds: { logging: keyof typeof LOGGING; createCpuMicros: number; readCpuMicros: number; helloCpuMicros: number }[];
  /** Per configuration, the median over its rounds of hello-world's CPU per request ÷ the read's, each pair measured one after the other. */
  readPerHello: Record<keyof typeof LOGGING, number>;
}

/**
 * What logging costs, measured so that the machine's drift between runs does not decide it: one
 * Kassa per logging configuration (quiet, as `npm start` logs — lines to a file — and
 * `LOG_LEVEL=silent`), all on one SQLite database and pinned to the server core, driven in turn,
 * LOGGING_ROUNDS rounds of creates and reads; each configuration's median round is its figure.
 * hello-world runs beside them, measured right before each configuration's reads, so that the
 * read's ratio to it is also taken from pairs the machine's drift did not separate.
 */
async function measureLogging(): Promise<LoggingRuns> {
  const database = await createTestDatabase('sqlite');
  const logFile = path.join(os.tmpdir(), `kassa-bench-logging-${process.pid}.log`);
  const base = { ...database.env, HOST: '127.0.0.1', HTTP_PROCESSES: '1', DEMO_MERCHANT: 'false', RATE_LIMIT_PER_SECOND: '0' };
  const servers: Partial<Record<keyof typeof LOGGING, Server>> = {};
  let hello: Server | undefined;
  try {
    hello = await startHello();
    const merchant = JSON.parse(kassaCli(base, 'merchant', 'create', '--name', 'Bench Shop', '--json'));
    for (const logging of Object.keys(LOGGING) as (keyof typeof LOGGING)[]) {
      const port = await freePort();
      const env = { ...base, ...LOGGING[logging], PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
      servers[logging] = { child: launch([...KASSA_MAIN], env, SERVER_CORE, logging === 'default' ? logFile : undefined), url: `http://127.0.0.1:${port}`, pinned: true };
      await waitForAnswer(`${servers[logging].url}/health`);
    }
    const createLoad = kassaCreates(merchant.testApiKey);
    const readLoad = await kassaReads(servers.quiet!.url, createLoad);
    const label = { quiet: 'quiet', default: 'npm start logging', silent: 'LOG_LEVEL=silent' } as const;
    const runs: Record<string, { create: Measured; read: Measured }[]> = {};
    const rounds: LoggingRuns['rounds'] = [];
    for (let round = 0; round < LOGGING_ROUNDS; round++) {
      for (const logging of Object.keys(LOGGING) as (keyof typeof LOGGING)[]) {
        const server = servers[logging]!;
        const create = await drive(`Kassa POST /payment (sqlite, one core, ${label[logging]}, alternated)`, server, createLoad, CONNECTIONS, LOGGING_SECONDS);
        const helloRound = await drive('hello-world (alternated)', hello, { path: '/' }, CONNECTIONS, LOGGING_SECONDS);
        const read = await drive(`Kassa GET /transaction (sqlite, one core, ${label[logging]}, alternated)`, server, readLoad, CONNECTIONS, LOGGING_SECONDS);
        (runs[logging] ??= []).push({ create, read });
        rounds.push({
          logging,
          createCpuMicros: Math.round(create.cpuMicrosPerRequest!),
          readCpuMicros: Math.round(read.cpuMicrosPerRequest!),
          helloCpuMicros: Math.round(helloRound.cpuMicrosPerRequest!),
        });
      }
    }
    const medianOf = (measured: Measured[]) => [...measured].sort((a, b) => a.cpuMicrosPerRequest! - b.cpuMicrosPerRequest!)[Math.floor(measured.length / 2)]!;
    const median = Object.fromEntries(
      Object.entries(runs).map(([logging, list]) => [logging, { create: medianOf(list.map((r) => r.create)), read: medianOf(list.map((r) => r.read)) }]),
    ) as LoggingRuns['median'];
    const medianNumber = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const readPerHello = Object.fromEntries(
      (Object.keys(LOGGING) as (keyof typeof LOGGING)[]).map((logging) => [
        logging,
        Number(medianNumber(rounds.filter((r) => r.logging === logging).map((r) => r.helloCpuMicros / r.readCpuMicros)).toFixed(3)),
      ]),
    ) as LoggingRuns['readPerHello'];
    return { median, rounds, readPerHello };
  } finally {
    if (hello) await stop(hello);
    for (const server of Object.values(servers)) await stop(server);
    fs.rmSync(logFile, { force: true });
    await database.drop();
  }
}

/** Micro-benchmarks that other parts of Kassa register as bench/<name>.ts exporting a measure function. */
async function optionalMeasure<T>(file: string, exportName: string): Promise<T | undefined> {
  if (!fs.existsSync(path.join(root, file))) return undefined;
  const module = await import(path.join(root, file));
  return typeof module[exportName] === 'function' ? module[exportName]() : undefined;
}

const { fifty: helloBefore, one: helloAlone } = await measureHello(true);
const peerRuns = await measurePeer();
const peer = peerRuns.create;
const peerRates = PEER_SHARES.map(({ share, label }) => ({ ratePerSecond: peer.requestsPerSecond * share, offeredAs: label }));
const perCore: KassaRuns[] = [];
for (const backend of BACKENDS) {
  perCore.push(
    await measureKassa(
      backend,
      backend === 'sqlite'
        ? { httpProcesses: 1, logging: 'quiet', openLoopRates: peerRates, alone: true }
        : { httpProcesses: 1, logging: 'quiet', openLoopRates: peerRates.slice(0, 1), ownShare: 0.5, alone: true },
    ),
  );
}
// As users run it: the same, with `npm start`'s logging; the difference to the quiet run is a figure of its own.
const asRun = BACKENDS.includes('sqlite') ? await measureKassa('sqlite', { httpProcesses: 1, logging: 'default' }) : undefined;
const logging = BACKENDS.includes('sqlite') ? await measureLogging() : undefined;
const multiProcess: KassaRuns[] = [];
for (const backend of BACKENDS) multiProcess.push(await measureKassa(backend, { httpProcesses: everyCore, logging: 'quiet' }));
const { fifty: helloAfter } = await measureHello();
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

const kassaRuns = [...perCore, ...(asRun ? [asRun] : []), ...multiProcess];
const loggingRows = logging ? Object.values(logging.median).flatMap(({ create, read }) => [create, read]) : [];
const rows = [hello, ...(helloAlone ? [helloAlone] : []), peer, peerRuns.createAlone, ...kassaRuns.flatMap((runs) => runs.closed), ...loggingRows].map((m) => ({
  ...m,
  helloRatio: m.requestsPerSecond / hello.requestsPerSecond,
  peerRatio: m.requestsPerSecond / peer.requestsPerSecond,
  // What each server would answer with a whole core to itself, from its CPU time per request: unlike
  // requests/s, not moved by other work on a shared machine (PostgreSQL's own CPU is not counted).
  cpuHelloRatio: m.cpuMicrosPerRequest === undefined ? undefined : hello.cpuMicrosPerRequest! / m.cpuMicrosPerRequest,
  cpuPeerRatio: m.cpuMicrosPerRequest === undefined ? undefined : peer.cpuMicrosPerRequest! / m.cpuMicrosPerRequest,
}));
const openLoops = [...peerRuns.openLoops, ...perCore.flatMap((runs) => runs.openLoops)];
const sequential = perCore.flatMap((runs) => (runs.sequential ? [{ ...runs.sequential, fdatasync: runs.fdatasync }] : []));

const fixed = (value: number | undefined, digits: number) => (value === undefined ? '' : value.toFixed(digits));
console.log(
  `\nKassa benchmark: servers on core ${SERVER_CORE}, load (autocannon, ${CONNECTIONS} connections unless said, ${DURATION_S} s per run) on core ${LOAD_CORE}; ` +
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
console.log(`Open loop: creates offered at a fixed rate for ${OPEN_LOOP_S} s from the same generator, latency from when each request was due`);
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
console.log("Creates one at a time from one client, beside the disk's own 4 KiB write + fdatasync");
console.table(
  sequential.map((r) => ({
    run: r.name,
    creates: r.creates,
    'p50 ms': Number(r.p50Ms.toFixed(3)),
    'p99 ms': Number(r.p99Ms.toFixed(3)),
    'CPU µs/create': Math.round(r.cpuMicrosPerRequest),
    'fdatasync p50 ms': r.fdatasync ? Number(r.fdatasync.p50Ms.toFixed(3)) : '',
    'fdatasync p99 ms': r.fdatasync ? Number(r.fdatasync.p99Ms.toFixed(3)) : '',
  })),
);

const rowOf = (name: string) => rows.find((r) => r.name === name);
const sqliteCreate = rowOf('Kassa POST /payment (sqlite, one core)');
const sqliteCreateAlone = rowOf('Kassa POST /payment, 1 connection (sqlite, one core)');
const sqliteRead = rowOf('Kassa GET /transaction (sqlite, one core)');
const sqliteReadAsRun = rowOf('Kassa GET /transaction (sqlite, one core, npm start logging)');
const sqliteSequential = sequential.find((r) => r.name.includes('sqlite'));
const openOf = (prefix: string, offeredAs: string) => openLoops.find((r) => r.name.startsWith(prefix) && r.offeredAs === offeredAs);
const [half, quarter] = PEER_SHARES.map((s) => s.label);
const peerHalf = openOf('peer', half!);
const sqliteHalf = openOf('Kassa POST /payment open loop (sqlite', half!);
const sqliteQuarter = openOf('Kassa POST /payment open loop (sqlite', quarter!);
const postgresOwnHalf = openLoops.find((r) => r.name.includes('postgres') && r.offeredAs.includes('own'));
const targets = [
  {
    target: 'SQLite create from 1 connection ≤ 1.5× the CPU of one among 50',
    value:
      sqliteCreateAlone?.cpuMicrosPerRequest && sqliteCreate?.cpuMicrosPerRequest ? sqliteCreateAlone.cpuMicrosPerRequest / sqliteCreate.cpuMicrosPerRequest : undefined,
    met: (v: number) => v <= 1.5,
  },
  { target: 'SQLite creates one at a time p50 ≤ 1 ms', value: sqliteSequential?.p50Ms, met: (v: number) => v <= 1 },
  { target: 'SQLite creates one at a time p99 ≤ 3 ms', value: sqliteSequential?.p99Ms, met: (v: number) => v <= 3 },
  {
    target: "SQLite open loop at half the peer's rate: p99 ≤ the peer's p99 (ms over)",
    value: sqliteHalf && peerHalf ? sqliteHalf.p99Ms - peerHalf.p99Ms : undefined,
    met: (v: number) => v <= 0,
  },
  { target: "SQLite open loop at a quarter of the peer's rate: p99 ≤ 5 ms", value: sqliteQuarter?.p99Ms, met: (v: number) => v <= 5 },
  { target: 'PostgreSQL open loop at half its own create rate: p99 ≤ 20 ms', value: postgresOwnHalf?.p99Ms, met: (v: number) => v <= 20 },
  { target: 'SQLite create ≥ 1.0× peer, by CPU per request', value: sqliteCreate?.cpuPeerRatio, met: (v: number) => v >= 1 },
  { target: 'SQLite read ≥ 0.6× hello-world, by CPU per request', value: sqliteRead?.cpuHelloRatio, met: (v: number) => v >= 0.6 },
  { target: 'SQLite read as npm start runs it ≥ 0.6× hello-world, by CPU per request', value: sqliteReadAsRun?.cpuHelloRatio, met: (v: number) => v >= 0.6 },
  { target: 'SQLite read ≥ 0.6× hello-world, by CPU, median of alternated pairs (quiet)', value: logging?.readPerHello.quiet, met: (v: number) => v >= 0.6 },
  {
    target: 'SQLite read as npm start runs it ≥ 0.6× hello-world, by CPU, median of alternated pairs',
    value: logging?.readPerHello.default,
    met: (v: number) => v >= 0.6,
  },
].flatMap(({ target, value, met }) => (value === undefined ? [] : [{ target, value: Number(value.toFixed(3)), met: met(value) }]));
console.table(targets);
// What the machine itself charges for requests that arrive alone: the same ratio for the yardstick and the peer.
const aloneRatio = (one: Measured | undefined, fifty: Measured | undefined) =>
  one?.cpuMicrosPerRequest && fifty?.cpuMicrosPerRequest ? Number((one.cpuMicrosPerRequest / fifty.cpuMicrosPerRequest).toFixed(3)) : undefined;
const aloneRatios = {
  helloWorld: aloneRatio(helloAlone, helloBefore),
  peerCreate: aloneRatio(peerRuns.createAlone, peer),
  kassaSqliteCreate: aloneRatio(sqliteCreateAlone, sqliteCreate),
  kassaSqliteRead: aloneRatio(rowOf('Kassa GET /transaction, 1 connection (sqlite, one core)'), sqliteRead),
};
console.log('CPU per request from 1 connection ÷ from 50 connections:', aloneRatios);
// What logging costs: each configuration's median round ÷ the quiet one's, from the same alternated rounds.
const costOf = (measured: Measured | undefined, quiet: Measured | undefined) =>
  measured?.cpuMicrosPerRequest && quiet?.cpuMicrosPerRequest ? Number((measured.cpuMicrosPerRequest / quiet.cpuMicrosPerRequest).toFixed(3)) : undefined;
const loggingCost = logging && {
  npmStartCreate: costOf(logging.median.default.create, logging.median.quiet.create),
  npmStartRead: costOf(logging.median.default.read, logging.median.quiet.read),
  silentCreate: costOf(logging.median.silent.create, logging.median.quiet.create),
  silentRead: costOf(logging.median.silent.read, logging.median.quiet.read),
  readPerHello: logging.readPerHello,
  rounds: logging.rounds,
};
console.log('CPU per request, median of alternated rounds, ÷ the quiet configuration (warnings only, no request log):', loggingCost);
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
  sequential,
  targets,
  aloneRatios,
  loggingCost,
  threedsValidation,
  webhooks,
};
fs.writeFileSync(path.join(out, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`written: ${path.relative(root, path.join(out, 'latest.json'))}`);
