/**
 * `node --import tsx bench/profile-alone.ts [sqlite|postgres]`: where the CPU of a request that
 * arrives alone goes (docs/decisions.md "What the machine charges a request that arrives alone").
 * One Kassa HTTP process (the compiled build, quiet logging) pinned to core 0, requests sent one at
 * a time from this process on core 1; the server's user and system CPU per request, also per
 * thread. Settings, all optional:
 * - `PROFILE_REQUESTS` (3000), `PROFILE_WARMUP` (500), `PROFILE_CLIENTS` (1: each client sends one
 *   request at a time);
 * - `PROFILE_READ=true`: reads of one payment instead of creates;
 * - `PROFILE_LOGGING=npm-start`: the log level and request log `npm start` runs with, to a file
 *   (`silent`: no logging at all; otherwise warnings only, no request log);
 * - `PROFILE_CPU=false`: without `--cpu-prof` (whose summary, by function and by where the code
 *   lives, is printed otherwise); `PROFILE_NODE_ARGS`: more arguments for Kassa's node;
 * - `PROFILE_STRACE=<file>`: `strace -c -f` over the measured requests;
 * - `PROFILE_PERF=<file>`: `perf record` of every thread, kernel included (with
 *   `PROFILE_NODE_ARGS=--perf-basic-prof` for JavaScript's names).
 */
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fullCardPayment } from './fixtures.ts';
import { createTestDatabase, type Backend } from '../test/support/app.ts';
import { freePort, kassaCli, KASSA_MAIN } from '../test/support/process.ts';

const backend = (process.argv[2] ?? 'sqlite') as Backend;
/** Requests measured, after `PROFILE_WARMUP` sent one at a time to warm up. */
const COUNT = Number(process.env.PROFILE_REQUESTS ?? 3000);
/** Requests first sent to warm up (500): V8 goes on compiling Kassa's code for its first few thousand creates. */
const WARMUP = Number(process.env.PROFILE_WARMUP ?? 500);
/** Clients sending one create at a time each: 1 is the case profiled; 50 the same load arriving together, for comparison. */
const CLIENTS = Number(process.env.PROFILE_CLIENTS ?? 1);
/** `PROFILE_CPU=false`: no --cpu-prof, for CPU figures without the profiler's own cost. */
const CPU_PROFILE = process.env.PROFILE_CPU !== 'false';
/** A path to send instead of creates: `PROFILE_READ=true` reads one payment again and again. */
const READS = process.env.PROFILE_READ === 'true';
const root = path.resolve(import.meta.dirname, '..');
execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

const database = await createTestDatabase(backend);
const port = await freePort();
const env = {
  ...process.env,
  ...database.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  HTTP_PROCESSES: '1',
  // `PROFILE_LOGGING=npm-start`: the log level and request log `npm start` runs with, lines to a file; `silent`: no logging at all.
  ...(process.env.PROFILE_LOGGING === 'npm-start' ? {} : { LOG_LEVEL: process.env.PROFILE_LOGGING === 'silent' ? 'silent' : 'warn', LOG_REQUESTS: 'false' }),
  DEMO_MERCHANT: 'false',
  RATE_LIMIT_PER_SECOND: '0',
};
const merchant = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Profile Shop', '--json'));
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-profile-'));
const profilerArgs = [...(CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(process.env.PROFILE_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
const child = spawn('taskset', ['-c', '0', process.execPath, ...profilerArgs, ...KASSA_MAIN], {
  cwd: root,
  env,
  stdio: ['ignore', process.env.PROFILE_LOGGING === 'npm-start' ? fs.openSync(path.join(profileDir, 'kassa.log'), 'a') : 'inherit', 'inherit'],
});
for (let i = 0; ; i++) {
  try {
    await fetch(`http://127.0.0.1:${port}/health`);
    break;
  } catch {
    if (i > 300) throw new Error('Kassa did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}
const headers = { authorization: `Basic ${Buffer.from(`${merchant.testApiKey}:`).toString('base64')}`, 'content-type': 'application/json' };
const body = JSON.stringify(fullCardPayment);
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
let n = 0;
const create = () =>
  new Promise<string>((resolve, reject) => {
    const request = http.request(
      `http://127.0.0.1:${port}/api/v1/payment`,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body), 'idempotency-reference': `profile-${process.pid}-${n++}` } },
      (response) => {
        let answer = '';
        response
          .setEncoding('utf8')
          .on('data', (chunk: string) => (answer += chunk))
          .on('end', () => resolve(answer));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
const { reference } = JSON.parse(await create()) as { reference: string };
const read = () =>
  new Promise<string>((resolve, reject) => {
    const request = http.request(`http://127.0.0.1:${port}/api/v1/transaction?reference=${reference}`, { agent, headers }, (response) =>
      response.resume().on('end', () => resolve('')),
    );
    request.on('error', reject);
    request.end();
  });
const send = READS ? read : create;
const what = READS ? 'read' : 'create';
for (let i = 0; i < WARMUP; i++) await send();
const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString());
/** The server's CPU seconds so far: in its own code (user) and in the kernel for it (system). */
const cpu = () => {
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) / ticks, system: Number(fields[12]) / ticks };
};
/** Each thread's CPU seconds so far, by the thread's name (the main thread, libuv's pool, V8's helpers, workers). */
const threadCpu = () => {
  const totals = new Map<string, { user: number; system: number }>();
  for (const tid of fs.readdirSync(`/proc/${child.pid}/task`)) {
    try {
      const comm = fs.readFileSync(`/proc/${child.pid}/task/${tid}/comm`, 'utf8').trim();
      // Node names none of its threads: the main thread is the one whose id is the process's.
      const name = tid === String(child.pid) ? 'main thread' : `${comm} ${tid}`;
      const fields = fs.readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const total = totals.get(name) ?? { user: 0, system: 0 };
      total.user += Number(fields[11]) / ticks;
      total.system += Number(fields[12]) / ticks;
      totals.set(name, total);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return totals;
};
/** `PROFILE_STRACE=<file>`: `strace -c -f` of every thread over the measured requests: the system calls each makes. */
const strace = process.env.PROFILE_STRACE ? spawn('strace', ['-c', '-f', '-o', process.env.PROFILE_STRACE, '-p', String(child.pid)], { stdio: 'ignore' }) : undefined;
if (strace) await new Promise((resolve) => setTimeout(resolve, 1000));
/** `PROFILE_PERF=<file>`: `perf record` of every thread, kernel included, over the measured creates (with `PROFILE_NODE_ARGS=--perf-basic-prof` for JavaScript's names). */
const perf = process.env.PROFILE_PERF
  ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', '4000', '-g', '-p', String(child.pid), '-o', process.env.PROFILE_PERF], { stdio: 'ignore' })
  : undefined;
if (perf) await new Promise((resolve) => setTimeout(resolve, 1000));
const before = cpu();
const threadsBefore = threadCpu();
const started = performance.now();
await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    for (let i = 0; i < COUNT / CLIENTS; i++) await send();
  }),
);
const wall = performance.now() - started;
const after = cpu();
const threadsAfter = threadCpu();
for (const tracer of [perf, strace]) {
  if (!tracer) continue;
  tracer.kill('SIGINT');
  await new Promise((resolve) => tracer.once('exit', resolve));
}
for (const [name, { user, system }] of threadsAfter) {
  const was = threadsBefore.get(name) ?? { user: 0, system: 0 };
  if (user + system - was.user - was.system === 0) continue;
  const micros = (seconds: number) => ((seconds * 1e6) / COUNT).toFixed(0).padStart(5);
  console.log(`  ${name.padEnd(16)} user ${micros(user - was.user)} µs, system ${micros(system - was.system)} µs per request`);
}
const used = after.user - before.user + after.system - before.system;
console.log(
  `user ${(((after.user - before.user) * 1e6) / COUNT).toFixed(0)} µs, system ${(((after.system - before.system) * 1e6) / COUNT).toFixed(0)} µs per ${what} (${CLIENTS} client${CLIENTS === 1 ? '' : 's'})`,
);
agent.destroy();
child.kill('SIGINT');
await new Promise((resolve) => child.once('exit', resolve));
await database.drop?.();
console.log(
  `${COUNT} ${what}s from ${CLIENTS} client(s), one at a time each: ${((used * 1e6) / COUNT).toFixed(0)} µs CPU each, ${(wall / COUNT).toFixed(3)} ms each (wall)`,
);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
if (!CPU_PROFILE) process.exit(0);
const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))!;
const profile = JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
const where = (url: string) =>
  url === ''
    ? '(native/idle)'
    : url.includes('node_modules/')
      ? `dep:${url
          .split('node_modules/')
          .pop()!
          .split('/')
          .slice(0, url.includes('node_modules/@') ? 2 : 1)
          .join('/')}`
      : url.startsWith('node:')
        ? 'node'
        : url.includes('/dist/')
          ? `kassa:${url.split('/dist/').pop()}`
          : url;
const sum = (key: (node: Node) => string) => {
  const totals = new Map<string, number>();
  for (const [id, micros] of self) {
    const node = byNode.get(id)!;
    const name = key(node);
    totals.set(name, (totals.get(name) ?? 0) + micros);
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
};
const show = (title: string, rows: [string, number][], limit: number) => {
  console.log(`\n${title} (µs per ${what}, share of samples)`);
  for (const [name, micros] of rows.slice(0, limit))
    console.log(`${(micros / COUNT).toFixed(1).padStart(8)}  ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`);
};
show(
  'by place',
  sum((node) => where(node.callFrame.url)),
  25,
);
show(
  'by function',
  sum((node) => `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame.url)}:${node.callFrame.lineNumber}`),
  40,
);
console.log(`\nprofile: ${path.join(profileDir, file)}`);
