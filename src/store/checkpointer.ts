/**
 * The SQLite WAL checkpointer. Checkpoints (WAL → database file, with their own fsyncs)
 * run on a separate connection in a worker thread, so the event loop never waits in
 * them (as it never waits in the commits' fsync, sqlite.ts); SQLite syncs the WAL before
 * and the database after each checkpoint at NORMAL, so a checkpoint never weakens what
 * was acknowledged.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Each checkpoint fsyncs the database file and copies each page changed since the last once, so
 * fewer of them copy the hot pages (the indexes' rightmost leaves) fewer times: at 250 ms rather
 * than 50 the checkpointer's thread took 10, 23, 7 µs per create arriving alone instead of 27,
 * 33, 37 (docs/decisions.md "What each page of a create costs"). The WAL between two holds a
 * quarter of a second of commits, far under its working size (group-commit.ts).
 */
const CHECKPOINT_INTERVAL_MS = 250;

/** A worker thread with its own connection that checkpoints the WAL (PASSIVE, never blocking the writer) every CHECKPOINT_INTERVAL_MS. */
export function startCheckpointer(file: string) {
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
  // A thread that fails (its connection cannot open) must not take the process with it: the
  // writer still checkpoints a WAL past its working size itself (group-commit.ts).
  worker.on('error', () => {});
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
