/**
 * Test support: a PostgreSQL server of the test's own, in a directory and on a port nobody else
 * uses, to stop and start again under Kassa (the shared server is never touched). initdb and
 * pg_ctl refuse to run as root, so as root they run as the `postgres` user, which then owns the
 * data directory. Fast and unsafe on purpose (fsync off): it lives only as long as the test.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './process.ts';

export interface PrivatePostgres {
  /** A connection string to its `postgres` database (trust authentication, user `postgres`). */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: every session is ended with 57P01, as an operator's restart does. */
  stop(): void;
  start(): void;
  /** Stops it (if running) and removes its directory. */
  remove(): void;
}

/** The server's binaries: on PATH's usual place, else Debian's versioned directory. */
function binary(name: 'initdb' | 'pg_ctl'): string {
  const candidates = [`/usr/local/bin/${name}`, ...listVersions().map((bin) => path.join(bin, name))];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`no PostgreSQL ${name} on this machine (looked in ${candidates.join(', ')})`);
  return found;
}

function listVersions(): string[] {
  try {
    return fs.readdirSync('/usr/lib/postgresql').map((version) => path.join('/usr/lib/postgresql', version, 'bin'));
  } catch {
    return [];
  }
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary, as the `postgres` user when this process is root. */
function run(command: string, args: string[]): void {
  const quoted = [command, ...args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  if (asRoot) execFileSync('su', ['postgres', '-s', '/bin/bash', '-c', quoted], { stdio: 'pipe' });
  else execFileSync(command, args, { stdio: 'pipe' });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-pg-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data, { mode: 0o700 });
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const port = await freePort();
  const pgCtl = binary('pg_ctl');
  const log = path.join(dir, 'server.log');
  run(binary('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
  let running = false;
  const start = () => {
    run(pgCtl, ['-D', data, '-l', log, '-w', '-t', '30', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`, 'start']);
    running = true;
  };
  const stop = () => {
    run(pgCtl, ['-D', data, '-w', '-t', '30', '-m', 'fast', 'stop']);
    running = false;
  };
  try {
    start();
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    remove: () => {
      try {
        if (running) run(pgCtl, ['-D', data, '-w', '-t', '30', '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
