/**
 * Opens storage: SQLite (embedded default, WAL) or PostgreSQL (`DATABASE_URL`), both
 * behind Kysely. Writes go through `transact`, one atomic unit of work each.
 *
 * SQLite commits are group commits: units that arrive while a commit is in progress
 * share the next transaction (each inside its own savepoint, so one failing unit
 * rolls back alone). With `synchronous=FULL` every commit is an fsync; sharing it
 * is what lets a durable SQLite accept thousands of payments a second. A unit is
 * resolved only after its commit is on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrations.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

export interface Store {
  dialect: Dialect;
  /** Reads outside a unit of work. On SQLite a separate connection (WAL readers never wait for the writer). */
  read: Db;
  /** Runs `unit` atomically. Units do database work only: no network calls inside. */
  transact<T>(unit: (db: Db) => Promise<T>): Promise<T>;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string;
  dataDir: string;
  sqliteSynchronous?: 'FULL' | 'NORMAL';
}

export async function openStore(options: StoreOptions): Promise<Store> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options);
}

// PostgreSQL BIGINT (int8) would otherwise arrive as a string; our bigints are epoch ms and minor units, well inside 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

function openPostgres(databaseUrl: string): Store {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    read: db,
    transact: (unit) => db.transaction().execute((trx) => unit(trx)),
    migrate: () => migrateToLatest(db, 'postgres'),
    close: () => db.destroy(),
  };
}

function openSqlite({ dataDir, sqliteSynchronous = 'FULL' }: StoreOptions): Store {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'kassa.db');
  const connect = (readonly: boolean) => {
    const raw = new BetterSqlite3(file, { readonly: false });
    raw.pragma('journal_mode = WAL');
    raw.pragma(`synchronous = ${sqliteSynchronous}`);
    raw.pragma('busy_timeout = 5000');
    raw.pragma('foreign_keys = ON');
    if (readonly) raw.pragma('query_only = ON');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(raw) }) });
  };
  const writer = connect(false);
  const reader = connect(true);
  const groupCommit = new GroupCommit(writer);
  return {
    dialect: 'sqlite',
    read: reader,
    transact: (unit) => groupCommit.run(unit),
    migrate: () => migrateToLatest(writer, 'sqlite'),
    close: async () => {
      await groupCommit.drain();
      await reader.destroy();
      await writer.destroy();
    },
  };
}

/** Kysely prepares every query anew; better-sqlite3 statements are reusable, so keep them. */
function cachingStatements(raw: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(query: string) {
      let statement = statements.get(query);
      if (!statement) {
        if (statements.size >= 1000) statements.clear();
        statement = raw.prepare(query);
        statements.set(query, statement);
      }
      return statement;
    },
  };
}

interface PendingUnit {
  unit: (db: Db) => Promise<unknown>;
  resolve: (value: any) => void;
  reject: (error: unknown) => void;
}

const MAX_UNITS_PER_COMMIT = 256;
const [BEGIN, SAVEPOINT, ROLLBACK_TO_SAVEPOINT, RELEASE_SAVEPOINT, COMMIT, ROLLBACK] = [
  'BEGIN IMMEDIATE', 'SAVEPOINT unit', 'ROLLBACK TO unit', 'RELEASE unit', 'COMMIT', 'ROLLBACK',
].map((statement) => CompiledQuery.raw(statement));

class GroupCommit {
  private queue: PendingUnit[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  run<T>(unit: (db: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    // Let the requests that arrived in the same turn of the event loop join this commit.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_UNITS_PER_COMMIT);
      await this.commit(batch);
    }
    this.flushing = undefined;
  }

  private async commit(batch: PendingUnit[]): Promise<void> {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.db.connection().execute(async (conn) => {
        await conn.executeQuery(BEGIN);
        try {
          for (const pending of batch) {
            await conn.executeQuery(SAVEPOINT);
            try {
              outcomes.push({ ok: true, value: await pending.unit(conn) });
            } catch (error) {
              await conn.executeQuery(ROLLBACK_TO_SAVEPOINT);
              outcomes.push({ ok: false, value: error });
            }
            await conn.executeQuery(RELEASE_SAVEPOINT);
          }
          await conn.executeQuery(COMMIT);
        } catch (error) {
          await conn.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => (outcomes[i].ok ? pending.resolve(outcomes[i].value) : pending.reject(outcomes[i].value)));
  }
}
