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
import { migrateToLatest, sealedSecretsHeldInClear } from './migrations.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { ensurePrivateDirectory, ensurePrivateFile, NotEnoughSpace, outOfSpace, tightenIfPresent } from '../lib/private-files.ts';
import { runDirectly, sqliteRunner } from './prepared.ts';
import { GroupCommit, WAL_RESET_BYTES } from './group-commit.ts';
import { startCheckpointer } from './checkpointer.ts';
import { raisedByDatabase } from './unavailable.ts';

export interface SqliteOptions {
  dataDir: string;
  sqliteSynchronous?: 'FULL' | 'NORMAL';
}

export function openSqlite({ dataDir, sqliteSynchronous = 'FULL' }: SqliteOptions, checkpoints: boolean) {
  const file = path.join(dataDir, 'kassa.db');
  const walFile = `${file}-wal`;
  const notices = privateFiles(dataDir, file);
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
            fs.fdatasync(walDescriptor, (error) => (error ? reject(raisedByDatabase(error)) : resolve()));
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
  /**
   * The writer's settings for the group commit, or for migrations. The group commit never waits
   * in SQLite's busy handler (group-commit.ts); each of its units runs in a savepoint, whose undo
   * copies of the pages it touches would otherwise spill to a temporary file (docs/decisions.md
   * "Savepoint journals in memory"). Migrations run through Kysely, so SQLite waits for a busy
   * lock; and one may rewrite a whole table, and VACUUM copies the whole database: in temporary
   * files, not in memory.
   */
  const writerSettings = (use: 'group commit' | 'migrations') => {
    writerStatements.statement(`PRAGMA busy_timeout = ${use === 'migrations' ? 5000 : 0}`).all();
    writerStatements.statement(`PRAGMA temp_store = ${use === 'migrations' ? 'DEFAULT' : 'MEMORY'}`).run();
  };
  writerSettings('group commit');
  const checkpointer = checkpoints ? startCheckpointer(file) : undefined;
  const commits = new CommitCounter(`${file}-shm`);
  return {
    dialect: 'sqlite' as const,
    read: reader,
    commitMark: () => commits.mark(),
    roomToGrow: () => freeBytes(dataDir) >= ROOM_TO_GROW_BYTES,
    transact: <T>(unit: (db: Kysely<Database>) => Promise<T>) => groupCommit.run(unit),
    notices,
    migrate: async (secrets: SecretBox) => {
      writerSettings('migrations');
      try {
        const applied = await migrateToLatest(writer, 'sqlite', secrets);
        // What 007 sealed may still be in freed pages of the file and in older frames of the WAL:
        // rebuilt without free space (VACUUM), the file holds only what is live, and the emptied
        // WAL nothing. Once, at the upgrade; the WAL grows back to its working size by itself.
        if (sealedSecretsHeldInClear(applied)) {
          writerStatements.statement('VACUUM').run();
          writerStatements.statement('PRAGMA wal_checkpoint(TRUNCATE)').all();
        }
        return applied;
      } finally {
        writerSettings('group commit');
      }
    },
    close: async () => {
      await groupCommit.drain();
      await checkpointer?.stop();
      await reader.destroy();
      await writer.destroy();
      if (walDescriptor !== undefined) fs.closeSync(walDescriptor);
      commits.close();
    },
  };
}

/**
 * Tells whether anything was committed to the database, by any connection of any process, without
 * a statement or a lock: every commit rewrites the header of SQLite's WAL index (the `-shm` file,
 * shared by every connection; its layout is part of SQLite's documented file format, "WAL-mode
 * File Format"), whose change counter it increments. The header is two copies of 48 bytes, the
 * second written first, so a reader that finds them equal has a whole one (as SQLite's own readers
 * do); `mark()` reads both with one `pread` and returns a number that changes whenever the header
 * did since the last call, or undefined when it cannot tell (no file yet, a header being
 * rewritten). The file stays the live one while this process's connections are open: SQLite
 * removes or resets it only when its last connection closes. docs/decisions.md "A polled
 * payment without a statement".
 */
export class CommitCounter {
  private readonly header = Buffer.alloc(96);
  private readonly lastSeen = Buffer.alloc(48);
  private descriptor: number | undefined;
  private count = 0;

  constructor(private readonly shmFile: string) {}

  mark(): number | undefined {
    const header = this.header;
    try {
      this.descriptor ??= fs.openSync(this.shmFile, 'r');
      if (fs.readSync(this.descriptor, header, 0, 96, 0) < 96) return undefined;
    } catch {
      return undefined;
    }
    // Byte 12 is `isInit`: a header SQLite has not written yet tells nothing.
    if (header[12] !== 1 || header.compare(header, 48, 96, 0, 48) !== 0) return undefined;
    if (this.lastSeen.compare(header, 0, 48) !== 0) {
      header.copy(this.lastSeen, 0, 0, 48);
      this.count++;
    }
    return this.count;
  }

  close(): void {
    if (this.descriptor !== undefined) fs.closeSync(this.descriptor);
    this.descriptor = undefined;
  }
}

/**
 * The database is readable by its owner only (docs/operations.md "Files and keys"): DATA_DIR
 * 0700, the database file 0600 before SQLite opens it, so the -wal and -shm files SQLite makes
 * take the same mode (it gives them the database file's). Files from an earlier start with
 * wider permissions lose them; the notice says which.
 */
function privateFiles(dataDir: string, file: string): string[] {
  const tightened = [ensurePrivateDirectory(dataDir) ? dataDir : undefined, ensurePrivateFile(file) ? file : undefined];
  for (const sibling of [`${file}-wal`, `${file}-shm`]) tightened.push(tightenIfPresent(sibling) ? sibling : undefined);
  const changed = tightened.filter((name) => name !== undefined);
  return changed.length > 0 ? [`took group and other permissions off ${changed.join(', ')}: the database is for Kassa's user only`] : [];
}

/**
 * A WAL that grows makes every commit's fdatasync also write file metadata, which costs
 * several times a plain data sync (measured: create p99 68 ms while the WAL grew, 28 ms
 * once it had reached its size). So before SQLite opens the database, a missing WAL is
 * created at its working size, zero-filled. SQLite reads a WAL whose header is not valid
 * as empty and writes its own header at the first commit. An existing WAL is never
 * touched: it may hold committed transactions to recover. A filesystem without room for it
 * refuses the start in one sentence (docs/operations.md "When the database is away"), before
 * a byte is written or, should the space go meanwhile, with the partial file removed.
 */
function preallocateWal(walFile: string) {
  if (fs.existsSync(walFile)) return;
  const available = () => freeBytes(path.dirname(walFile));
  if (available() < WAL_RESET_BYTES) throw noRoomForWal(walFile, available());
  let descriptor: number;
  try {
    descriptor = fs.openSync(walFile, 'wx', 0o600);
  } catch {
    return; // made meanwhile by another process
  }
  try {
    const zeros = Buffer.alloc(1024 * 1024);
    for (let written = 0; written < WAL_RESET_BYTES; written += zeros.length) fs.writeSync(descriptor, zeros);
    fs.fsyncSync(descriptor);
    fs.closeSync(descriptor);
  } catch (error) {
    fs.closeSync(descriptor);
    fs.rmSync(walFile, { force: true });
    if (outOfSpace(error)) throw noRoomForWal(walFile, available());
    throw error;
  }
}

/** The bytes Kassa's user may still write to the filesystem of `dir`. */
function freeBytes(dir: string): number {
  const { bavail, bsize } = fs.statfsSync(dir);
  return bavail * bsize;
}

/**
 * The free space below which the database is not ready for writes. Filled up, a disk still takes
 * commits that fit where SQLite's files already have room: in the preallocated WAL, and in the
 * WAL index (`-shm`), which grows 32 KiB per 4,096 frames. A create of a dozen frames then fails
 * (`SQLITE_IOERR_SHMSIZE`) while a one-row write still commits, frame by frame, for seconds
 * (measured on a full tmpfs: readiness's write went on for 7 s after every create was refused);
 * and the checkpoints that would let the WAL start over cannot grow the database file. So no
 * small write proves room for a create; the filesystem's free space does. A mebibyte is the WAL
 * index's growth for 131,072 frames, and what a checkpoint adds to the database file holds the
 * rows of a quarter second of commits (checkpointer.ts).
 */
export const ROOM_TO_GROW_BYTES = 1024 * 1024;

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Kassa cannot start on this filesystem: main.ts and the kassa command say so in one line and exit. */
const noRoomForWal = (walFile: string, available: number) =>
  new NotEnoughSpace(
    `not enough disk space for the database's write-ahead log ${walFile}: it needs ${mebibytes(WAL_RESET_BYTES)}, the filesystem has ${mebibytes(available)} free; free some space or set DATA_DIR to a larger filesystem`,
  );

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
