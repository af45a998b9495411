/**
 * What every `kassa` command shares: its output, the database of the environment (DATA_DIR
 * or DATABASE_URL, with its secrets key) as every command opens it, and the audit entry of a
 * command that changes something (docs/console.md "Audit log"). What opening it made or
 * changed (a key file made, permissions taken off the database files) goes to standard error,
 * where an operator sees it once, and so does each audit entry's log line (JSON).
 */
import os from 'node:os';
import pino from 'pino';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../config.ts';
import { findDatabase, openStore, type Store } from '../store/store.ts';
import { Problem } from '../ground/problem.ts';
import { audit, type Actor, type AuditLog } from '../operators/audit.ts';

/** A line to standard output: what a command answers (its JSON with `--json`). */
export const print = (line: string): void => void process.stdout.write(line.endsWith('\n') ? line : `${line}\n`);

/** Set by `--create`: a command may make the database it does not find. */
export const databaseCreation = { allowed: false };

/**
 * Runs `work` on the environment's database. A database that is not there is made only by `kassa
 * migrate` or with `--create`: otherwise the command stops, naming where it looked, since a command
 * run in another directory than the server would make a new empty database and keys there
 * (docs/operations.md "The kassa command").
 */
/** The command being run, with its options, as the root's preAction hook (kassa.ts) found it. */
export const commandRun: { action: string; options: Record<string, unknown> } = { action: 'kassa', options: {} };

/** Records the command about to run: `kassa merchant create` and its options. */
export function recordCommand(command: Command): void {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  commandRun.action = names.join(' ');
  commandRun.options = command.opts();
}

/** The person at the command line: the operating system's user at this host (docs/console.md "Audit log"). */
export function commandLineActor(): Actor {
  const host = os.hostname();
  return { operatorId: '', name: `${os.userInfo().username}@${host}`, address: host };
}

/** The audit entries' log lines, on standard error: stdout is the command's answer. */
export const commandLineLog: AuditLog = pino({ base: { pid: process.pid, hostname: os.hostname() } }, pino.destination({ dest: 2, sync: true }));

/**
 * The audit entry of a command that changes something: its options but `--json` (a password or
 * credentials come in on standard input, never as an option), what it was done to, and whether it
 * was done, refused (a problem, an invalid argument) or failed.
 */
async function auditCommand(store: Store, error: unknown): Promise<void> {
  const { json: _json, ...options } = commandRun.options;
  const subject = [options.reference, options.email, options.id, options.merchant].find((value) => typeof value === 'string') as string | undefined;
  const outcome = error === undefined ? 'allowed' : error instanceof Problem || error instanceof InvalidArgumentError ? 'refused' : 'failed';
  await audit(store, commandLineLog, commandLineActor(), {
    action: commandRun.action,
    outcome,
    merchantId: typeof options.merchant === 'string' ? options.merchant : null,
    subject,
    detail: { ...options, ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }) },
  });
}

/** `withStore` for a command that only reads: it writes no audit entry. */
export const withStoreForReading = <T>(work: (store: Store) => Promise<T>): Promise<T> => withStore(work, { changes: false });

export async function withStore<T>(work: (store: Store) => Promise<T>, { migrate = true, create = false, changes = true } = {}): Promise<T> {
  const config = loadConfig();
  if (!create && !databaseCreation.allowed) {
    const found = await findDatabase(config);
    if (!found.exists) {
      const where = config.databaseUrl
        ? `${found.where} (DATABASE_URL): it has no Kassa tables. Set DATABASE_URL as the server has it`
        : `${found.where} (DATA_DIR ${config.dataDir}, from ${process.cwd()}). Run kassa in the directory Kassa runs from, or set DATA_DIR as the server has it`;
      throw new InvalidArgumentError(`no Kassa database at ${where}; to make a new one there, run \`kassa migrate\` or add --create`);
    }
  }
  const store = await openStore(config);
  for (const notice of store.notices) process.stderr.write(`kassa: ${notice}\n`);
  try {
    if (migrate) await store.migrate();
    const answer = await work(store);
    if (changes) await auditCommand(store, undefined);
    return answer;
  } catch (error) {
    const refusal = error instanceof Problem && error.code === 'invalidSetting' ? new InvalidArgumentError(error.message) : error;
    // The audit of a command that failed is written when it can be: the database may be what failed.
    if (changes) await auditCommand(store, refusal).catch(() => {});
    throw refusal;
  } finally {
    await store.close();
  }
}
