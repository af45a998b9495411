/**
 * `node --import tsx bench/pages-per-create.ts`: the pages a create writes when it commits alone
 * on SQLite, by table and index (docs/decisions.md "What each page of a create costs"). Counted,
 * not timed, so the same on a busy machine: Kassa in this process on a fresh database, no
 * checkpoints, creates sent one at a time, and every WAL frame each commit appends attributed to
 * the B-tree it belongs to (SQLite's `dbstat`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { fullCardPayment } from './fixtures.ts';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/store.ts';
import { buildServer } from '../src/server.ts';
import { createMerchant } from '../src/merchants/merchants.ts';

const WARM_UP = Number(process.env.PAGES_WARM_UP ?? 300);
const CREATES = Number(process.env.PAGES_CREATES ?? 100);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-pages-'));
const config = loadConfig({
  DATA_DIR: path.join(dir, 'data'),
  KEY_DIR: path.join(dir, 'keys'),
  PUBLIC_URL: 'http://kassa.test',
  DEMO_MERCHANT: 'false',
  RATE_LIMIT_PER_SECOND: '0',
});
const store = await openStore(config, { checkpoints: false });
await store.migrate();
const app = await buildServer(config, store, { logger: false });
const merchant = await createMerchant(store, 'Pages Shop');
const file = path.join(config.dataDir, 'kassa.db');
let sent = 0;
const create = async () => {
  const answer = await app.inject({
    method: 'POST',
    url: '/api/v1/payment',
    headers: { authorization: `Basic ${Buffer.from(`${merchant.testApiKey}:`).toString('base64')}`, 'idempotency-reference': `pages-${sent++}` },
    payload: fullCardPayment,
  });
  if (answer.statusCode !== 200) throw new Error(`create answered ${answer.statusCode}: ${answer.body}`);
};
for (let i = 0; i < WARM_UP; i++) await create();

/** The WAL's last valid frame, from the WAL index header in the -shm file (`mxFrame`, native byte order). */
const lastFrame = () => {
  const descriptor = fs.openSync(`${file}-shm`, 'r');
  const header = Buffer.alloc(48);
  fs.readSync(descriptor, header, 0, 48, 0);
  fs.closeSync(descriptor);
  return header.readUInt32LE(16);
};
const pageSize = (new BetterSqlite3(file, { readonly: true }).pragma('page_size', { simple: true }) as number) ?? 4096;
/** The database page each frame from `first` to `last` holds (a frame's header begins with its page number, big-endian). */
const framePages = (first: number, last: number) => {
  const descriptor = fs.openSync(`${file}-wal`, 'r');
  const pages: number[] = [];
  const header = Buffer.alloc(4);
  for (let frame = first; frame <= last; frame++) {
    fs.readSync(descriptor, header, 0, 4, 32 + (frame - 1) * (pageSize + 24));
    pages.push(header.readUInt32BE(0));
  }
  fs.closeSync(descriptor);
  return pages;
};

const written: number[][] = [];
for (let i = 0; i < CREATES; i++) {
  const before = lastFrame();
  await create();
  written.push(framePages(before + 1, lastFrame()));
}
await app.close();
await store.close();

const reader = new BetterSqlite3(file, { readonly: true });
const owner = new Map<number, string>();
for (const { name, pageno } of reader.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[]) owner.set(pageno, name);
owner.set(1, 'page 1 (schema, header)');
reader.close();
const byTree = new Map<string, number>();
for (const pages of written) for (const page of pages) byTree.set(owner.get(page) ?? '(freed or new)', (byTree.get(owner.get(page) ?? '(freed or new)') ?? 0) + 1);
const total = written.reduce((sum, pages) => sum + pages.length, 0);
console.log(`${CREATES} creates, each committed alone, after ${WARM_UP}: ${(total / CREATES).toFixed(2)} pages written per create`);
for (const [tree, frames] of [...byTree.entries()].sort((a, b) => b[1] - a[1])) console.log(`${(frames / CREATES).toFixed(2).padStart(7)}  ${tree}`);
fs.rmSync(dir, { recursive: true, force: true });
