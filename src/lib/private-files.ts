/**
 * Files only their owner may read: the folders and files of Kassa's database and keys
 * (docs/operations.md "Files and keys"). They are created owner-only (folders 0700, files
 * 0600) whatever the umask; found with group or other bits, those bits are taken away
 * and the caller learns it, to say so once in the log. And key files: a 32-byte key made
 * once and then only read, by any number of processes. A filesystem without room for a file
 * Kassa must make is `NotEnoughSpace`: the server and the `kassa` command say it in one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { randomBase62 } from './tokens.ts';

const OWNER_ONLY = 0o700;

/** Creates `dir` (and its missing parents) 0700; true when it existed with wider permissions, now taken away. */
export function ensurePrivateDirectory(dir: string): boolean {
  fs.mkdirSync(dir, { recursive: true, mode: OWNER_ONLY });
  return tighten(dir);
}

/** Creates `file` empty (0600) unless it exists; true when it existed with wider permissions, now taken away. */
export function ensurePrivateFile(file: string): boolean {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  return tighten(file);
}

/** Takes group and other permissions off `file` when it exists; true when there were any. */
export function tightenIfPresent(file: string): boolean {
  try {
    return tighten(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function tighten(file: string): boolean {
  const { mode } = fs.statSync(file);
  if ((mode & 0o077) === 0) return false;
  fs.chmodSync(file, mode & OWNER_ONLY);
  return true;
}

/** Kassa cannot make a file it needs on this filesystem: what the operator must fix, said in one line (main.ts, cli/kassa.ts) rather than as a stack. */
export class NotEnoughSpace extends Error {}

/** Whether `error` is the filesystem out of room (or its quota used up). */
export const outOfSpace = (error: unknown) => ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException).code ?? '');

/** A 32-byte key with the name it is stored under (a vault key's id goes with every card it seals). */
export interface NamedKey {
  id: string;
  key: Buffer;
}

export function readKeyFile(file: string): NamedKey | undefined {
  try {
    const { id, key } = JSON.parse(fs.readFileSync(file, 'utf8')) as { id: string; key: string };
    return { id, key: Buffer.from(key, 'base64') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The key in `file`, made (0600, in a 0700 folder) when there is none. It is written under a
 * temporary name and hard-linked into place, which fails if another process got there first:
 * then that process's key is the one read, never a mix. `created` says this call made it.
 */
export function ensureKeyFile(file: string): { key: NamedKey; created: boolean } {
  const existing = readKeyFile(file);
  if (existing) return { key: existing, created: false };
  ensurePrivateDirectory(path.dirname(file));
  const key: NamedKey = { id: `file-${randomBase62(8)}`, key: randomBytes(32) };
  const temporary = `${file}.${process.pid}.${randomBase62(8)}`;
  try {
    fs.writeFileSync(temporary, JSON.stringify({ id: key.id, key: key.key.toString('base64') }), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    if (outOfSpace(error)) throw new NotEnoughSpace(`not enough disk space to make the key file ${file}; free some space or set KEY_DIR to another filesystem`);
    throw error;
  }
  try {
    fs.linkSync(temporary, file);
    return { key, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: readKeyFile(file)!, created: false };
  } finally {
    fs.unlinkSync(temporary);
  }
}
