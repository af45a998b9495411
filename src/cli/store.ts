/**
 * What every `kassa` command shares: its output, and the database of the environment (DATA_DIR
 * or DATABASE_URL, with its secrets key) as every command opens it. What opening it made or
 * changed (a key file made, permissions taken off the database files) goes to standard error,
 * where an operator sees it once.
 */
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { findDatabase, openStore, type Store } from '../store/store.ts';
import { Problem } from '../ground/problem.ts';

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
export async function withStore<T>(work: (store: Store) => Promise<T>, { migrate = true, create = false } = {}): Promise<T> {
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
    return await work(store);
  } catch (error) {
    throw error instanceof Problem && error.code === 'invalidSetting' ? new InvalidArgumentError(error.message) : error;
  } finally {
    await store.close();
  }
}
