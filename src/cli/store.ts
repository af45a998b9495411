/**
 * What every `kassa` command shares: its output, and the database of the environment (DATA_DIR
 * or DATABASE_URL, with its secrets key) as every command opens it. What opening it made or
 * changed (a key file made, permissions taken off the database files) goes to standard error,
 * where an operator sees it once.
 */
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { openStore, type Store } from '../store/store.ts';
import { AdminError } from '../events/admin.ts';

/** A line to standard output: what a command answers (its JSON with `--json`). */
export const print = (line: string): void => void process.stdout.write(line.endsWith('\n') ? line : `${line}\n`);

export async function withStore<T>(work: (store: Store) => Promise<T>, { migrate = true } = {}): Promise<T> {
  const store = await openStore(loadConfig());
  for (const notice of store.notices) process.stderr.write(`kassa: ${notice}\n`);
  try {
    if (migrate) await store.migrate();
    return await work(store);
  } catch (error) {
    throw error instanceof AdminError ? new InvalidArgumentError(error.message) : error;
  } finally {
    await store.close();
  }
}
