/**
 * SQLite commits are group commits: units that arrive while a commit is in progress
 * share the next transaction (each inside its own savepoint, so one failing unit
 * rolls back alone). A unit is resolved only after its commit is on disk.
 *
 * Under steady writes the checkpointer's passive checkpoint (checkpointer.ts) never quite
 * catches up with the newest frames, and SQLite restarts the WAL only after a complete checkpoint; so once the WAL
 * passes WAL_RESET_BYTES the writer checkpoints between two of its commits (by then
 * the worker has copied nearly everything) and the next commit starts the WAL afresh.
 * (Measured: a TRUNCATE checkpoint in the worker instead held the write lock for tens
 * of milliseconds and doubled the create p99.) The writer never sleeps in SQLite's busy
 * handler on the event loop: it runs with busy_timeout 0 and retries a busy BEGIN on a
 * timer (another process, such as a `kassa` command, may hold the lock).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { runDirectly, sqliteRunner, type DirectRunner, type SqliteStatements } from './prepared.ts';

/** The WAL's working size: preallocated to it (sqlite.ts), restarted past it. */
export const WAL_RESET_BYTES = 64 * 1024 * 1024;

interface PendingUnit {
  unit: (db: Kysely<Database>) => Promise<unknown>;
  resolve(value: unknown): void;
  reject: (error: unknown) => void;
}

const MAX_UNITS_PER_COMMIT = 256;
const BUSY_RETRY_MS = 2;
const BUSY_GIVE_UP_MS = 10_000;

export class GroupCommit {
  private queue: PendingUnit[] = [];
  private flushing: Promise<void> | undefined;

  /** fsyncs under way: a unit is answered only once the fsync after its commit is done. */
  private syncing = new Set<Promise<void>>();
  private readonly runner: DirectRunner;

  constructor(
    private readonly db: Kysely<Database>,
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
    if (this.walSize() <= WAL_RESET_BYTES) return;
    try {
      this.statements.statement('PRAGMA wal_checkpoint(PASSIVE)').all();
    } catch {
      // A checkpoint that cannot write the database file (disk full) leaves the WAL as it is, its
      // commits safe in it; the next commit tries again. Thrown, it would fail units already committed.
    }
  }

  private exec(sql: string) {
    this.statements.statement(sql).run();
  }

  run<T>(unit: (db: Kysely<Database>) => Promise<T>): Promise<T> {
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
