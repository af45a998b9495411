/**
 * `npm run bench:sign-in-flood`: what a flood of console sign-ins does to payments. Kassa runs as
 * `npm start` would, with one HTTP process; payments are created in an open loop (20 a second,
 * bench/open-loop.ts) while 200 sign-ins arrive at once, 1 s in, sent by another process, each
 * for an unknown account from an address of its own (TRUST_PROXY, X-Forwarded-For), so that no
 * failed-sign-in limit stops them and every one may cost a password check. Prints the creates' p50, p99 and maximum, and what the
 * sign-ins were answered (docs/console.md "Signing in and sessions"). BENCH_BACKENDS picks the
 * databases (default sqlite). BENCH_FLOOD=page sends as many GETs of the sign-in page instead:
 * what any burst of that many requests costs the creates, with no password in it.
 */
import http from 'node:http';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { fullCardPayment } from './fixtures.ts';
import { openLoop } from './open-loop.ts';
import { createTestDatabase, type Backend } from '../test/support/app.ts';
import { kassaCli, startKassaProcess } from '../test/support/process.ts';

const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 200);
const CREATES_PER_SECOND = 20;
const SECONDS = Number(process.env.BENCH_DURATION ?? 8);
const FLOOD_AFTER_MS = 1000;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite').split(',') as Backend[];
const FLOOD = process.env.BENCH_FLOOD === 'page' ? 'page' : 'sign-in';

/** One sign-in (or, for BENCH_FLOOD=page, one GET of its page) on a new connection: its status code. */
function signIn(baseUrl: string, form: Flood['form'], index: number): Promise<number> {
  const body = FLOOD === 'page' ? '' : new URLSearchParams({ csrf: form.csrf, email: `nobody-${index}@flood.test`, password: 'not anyone’s password' }).toString();
  const forwardedFor = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  const headers = {
    cookie: form.cookie,
    'x-forwarded-for': forwardedFor,
    ...(body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } : {}),
  };
  return new Promise((resolve) => {
    const request = http.request(`${baseUrl}/dashboard/sign-in`, { method: body ? 'POST' : 'GET', agent: false, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', () => resolve(0));
    request.end(body);
  });
}

async function measure(backend: Backend) {
  const database = await createTestDatabase(backend);
  const env = { ...database.env, HTTP_PROCESSES: '1', RATE_LIMIT_PER_SECOND: '0', TRUST_PROXY: '127.0.0.1', LOG_REQUESTS: 'false' };
  const merchant = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'Flood Shop', '--json'));
  const kassa = await startKassaProcess(env);
  try {
    // The sign-in form as a browser gets it: one cookie and its token, used by every sign-in of the flood.
    const page = await fetch(`${kassa.baseUrl}/dashboard/sign-in`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
    const headers = { authorization: `Basic ${Buffer.from(`${merchant.testApiKey}:`).toString('base64')}`, 'content-type': 'application/json' };
    const flooder = await startFlooder({ baseUrl: kassa.baseUrl, form: { cookie, csrf } });
    const creates = openLoop({
      url: `${kassa.baseUrl}/api/v1/payment`,
      headers,
      body: JSON.stringify(fullCardPayment),
      idempotencyPrefix: `flood-${Date.now()}`,
      ratePerSecond: CREATES_PER_SECOND,
      seconds: SECONDS,
    });
    await new Promise((resolve) => setTimeout(resolve, FLOOD_AFTER_MS));
    const { answers, floodMs } = await flooder.flood();
    const statuses = Object.fromEntries([...new Set(answers)].map((status) => [status, answers.filter((s) => s === status).length]));
    return { backend, flood: FLOOD, requests: SIGN_INS, statuses, floodMs: Math.round(floodMs), creates: await creates };
  } finally {
    kassa.child.kill('SIGTERM');
    await new Promise((resolve) => kassa.child.once('exit', resolve));
    await database.drop();
  }
}

interface Flood {
  baseUrl: string;
  form: { cookie: string; csrf: string };
}

/**
 * A process of its own (this file again, given BENCH_FLOOD_OF) that sends the flood when told:
 * its connections and answers are not handled on the event loop that times the creates, and its
 * start-up is over before the creates begin. `flood()` answers its status codes, and when the last came.
 */
async function startFlooder(flood: Flood) {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_FLOOD_OF: JSON.stringify(flood) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  await lines.next(); // ready
  return {
    flood: async (): Promise<{ answers: number[]; floodMs: number }> => {
      child.stdin!.end('go\n');
      const { value } = await lines.next();
      return JSON.parse(value as string);
    },
  };
}

if (process.env.BENCH_FLOOD_OF) {
  const { baseUrl, form } = JSON.parse(process.env.BENCH_FLOOD_OF) as Flood;
  console.log('ready');
  await text(process.stdin); // go
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: SIGN_INS }, (_, i) => signIn(baseUrl, form, i)));
  console.log(JSON.stringify({ answers, floodMs: performance.now() - started }));
} else {
  for (const backend of BACKENDS) console.log(JSON.stringify(await measure(backend)));
}
