/**
 * Opens storage: SQLite (embedded default, WAL) or PostgreSQL (`DATABASE_URL`), both
 * behind Kysely. Writes go through `transact`, one atomic unit of work each.
 *
 * SQLite commits are group commits: units that arrive while a commit is in progress
 * share the next transaction (each inside its own savepoint, so one failing unit
 * rolls back alone). A unit is resolved only after its commit is on disk.
 *
 * Durability without blocking: with SQLITE_SYNCHRONOUS=FULL the writer runs SQLite at
 * NORMAL and Kassa itself fsyncs the WAL file after each commit, on libuv's thread
 * pool, before answering. The committed WAL frames are then exactly as durable as with
 * SQLite's own FULL (which fsyncs the same file at the same point), but the event loop
 * keeps serving requests during the fsync instead of waiting in it. Checkpoints (WAL →
 * database file, with their own fsyncs) run on a separate connection in a worker
 * thread for the same reason; SQLite syncs the WAL before and the database after each
 * checkpoint at NORMAL, so a checkpoint never weakens what was acknowledged.
 *
 * Under steady writes that passive checkpoint never quite catches up with the newest
 * frames, and SQLite restarts the WAL only after a complete checkpoint; so once the WAL
 * passes WAL_RESET_BYTES the writer checkpoints between two of its commits (by then
 * the worker has copied nearly everything) and the next commit starts the WAL afresh.
 * (Measured: a TRUNCATE checkpoint in the worker instead held the write lock for tens
 * of milliseconds and doubled the create p99.) The writer never sleeps in SQLite's busy
 * handler on the event loop: it runs with busy_timeout 0 and retries a busy BEGIN on a
 * timer (another process, such as a `kassa` command, may hold the lock).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type PostgresPoolClient } from 'kysely';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrations.ts';
import { isDeferrable, nameStatement, runDirectly, sqliteRunner, statementName, type DirectRunner, type QueryOutcome, type SqliteStatements } from './prepared.ts';

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
  /** PostgreSQL connections of this process (default 10). */
  databasePoolSize?: number;
}

export interface OpenOptions {
  /** SQLite: run the checkpointer thread in this process (default). Several processes on one file need only one. */
  checkpoints?: boolean;
}

export async function openStore(options: StoreOptions, { checkpoints = true }: OpenOptions = {}): Promise<Store> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.databasePoolSize ?? 10) : openSqlite(options, checkpoints);
}

// PostgreSQL BIGINT (int8) would otherwise arrive as a string; our bigints are epoch ms and minor units, well inside 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

/**
 * PostgreSQL units of work cost round trips, and round trips are what limits a create
 * (measured: four per payment — BEGIN, two inserts, COMMIT — held it near 1.6k/s).
 * So a unit's inserts that nobody reads back (prepared with `deferrable`) are held and
 * sent at the end. A unit that only inserts needs no connection of its own: its inserts
 * join those of the other such units that finish in the same turn of the event loop,
 * and all go as ONE statement of data-modifying CTEs — atomic without BEGIN/COMMIT, one
 * round trip, one commit for them all (measured: the socket write and the statement's
 * own cost were a fifth of a PostgreSQL create). When that statement fails (say one
 * unit's unique violation), each unit's inserts are sent again on their own, so every
 * unit still succeeds or fails alone. The first statement of a unit that is not such an
 * insert takes a connection, opens a real transaction and sends the unit's held inserts
 * first, so the unit still reads its own writes.
 *
 * Units are reusable objects, each with a Kysely instance bound to it, made once: a
 * query finds its unit without an async-context lookup (which taxes every promise in the
 * process), and prepared queries skip Kysely's executor there and on the read pool.
 */
function openPostgres(databaseUrl: string, poolSize: number): Store {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  // An idle connection dropped by the server (restart, failover) is discarded by the pool and
  // replaced on next use; unhandled, pg would raise it as an uncaught error and stop the process.
  pool.on('error', () => {});
  const read = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => {
          const client = await pool.connect();
          return {
            query: (text: any, values?: unknown[]) => (typeof text === 'string' ? namedQuery(client, text, values) : client.query(text)),
            release: () => client.release(),
          } as PostgresPoolClient;
        },
        end: () => pool.end(),
      },
    }),
  });
  runDirectly(read, async (sql, parameters) => outcomeOf(await namedQuery(pool, sql, parameters)));
  const inserts = new InsertBatcher(pool);
  const idle: PostgresUnit[] = [];
  return {
    dialect: 'postgres',
    read,
    transact: async (work) => {
      const unit = idle.pop() ?? new PostgresUnit(pool);
      try {
        const result = await work(unit.db);
        if (unit.client) await unit.commit();
        else await inserts.send(unit.takeHeld());
        return result;
      } catch (error) {
        await unit.rollback();
        throw error;
      } finally {
        unit.release();
        if (idle.length < MAX_IDLE_UNITS) idle.push(unit);
      }
    },
    migrate: () => migrateToLatest(read, 'postgres'),
    close: () => read.destroy(),
  };
}

const MAX_IDLE_UNITS = 256;
/** Units per combined insert statement (a create holds ~45 parameters; PostgreSQL allows 65,535). */
const MAX_UNITS_PER_STATEMENT = 100;

/** Runs a query with its server-side name when it is a prepared one (parsed and planned once per connection). */
function namedQuery(client: pg.PoolClient | pg.Pool, text: string, values?: unknown[]) {
  const name = statementName(text);
  return name ? client.query({ name, text, values }) : client.query(text, values);
}

/** What Kysely's PostgreSQL connection returns for a result. */
function outcomeOf(result: pg.QueryResult): QueryOutcome {
  const changed = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command) && result.rowCount !== null;
  return { rows: result.rows ?? [], numAffectedRows: changed ? BigInt(result.rowCount!) : undefined };
}

type HeldInsert = { text: string; values: unknown[] };

/** Sends inserts as one statement: one as it is, several as data-modifying CTEs. */
async function sendInserts(client: pg.PoolClient, held: HeldInsert[]): Promise<void> {
  if (held.length === 0) return;
  if (held.length === 1) {
    await namedQuery(client, held[0].text, held[0].values);
    return;
  }
  let offset = 0;
  const values: unknown[] = [];
  const parts = held.map((insert, i) => {
    // Kysely writes parameters as $1…$n and values never appear in the SQL text, so renumbering is safe.
    const text = insert.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    offset += insert.values.length;
    values.push(...insert.values);
    return `held_${i} as (${text})`;
  });
  const text = `with ${parts.join(', ')} select 1`;
  nameStatement(text);
  await namedQuery(client, text, values);
}

/** Collects the held inserts of units that finish in one turn of the event loop and sends them together. */
class InsertBatcher {
  private waiting: { held: HeldInsert[]; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly pool: pg.Pool) {}

  send(held: HeldInsert[]): Promise<void> {
    if (held.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ held, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush() {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_UNITS_PER_STATEMENT);
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        for (const unit of batch) unit.reject(error);
        continue;
      }
      try {
        await sendInserts(client, batch.flatMap((unit) => unit.held));
        for (const unit of batch) unit.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        // One statement is all or nothing: find out which units fail by sending each on its own.
        else for (const unit of batch) await sendInserts(client, unit.held).then(unit.resolve, unit.reject);
      } finally {
        client.release();
      }
    }
  }
}

/** One unit of work's state; reused by later units once it is released. */
class PostgresUnit {
  readonly db: Db;
  /** Taken at the unit's first statement that is not a held insert; the unit is then a transaction on it. */
  client: pg.PoolClient | undefined;
  private held: HeldInsert[] = [];
  private broken = false;

  constructor(private readonly pool: pg.Pool) {
    const connection = { query: (text: any, values?: unknown[]) => this.query(text, values ?? []), release: () => {} } as unknown as PostgresPoolClient;
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: async () => connection, end: async () => {} } }) });
    runDirectly(this.db, async (sql, parameters) => outcomeOf(await this.query(sql, parameters)));
  }

  async query(text: unknown, values: unknown[]): Promise<pg.QueryResult> {
    if (typeof text !== 'string') throw new Error('streaming queries are not supported inside a unit of work');
    if (isDeferrable(text)) {
      this.held.push({ text, values });
      return { command: 'INSERT', rowCount: 1, rows: [], oid: 0, fields: [] };
    }
    if (!this.client) {
      this.client = await this.pool.connect();
      await this.client.query('BEGIN');
    }
    await sendInserts(this.client, this.takeHeld());
    return namedQuery(this.client, text, values);
  }

  takeHeld(): HeldInsert[] {
    return this.held.splice(0);
  }

  async commit() {
    await sendInserts(this.client!, this.takeHeld());
    await this.client!.query('COMMIT');
  }

  async rollback() {
    if (this.client) await this.client.query('ROLLBACK').catch(() => (this.broken = true));
  }

  release() {
    this.held = [];
    // A connection whose ROLLBACK failed is in an unknown state: the pool closes it.
    this.client?.release(this.broken || undefined);
    this.client = undefined;
    this.broken = false;
  }
}

function openSqlite({ dataDir, sqliteSynchronous = 'FULL' }: StoreOptions, checkpoints: boolean): Store {
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
    dialect: 'sqlite',
    read: reader,
    transact: (unit) => groupCommit.run(unit),
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

const CHECKPOINT_INTERVAL_MS = 50;
const WAL_RESET_BYTES = 64 * 1024 * 1024;
const BUSY_RETRY_MS = 2;
const BUSY_GIVE_UP_MS = 10_000;

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

/** A worker thread with its own connection that checkpoints the WAL (PASSIVE, never blocking the writer) every 50 ms. */
function startCheckpointer(file: string) {
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.betterSqlite3);
     const db = new Database(workerData.file);
     db.pragma('busy_timeout = 5000');
     const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
     const timer = setInterval(checkpoint, workerData.intervalMs);
     parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });`,
    { eval: true, workerData: { file, betterSqlite3, intervalMs: CHECKPOINT_INTERVAL_MS } },
  );
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.ref(); // keep the process alive until the last checkpoint is done
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
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

interface PendingUnit {
  unit: (db: Db) => Promise<unknown>;
  resolve: (value: any) => void;
  reject: (error: unknown) => void;
}

const MAX_UNITS_PER_COMMIT = 256;


class GroupCommit {
  private queue: PendingUnit[] = [];
  private flushing: Promise<void> | undefined;

  /** fsyncs under way: a unit is answered only once the fsync after its commit is done. */
  private syncing = new Set<Promise<void>>();
  private readonly runner: DirectRunner;

  constructor(
    private readonly db: Db,
    private readonly statements: SqliteStatements,
    private readonly syncWal: () => Promise<void>,
    private readonly walSize: () => number,
  ) {
    this.runner = sqliteRunner(statements);
  }

  private walCheckedAt = 0;

  /** Between two commits: a checkpoint on the writer once the WAL passed WAL_RESET_BYTES, so the next commit restarts it. */
  private keepWalBounded() {
    const now = Date.now();
    if (now - this.walCheckedAt < 250) return;
    this.walCheckedAt = now;
    if (this.walSize() > WAL_RESET_BYTES) this.statements.statement('PRAGMA wal_checkpoint(PASSIVE)').all();
  }

  private exec(sql: string) {
    this.statements.statement(sql).run();
  }

  run<T>(unit: (db: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  async drain(): Promise<void> {
    while (this.flushing || this.syncing.size > 0) await Promise.all([this.flushing, ...this.syncing]);
  }

  private async flush(): Promise<void> {
    // Let the requests that arrived in the same turn of the event loop join this commit.
    await new Promise((resolve) => setImmediate(resolve));
    let busySince: number | undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_UNITS_PER_COMMIT);
      const busy = await this.commit(batch, busySince !== undefined && Date.now() - busySince > BUSY_GIVE_UP_MS);
      if (!busy) {
        busySince = undefined;
        continue;
      }
      // Another connection (the checkpointer, a `kassa` command) holds the write lock: wait on a timer, not in SQLite.
      busySince ??= Date.now();
      this.queue.unshift(...batch);
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
    this.flushing = undefined;
  }

  /** Returns true when the write lock was busy and nothing ran (unless `giveUp`: then the batch fails). */
  private async commit(batch: PendingUnit[], giveUp: boolean): Promise<boolean> {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    let busy = false;
    try {
      // The Kysely connection is held for the whole commit, so nothing else can use it meanwhile.
      await this.db.connection().execute(async (conn) => {
        runDirectly(conn, this.runner);
        try {
          this.exec('BEGIN IMMEDIATE');
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY' || giveUp) throw error;
          busy = true;
          return;
        }
        try {
          for (const pending of batch) {
            this.exec('SAVEPOINT unit');
            try {
              outcomes.push({ ok: true, value: await pending.unit(conn) });
            } catch (error) {
              this.exec('ROLLBACK TO unit');
              outcomes.push({ ok: false, value: error });
            }
            this.exec('RELEASE unit');
          }
          this.exec('COMMIT');
        } catch (error) {
          try {
            this.exec('ROLLBACK');
          } catch {}
          throw error;
        }
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return false;
    }
    if (busy) return true;
    this.keepWalBounded();
    // The next batch may commit while this one's fsync runs; each batch waits only for its own.
    const synced = this.syncWal().then(
      () => batch.forEach((pending, i) => (outcomes[i].ok ? pending.resolve(outcomes[i].value) : pending.reject(outcomes[i].value))),
      (error) => batch.forEach((pending) => pending.reject(error)),
    );
    this.syncing.add(synced);
    void synced.finally(() => this.syncing.delete(synced));
    return false;
  }
}
