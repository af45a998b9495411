/**
 * Where the vault key comes from. VAULT_KEY when set. Otherwise, on the embedded SQLite
 * default, a key file in KEY_DIR (mode 0600, lib/private-files.ts) created on first start and
 * reused: stored cards survive restarts, and every HTTP process (cluster mode) opens the same
 * file. KEY_DIR is not DATA_DIR, so a copy of the database folder does not carry the key with
 * the cards it opens (docs/operations.md "Files and keys"). Earlier versions made the file in
 * DATA_DIR: found there, it is still read (and the start says to move it), never a second
 * key made beside it.
 * With DATABASE_URL and no VAULT_KEY there is no key: several hosts share the database,
 * and a key invented per process would make their cards unreadable to each other.
 */
import path from 'node:path';
import type { Config } from '../config.ts';
import { ensureKeyFile, readKeyFile } from '../lib/private-files.ts';
import { VaultKeyring } from './cipher.ts';

export const VAULT_KEY_FILE = 'vault-key.json';

export type KeySettings = Pick<Config, 'vaultKey' | 'vaultOldKeys' | 'databaseUrl' | 'dataDir' | 'keyDir'>;

/** The keyring, or undefined when the vault is unavailable (PostgreSQL without VAULT_KEY). */
export function loadVaultKeyring(config: KeySettings): VaultKeyring | undefined {
  const file = vaultKeyFile(config);
  // A key file made before VAULT_KEY was set still decrypts the cards it sealed.
  const fileKey = config.databaseUrl ? undefined : config.vaultKey ? readKeyFile(file) : ensureKeyFile(file).key;
  const current = config.vaultKey ?? fileKey;
  if (!current) return undefined;
  return new VaultKeyring(current, [...config.vaultOldKeys, ...(fileKey && fileKey !== current ? [fileKey] : [])]);
}

/** The vault key file read or made: KEY_DIR's, or DATA_DIR's where an earlier version made it and it was not moved yet. */
export function vaultKeyFile({ keyDir, dataDir }: Pick<Config, 'dataDir' | 'keyDir'>): string {
  const inKeyDir = path.join(keyDir, VAULT_KEY_FILE);
  const inDataDir = path.join(dataDir, VAULT_KEY_FILE);
  return !readKeyFile(inKeyDir) && readKeyFile(inDataDir) ? inDataDir : inKeyDir;
}
