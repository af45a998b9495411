/** The SQLite commit mark (store/sqlite.ts CommitCounter): read from the WAL index's header, as a real database writes it and as a half-written one looks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CommitCounter } from '../../src/store/sqlite.ts';

const directory = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-commit-mark-'));

test('the mark changes with every commit of another connection, and only then', () => {
  const dir = directory();
  const file = path.join(dir, 'kassa.db');
  const writer = new BetterSqlite3(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('CREATE TABLE t (x INTEGER)');
  const counter = new CommitCounter(`${file}-shm`);
  try {
    const first = counter.mark();
    assert.equal(typeof first, 'number');
    assert.equal(counter.mark(), first, 'nothing committed: the same mark');
    writer.prepare('SELECT count(*) FROM t').get();
    assert.equal(counter.mark(), first, 'a read commits nothing');
    writer.prepare('INSERT INTO t VALUES (1)').run();
    const second = counter.mark();
    assert.notEqual(second, first);
    writer.transaction(() => writer.prepare('INSERT INTO t VALUES (2)').run())();
    assert.notEqual(counter.mark(), second);
  } finally {
    counter.close();
    writer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('no mark from a missing file, an uninitialised header or one whose two copies differ (a writer halfway)', () => {
  const dir = directory();
  const shm = path.join(dir, 'kassa.db-shm');
  const counter = new CommitCounter(shm);
  try {
    assert.equal(counter.mark(), undefined, 'no file yet');
    const header = Buffer.alloc(96);
    fs.writeFileSync(shm, header);
    assert.equal(counter.mark(), undefined, 'isInit not set');
    header[12] = 1;
    header[8] = 7;
    header.copy(header, 48, 0, 48);
    fs.writeFileSync(shm, header);
    const whole = counter.mark();
    assert.equal(typeof whole, 'number', 'found once the file is there');
    header[8] = 8; // the first copy rewritten, the second not yet
    fs.writeFileSync(shm, header);
    assert.equal(counter.mark(), undefined);
    header[56] = 8;
    fs.writeFileSync(shm, header);
    assert.notEqual(counter.mark(), whole);
  } finally {
    counter.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
