/**
 * Opens storage: SQLite (embedded default, WAL; sqlite.ts) or PostgreSQL (`DATABASE_URL`;
 * postgres.ts), both behind Kysely. Writes go through `transact`, one atomic unit of work
 * each. Only store/ speaks SQL: its other modules hold the queries, grouped by table,
 * and the rest of Kassa calls their functions.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Database, Dialect } from './schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { openSqlite, type SqliteOptions } from './sqlite.ts';
import { openPostgres } from './postgres.ts';
import { withAfterCommit } from './after-commit.ts';
import { checkSecretsKey, openSecretsKey, type SecretsKeyOptions } from './secrets.ts';

export type { Dialect };
export type Db = Kysely<Database>;

export interface Store {
  dialect: Dialect;
  /** Reads outside a unit of work. On SQLite a separate connection (WAL readers never wait for the writer). */
  read: Db;
  /** Runs `unit` atomically. Units do database work only: no network calls inside. */
  transact<T>(unit: (db: Db) => Promise<T>): Promise<T>;
  /** Applies the migrations, then checks that the database's secrets are sealed with this store's key (store/secrets.ts). */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
  /** The secrets key: seals what the database must not hold readable, derives the capability tokens. */
  secrets: SecretBox;
  /** What opening changed or made, for the log to say once (permissions taken off the database files, a key file made). */
  notices: string[];
  /**
   * SQLite: a number that stays the same as long as nothing is committed to the database by any
   * connection of any process, read without a statement (sqlite.ts `CommitCounter`); undefined
   * when it cannot be told. PostgreSQL has none: every check is a query.
   */
  commitMark?(): number | undefined;
  /**
   * SQLite: whether the database's filesystem has room for its files to grow (sqlite.ts
   * ROOM_TO_GROW_BYTES), which no small write proves. PostgreSQL's disk is its server's: a write
   * that finds it full is refused.
   */
  roomToGrow?(): boolean;
  /** PostgreSQL: the connections of this process's pool right now (metrics); SQLite has no pool. */
  poolUse?(): PoolUse;
}

export interface PoolUse {
  open: number;
  idle: number;
  waiting: number;
}

export interface StoreOptions extends SqliteOptions, SecretsKeyOptions {
  databaseUrl?: string;
  /** PostgreSQL connections of this process (default 10). */
  databasePoolSize?: number;
}

export interface OpenOptions {
  /** SQLite: run the checkpointer thread in this process (default). Several processes on one file need only one. */
  checkpoints?: boolean;
}

/**
 * Where the database of these options is and whether it holds Kassa's tables, found without making
 * or changing anything (no file, no key): a `kassa` command run in the wrong directory must not
 * make a new empty database there (cli/store.ts). The PostgreSQL address is named without its password.
 */
export async function findDatabase(options: StoreOptions): Promise<{ where: string; exists: boolean }> {
  if (!options.databaseUrl) {
    const file = path.resolve(options.dataDir, 'kassa.db');
    return { where: file, exists: fs.existsSync(file) };
  }
  const url = new URL(options.databaseUrl);
  if (url.password) url.password = '***';
  const client = new pg.Client({ connectionString: options.databaseUrl });
  client.on('error', () => {});
  try {
    await client.connect();
    // Kysely's record of the migrations applied: there once the database was migrated.
    const { rows } = await client.query<{ found: boolean }>(`SELECT to_regclass('kysely_migration') IS NOT NULL AS found`);
    return { where: url.toString(), exists: rows[0]!.found };
  } finally {
    await client.end().catch(() => {});
  }
}

export async function openStore(options: StoreOptions, { checkpoints = true }: OpenOptions = {}): Promise<Store> {
  const { secrets, notices } = openSecretsKey(options);
  const adapter = options.databaseUrl ? openPostgres(options.databaseUrl, options.databasePoolSize ?? 10) : openSqlite(options, checkpoints);
  return {
    ...adapter,
    transact: withAfterCommit(adapter.transact),
    secrets,
    notices: [...adapter.notices, ...notices],
    migrate: async () => {
      const applied = await adapter.migrate(secrets);
      await checkSecretsKey(adapter.read, secrets);
      return applied;
    },
  };
}
