/** Test support: Kassa as a real process, to kill and restart, and its `kassa` command. */
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Injector } from './app.ts';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildIsCurrent, root } from '../../bin/build-freshness.js';

/**
 * The compiled build runs when it is current, newer than every file of src/ (bin/build-freshness.js,
 * which `kassa` asks too; `npm test` builds just before the tests): the code `npm start` and
 * `kassa` run, and each process starts in about half the time tsx takes. A test run by hand after
 * an edit, before a build, runs src/ through tsx, so it always runs the code as it is.
 */
const compiled = buildIsCurrent();
const tsx = import.meta.resolve('tsx');
/** Node's arguments that start Kassa (as `npm start` does). */
export const KASSA_MAIN: readonly string[] = compiled ? ['dist/main.js'] : ['--import', tsx, 'src/main.ts'];
/**
 * Node's arguments that run the `kassa` command, before its own, from any directory: what
 * bin/kassa.js runs, without its line on standard error about running src/ (test/cli/kassa.test.ts
 * checks that line and the choice).
 */
export const KASSA_PROGRAM: readonly string[] = compiled ? [path.join(root, 'dist/cli/kassa.js')] : ['--import', tsx, path.join(root, 'src/cli/kassa.ts')];
/**
 * The same with `--create`: a test's database is new and empty, and its first command (often
 * `merchant create`, before any Kassa has started on it) makes it. test/cli/kassa.test.ts checks
 * that without `--create` a command refuses a database that is not there.
 */
export const KASSA_CLI: readonly string[] = [...KASSA_PROGRAM, '--create'];

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs the `kassa` CLI with `env` and returns its standard output. */
export function kassaCli(env: Record<string, string>, ...args: string[]): string {
  return kassaCliWithInput(env, undefined, ...args);
}

/** The same, with `input` on its standard input (credentials, passwords). */
export function kassaCliWithInput(env: Record<string, string>, input: string | undefined, ...args: string[]): string {
  return execFileSync(process.execPath, [...KASSA_CLI, ...args], { cwd: root, env: { ...process.env, ...env }, input }).toString();
}

const execFileAsync = promisify(execFile);

/** `kassaCli` without blocking the event loop (the test's own database or server keeps running): its output, or a rejection with its exit code and stderr. */
export const kassaCliAsync = (env: Record<string, string>, ...args: string[]) =>
  execFileAsync(process.execPath, [...KASSA_CLI, ...args], { cwd: root, env: { ...process.env, ...env } });

export interface KassaProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
}

/** Starts Kassa and waits until /health answers (bounded: 30 s). */
export async function startKassaProcess(env: Record<string, string>): Promise<KassaProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(process.execPath, KASSA_MAIN, {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, LOG_LEVEL: 'warn', DEMO_MERCHANT: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`Kassa exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return { child, baseUrl, output: () => output };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`Kassa did not start:\n${output}`);
}

export function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Fastify's inject over real HTTP, on a new connection every time: Node's cluster deals
 * each connection to the next HTTP process, so consecutive requests land on different ones.
 */
export function httpInjector(baseUrl: string): Injector {
  return {
    inject: (options: InjectOptions) =>
      new Promise<LightMyRequestResponse>((resolve, reject) => {
        const url = new URL(String(options.url), baseUrl);
        const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers as http.OutgoingHttpHeaders, agent: false }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const body = Buffer.concat(chunks).toString();
            resolve({
              statusCode: response.statusCode!,
              headers: response.headers,
              body,
              payload: body,
              json: () => JSON.parse(body),
            } as unknown as LightMyRequestResponse);
          });
        });
        request.setTimeout(10_000, () => request.destroy(new Error(`${options.method} ${url} timed out`)));
        request.on('error', reject);
        request.end(options.payload as string | undefined);
      }),
  };
}

/** The process ids of `pid`'s children (the HTTP processes of a primary). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)])
      .toString()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
}
