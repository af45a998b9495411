/** Test support: Kassa as a real process (`node --import tsx src/main.ts`), to kill and restart. */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

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
  return execFileSync(process.execPath, ['bin/kassa.js', ...args], { cwd: root, env: { ...process.env, ...env } }).toString();
}

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
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
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
