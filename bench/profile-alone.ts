/**
 * `node --import tsx bench/profile-alone.ts [sqlite|postgres]`: where the CPU of a create that
 * arrives alone goes (docs/decisions.md "Where an alone-arriving create's CPU goes"). One Kassa
 * HTTP process (the compiled build, quiet logging) pinned to core 0 with `--cpu-prof`, creates
 * sent one at a time from this process on core 1; then the profile's self time is summed by
 * function and by where the code lives (Kassa, a dependency, Node's own), per create.
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
const COUNT = Number(process.env.PROFILE_CREATES ?? 3000);
/** Clients sending one create at a time each: 1 is the case profiled; 50 the same load arriving together, for comparison. */
const CLIENTS = Number(process.env.PROFILE_CLIENTS ?? 1);
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
  LOG_LEVEL: 'warn',
  LOG_REQUESTS: 'false',
  DEMO_MERCHANT: 'false',
  RATE_LIMIT_PER_SECOND: '0',
};
const merchant = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Profile Shop', '--json'));
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-profile-'));
const child = spawn('taskset', ['-c', '0', process.execPath, '--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...KASSA_MAIN], { cwd: root, env, stdio: 'inherit' });
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
const send = () =>
  new Promise<void>((resolve, reject) => {
    const request = http.request(
      `http://127.0.0.1:${port}/api/v1/payment`,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body), 'idempotency-reference': `profile-${process.pid}-${n++}` } },
      (response) => response.resume().on('end', resolve),
    );
    request.on('error', reject);
    request.end(body);
  });
for (let i = 0; i < 500; i++) await send();
const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString());
/** The server's CPU seconds so far: in its own code (user) and in the kernel for it (system). */
const cpu = () => {
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) / ticks, system: Number(fields[12]) / ticks };
};
const before = cpu();
const started = performance.now();
await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    for (let i = 0; i < COUNT / CLIENTS; i++) await send();
  }),
);
const wall = performance.now() - started;
const after = cpu();
const used = after.user - before.user + after.system - before.system;
console.log(
  `user ${(((after.user - before.user) * 1e6) / COUNT).toFixed(0)} µs, system ${(((after.system - before.system) * 1e6) / COUNT).toFixed(0)} µs per create (${CLIENTS} client${CLIENTS === 1 ? '' : 's'})`,
);
agent.destroy();
child.kill('SIGINT');
await new Promise((resolve) => child.once('exit', resolve));
await database.drop?.();
console.log(
  `${COUNT} creates from ${CLIENTS} client(s), one at a time each: ${((used * 1e6) / COUNT).toFixed(0)} µs CPU each, ${(wall / COUNT).toFixed(3)} ms each (wall)`,
);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
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
  console.log(`\n${title} (µs per create, share of samples)`);
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
