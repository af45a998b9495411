/**
 * `npm run bench`: Kassa's throughput and latency as ratios to a Fastify hello-world
 * server measured in the same run (these machines are noisy; ratios travel better).
 * Servers run as child processes on 127.0.0.1; autocannon drives them from here, for a
 * bounded time each. Results are printed as a table and written to bench/results/.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { fullCardPayment } from './fixtures.ts';
import { createTestDatabase, type Backend } from '../test/support/app.ts';
import { loadConfig } from '../src/config.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const WARMUP_S = 2;
const CONNECTIONS = 50;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',') as Backend[];
const root = path.resolve(import.meta.dirname, '..');

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function start(script: string, env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
}

async function stop(child: ChildProcess) {
  child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** What one run sends: a method and path, headers, a body, and per-request variation. */
interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** POST: a unique Idempotency-Reference on every request. */
  uniqueIdempotencyReference?: boolean;
  /** GET: cycle through these paths. */
  paths?: string[];
}

/** wrk (C, from Debian's package) when installed: it keeps the client off the critical path; autocannon otherwise. */
const WRK = process.env.BENCH_DRIVER === 'autocannon' ? undefined : ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((file) => fs.existsSync(file));

async function drive(name: string, load: Load): Promise<Measured> {
  process.stderr.write(`measuring ${name}…\n`);
  const run = WRK ? driveWrk : driveAutocannon;
  await run(load, WARMUP_S);
  return { name, ...(await run(load, DURATION_S)) };
}

async function driveAutocannon(load: Load, seconds: number): Promise<Omit<Measured, 'name'>> {
  let sequence = 0;
  let next = 0;
  const result = await autocannon({
    url: load.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: load.method ?? 'GET',
        headers: load.headers,
        body: load.body,
        setupRequest: (request) => {
          if (load.uniqueIdempotencyReference) request.headers = { ...request.headers, 'idempotency-reference': `bench-${process.pid}-${++sequence}` };
          if (load.paths) request.path = load.paths[next++ % load.paths.length];
          return request;
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

let wrkRuns = 0;
async function driveWrk(load: Load, seconds: number): Promise<Omit<Measured, 'name'>> {
  const lua = `
local headers = {}
local paths = { ${(load.paths ?? []).map((p) => JSON.stringify(p)).join(', ')} }
local counter = 0
wrk.method = ${JSON.stringify(load.method ?? 'GET')}
${load.body ? `wrk.body = ${JSON.stringify(load.body)}` : ''}
${Object.entries(load.headers ?? {})
  .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
  .join('\n')}
request = function()
  counter = counter + 1
  local path = nil
  if #paths > 0 then path = paths[(counter % #paths) + 1] end
  ${
    load.uniqueIdempotencyReference
      ? `local h = {}
  for k, v in pairs(wrk.headers) do h[k] = v end
  h["Idempotency-Reference"] = "bench-${process.pid}-${++wrkRuns}-" .. counter
  return wrk.format(nil, path, h)`
      : 'return wrk.format(nil, path)'
  }
end`;
  const script = path.join(os.tmpdir(), `kassa-bench-${process.pid}.lua`);
  fs.writeFileSync(script, lua);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(WRK!, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, load.url]);
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.stderr.on('data', (c) => (text += c));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk failed: ${text}`))));
  });
  const ms = (label: string) => {
    const match = new RegExp(`^\\s+${label}\\s+([\\d.]+)(us|ms|s)`, 'm').exec(output);
    if (!match) return Number.NaN;
    return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[match[2] as 'us' | 'ms' | 's'];
  };
  const count = (pattern: RegExp) => [...output.matchAll(pattern)].reduce((sum, m) => sum + m.slice(1).reduce((a, b) => a + Number(b), 0), 0);
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    p50Ms: ms('50%'),
    p99Ms: ms('99%'),
    non2xx: count(/Non-2xx or 3xx responses: (\d+)/g),
    errors: count(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/g),
  };
}

async function measureHello(): Promise<Measured> {
  const port = await freePort();
  const { child } = await start('bench/hello.ts', { PORT: String(port) }, /ready/);
  try {
    return await drive('hello-world', { url: `http://127.0.0.1:${port}/` });
  } finally {
    await stop(child);
  }
}

async function measureKassa(backend: Backend): Promise<Measured[]> {
  const database = await createTestDatabase(backend);
  const port = await freePort();
  const env = {
    ...database.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    LOG_REQUESTS: 'false',
    DEMO_MERCHANT: 'false',
    // The limiter stays on (its cost is part of the figure) but high enough never to refuse.
    RATE_LIMIT_PER_SECOND: '1000000',
  };
  const merchant = JSON.parse(
    execFileSync(process.execPath, ['bin/kassa.js', 'merchant', 'create', '--name', 'Bench Shop', '--json'], { cwd: root, env: { ...process.env, ...env } }).toString(),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForHealth(port);
  const headers = { authorization: `Basic ${Buffer.from(`${merchant.testApiKey}:`).toString('base64')}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${port}/api/v1`;
  try {
    const body = JSON.stringify(fullCardPayment);
    const create = await drive(`POST /payment (${backend})`, { url: `${base}/payment`, method: 'POST', headers, body, uniqueIdempotencyReference: true });
    const references: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${base}/payment`, { method: 'POST', headers, body });
      references.push(((await res.json()) as { reference: string }).reference);
    }
    const read = await drive(`GET /transaction (${backend})`, {
      url: `${base}/transaction`,
      headers: { authorization: headers.authorization },
      paths: references.map((reference) => `/api/v1/transaction?reference=${reference}`),
    });
    return [create, read];
  } finally {
    await stop(child);
    await database.drop();
  }
}

async function waitForHealth(port: number) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('Kassa did not become healthy');
}

/** Micro-benchmarks that other parts of Kassa register as bench/<name>.ts exporting a measure function. */
async function optionalMeasure<T>(file: string, exportName: string): Promise<T | undefined> {
  if (!fs.existsSync(path.join(root, file))) return undefined;
  const module = await import(path.join(root, file));
  return typeof module[exportName] === 'function' ? module[exportName]() : undefined;
}

const helloBefore = await measureHello();
const kassa: Measured[] = [];
for (const backend of BACKENDS) kassa.push(...(await measureKassa(backend)));
const helloAfter = await measureHello();
const hello: Measured = {
  ...helloBefore,
  requestsPerSecond: (helloBefore.requestsPerSecond + helloAfter.requestsPerSecond) / 2,
  p50Ms: (helloBefore.p50Ms + helloAfter.p50Ms) / 2,
  p99Ms: (helloBefore.p99Ms + helloAfter.p99Ms) / 2,
};
const threedsValidation = await optionalMeasure<Record<string, number>>('bench/threeds-validation.ts', 'measureThreeDSValidation');
const webhooks = await optionalMeasure<Record<string, number>>('bench/webhooks.ts', 'measureWebhookThroughput');

const rows = [hello, ...kassa].map((m) => ({
  ...m,
  throughputRatio: m.requestsPerSecond / hello.requestsPerSecond,
  p99Ratio: m.p99Ms / Math.max(hello.p99Ms, 1),
}));
const table = rows.map((r) => ({
  run: r.name,
  'req/s': Math.round(r.requestsPerSecond),
  '× hello': r.throughputRatio.toFixed(3),
  'p50 ms': Number(r.p50Ms.toFixed(2)),
  'p99 ms': Number(r.p99Ms.toFixed(2)),
  'p99 × hello': r.p99Ratio.toFixed(2),
  'non-2xx': r.non2xx,
  errors: r.errors,
}));
const httpProcesses = loadConfig().httpProcesses;
console.log(
  `\nKassa benchmark (${WRK ? 'wrk' : 'autocannon'}): ${CONNECTIONS} connections, ${DURATION_S} s per run, ${os.cpus().length} cores, ${httpProcesses} Kassa HTTP process(es), node ${process.version}`,
);
console.table(table);
if (threedsValidation)
  console.log(
    `3-D Secure 2 validation of a fully populated request: median ${threedsValidation.medianMicros.toFixed(1)} µs, p99 ${threedsValidation.p99Micros.toFixed(1)} µs`,
  );
if (webhooks) console.log(`Webhook delivery on SQLite: ${Math.round(webhooks.deliveredPerSecond)} webhooks/s (${webhooks.events} events)`);

const out = path.join(root, 'bench', 'results');
fs.mkdirSync(out, { recursive: true });
const report = {
  at: new Date().toISOString(),
  driver: WRK ? 'wrk' : 'autocannon',
  connections: CONNECTIONS,
  httpProcesses,
  durationSeconds: DURATION_S,
  node: process.version,
  hello: { before: helloBefore, after: helloAfter },
  runs: rows,
  threedsValidation,
  webhooks,
};
fs.writeFileSync(path.join(out, 'latest.json'), JSON.stringify(report, null, 2));
console.log(`written: ${path.relative(root, path.join(out, 'latest.json'))}`);
