/**
 * The SQLite adapter: one database file in WAL mode, a writer connection whose units of
 * work commit together (group-commit.ts) and a read-only connection beside it; a worker
 * thread checkpoints the WAL (checkpointer.ts).
 *
 * Durability without blocking: with SQLITE_SYNCHRONOUS=FULL the writer runs SQLite at
 * NORMAL and Kassa itself fsyncs the WAL file after each commit, on libuv's thread
 * pool, before answering. The committed WAL frames are then exactly as durable as with
 * SQLite's own FULL (which fsyncs the same file at the same point), but the event loop
 * keeps serving requests during the fsync instead of waiting in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrations.ts';
import { runDirectly, sqliteRunner } from './prepared.ts';
import { GroupCommit, WAL_RESET_BYTES } from './group-commit.ts';
import { startCheckpointer } from './checkpointer.ts';

export interface SqliteOptions {
  dataDir: string;
  sqliteSynchronous?: 'FULL' | 'NORMAL';
}

export function openSqlite({ dataDir, sqliteSynchronous = 'FULL' }: SqliteOptions, checkpoints: boolean) {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'kassa.db');
  const walFile = `${file}-wal`;
  preallocateWal(walFile);
  const connect = (readonly: boolean) => {
    const raw = new BetterSqlite3(file, { readonly: false });
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('busy_timeout = 5000');
    raw.pragma('foreign_keys = ON');
    // No automatic checkpoints: the checkpointer thread does them, and the writer only to restart a large WAL.
    raw.pragma('wal_autocheckpoint = 0');
    // After a WAL restart, give back what a burst made it grow beyond this.
    raw.pragma(`journal_size_limit = ${WAL_RESET_BYTES}`);
    if (readonly) raw.pragma('query_only = ON');
    const statements = cachingStatements(raw);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    return { db, statements };
  };
  const { db: writer, statements: writerStatements } = connect(false);
  const { db: reader, statements: readerStatements } = connect(true);
  runDirectly(reader, sqliteRunner(readerStatements));
  let walDescriptor: number | undefined;
  const syncWal =
    sqliteSynchronous === 'FULL'
      ? () =>
          new Promise<void>((resolve, reject) => {
            walDescriptor ??= fs.openSync(walFile, 'r+');
            fs.fdatasync(walDescriptor, (error) => (error ? reject(error) : resolve()));
          })
      : async () => {};
  const walSize = () => {
    try {
      return fs.statSync(walFile).size;
    } catch {
      return 0;
    }
  };
  const groupCommit = new GroupCommit(writer, writerStatements, syncWal, walSize);
  writerStatements.statement('PRAGMA busy_timeout = 0').all();
  const checkpointer = checkpoints ? startCheckpointer(file) : undefined;
  return {
    dialect: 'sqlite' as const,
    read: reader,
    transact: <T>(unit: (db: Kysely<Database>) => Promise<T>) => groupCommit.run(unit),
    migrate: async () => {
      // Migrations run through Kysely, not the group commit: let SQLite wait for a busy lock here.
      writerStatements.statement('PRAGMA busy_timeout = 5000').all();
      try {
        return await migrateToLatest(writer, 'sqlite');
      } finally {
        writerStatements.statement('PRAGMA busy_timeout = 0').all();
      }
    },
    close: async () => {
      await groupCommit.drain();
      await checkpointer?.stop();
      await reader.destroy();
      await writer.destroy();
      if (walDescriptor !== undefined) fs.closeSync(walDescriptor);
    },
  };
}

/**
 * A WAL that grows makes every commit's fdatasync also write file metadata, which costs
 * several times a plain data sync (measured: create p99 68 ms while the WAL grew, 28 ms
 * once it had reached its size). So before SQLite opens the database, a missing WAL is
 * created at its working size, zero-filled. SQLite reads a WAL whose header is not valid
 * as empty and writes its own header at the first commit. An existing WAL is never
 * touched: it may hold committed transactions to recover.
 */
function preallocateWal(walFile: string) {
  let descriptor: number;
  try {
    descriptor = fs.openSync(walFile, 'wx');
  } catch {
    return; // it exists
  }
  try {
    const zeros = Buffer.alloc(1024 * 1024);
    for (let written = 0; written < WAL_RESET_BYTES; written += zeros.length) fs.writeSync(descriptor, zeros);
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Kysely prepares every query anew; better-sqlite3 statements are reusable, so keep them. */
function cachingStatements(raw: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const statement = (query: string) => {
    let cached = statements.get(query);
    if (!cached) {
      if (statements.size >= 1000) statements.clear();
      cached = raw.prepare(query);
      statements.set(query, cached);
    }
    return cached;
  };
  return { close: () => raw.close(), prepare: statement, statement };
}
