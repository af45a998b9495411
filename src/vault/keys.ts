/**
 * Where the vault key comes from. VAULT_KEY when set. Otherwise, on the embedded SQLite
 * default, a key file in DATA_DIR (mode 0600) created on first start and reused: stored
 * cards survive restarts, and every HTTP process (cluster mode) opens the same file. It
 * is created under a temporary name and hard-linked into place, which fails if another
 * process got there first: then that process's key is the one read, never a mix.
 * With DATABASE_URL and no VAULT_KEY there is no key: several hosts share the database,
 * and a key invented per process would make their cards unreadable to each other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config, VaultKey } from '../config.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { VaultKeyring } from './cipher.ts';

export const VAULT_KEY_FILE = 'vault-key.json';

/** The keyring, or undefined when the vault is unavailable (PostgreSQL without VAULT_KEY). */
export function loadVaultKeyring(config: Pick<Config, 'vaultKey' | 'vaultOldKeys' | 'databaseUrl' | 'dataDir'>): VaultKeyring | undefined {
  // A key file made before VAULT_KEY was set still decrypts the cards it sealed.
  const fileKey = config.databaseUrl ? undefined : config.vaultKey ? readKeyFile(config.dataDir) : ensureKeyFile(config.dataDir);
  const current = config.vaultKey ?? fileKey;
  if (!current) return undefined;
  return new VaultKeyring(current, [...config.vaultOldKeys, ...(fileKey && fileKey !== current ? [fileKey] : [])]);
}

function readKeyFile(dataDir: string): VaultKey | undefined {
  try {
    const { id, key } = JSON.parse(fs.readFileSync(path.join(dataDir, VAULT_KEY_FILE), 'utf8')) as { id: string; key: string };
    return { id, key: Buffer.from(key, 'base64') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function ensureKeyFile(dataDir: string): VaultKey {
  const existing = readKeyFile(dataDir);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true });
  const key: VaultKey = { id: `file-${randomBase62(8)}`, key: randomBytes(32) };
  const temporary = path.join(dataDir, `${VAULT_KEY_FILE}.${process.pid}.${randomBase62(8)}`);
  fs.writeFileSync(temporary, JSON.stringify({ id: key.id, key: key.key.toString('base64') }), { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(temporary, path.join(dataDir, VAULT_KEY_FILE));
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readKeyFile(dataDir)!;
  } finally {
    fs.unlinkSync(temporary);
  }
}
