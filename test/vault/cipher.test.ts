/** Vault encryption, keys and card display, without a database. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { VaultKeyring } from '../../src/vault/cipher.ts';
import { loadVaultKeyring, VAULT_KEY_FILE, vaultKeyFile } from '../../src/vault/keys.ts';
import { maskPan, splitHolderName } from '../../src/vault/vault.ts';
import { loadConfig } from '../../src/config.ts';

const key = (id: string) => ({ id, key: randomBytes(32) });
const PAN = '4111111111111111';

test('a card number encrypted with the vault key decrypts to itself, and its ciphertext does not contain it', () => {
  const ring = new VaultKeyring(key('k1'));
  const { keyId, ciphertext } = ring.encrypt(PAN, 'vc_1|mer_1|test');
  assert.equal(keyId, 'k1');
  assert.ok(!ciphertext.includes(PAN) && !Buffer.from(ciphertext, 'base64url').toString('latin1').includes(PAN));
  assert.equal(ring.decrypt(keyId, ciphertext, 'vc_1|mer_1|test'), PAN);
  assert.notEqual(ring.encrypt(PAN, 'b').ciphertext, ring.encrypt(PAN, 'b').ciphertext, 'a fresh IV every time');
});

test('a changed ciphertext, tag or IV, or another row binding, fails to decrypt', () => {
  const ring = new VaultKeyring(key('k1'));
  const { keyId, ciphertext } = ring.encrypt(PAN, 'vc_1|mer_1|test');
  const bytes = Buffer.from(ciphertext, 'base64url');
  for (const index of [0, 12, 20, bytes.length - 1]) {
    const tampered = Buffer.from(bytes);
    tampered[index] ^= 1;
    assert.throws(() => ring.decrypt(keyId, tampered.toString('base64url'), 'vc_1|mer_1|test'), Error, `byte ${index}`);
  }
  for (const binding of ['vc_2|mer_1|test', 'vc_1|mer_2|test', 'vc_1|mer_1|live']) {
    assert.throws(() => ring.decrypt(keyId, ciphertext, binding), Error, binding);
  }
  assert.throws(() => ring.decrypt(keyId, 'AAAA', 'vc_1|mer_1|test'), /too short/);
});

test('after a rotation the old key still decrypts its cards; new cards use the new key; a key not listed is an error', () => {
  const old = key('k1');
  const sealed = new VaultKeyring(old).encrypt(PAN, 'b');
  const rotated = new VaultKeyring(key('k2'), [old]);
  assert.equal(rotated.decrypt(sealed.keyId, sealed.ciphertext, 'b'), PAN);
  assert.equal(rotated.encrypt(PAN, 'b').keyId, 'k2');
  assert.throws(() => new VaultKeyring(key('k3')).decrypt(sealed.keyId, sealed.ciphertext, 'b'), /VAULT_OLD_KEYS/);
});

test('VAULT_KEY, VAULT_KEY_ID and VAULT_OLD_KEYS are read and checked', () => {
  const k = randomBytes(32).toString('base64');
  const config = loadConfig({ VAULT_KEY: k, VAULT_KEY_ID: 'prod-2', VAULT_OLD_KEYS: `prod-1:${randomBytes(32).toString('base64')}` });
  assert.equal(config.vaultKey?.id, 'prod-2');
  assert.equal(config.vaultKey?.key.length, 32);
  assert.deepEqual(
    config.vaultOldKeys.map((o) => o.id),
    ['prod-1'],
  );
  assert.throws(() => loadConfig({ VAULT_KEY: randomBytes(16).toString('base64') }), /32 bytes/);
  assert.throws(() => loadConfig({ VAULT_KEY: k, VAULT_KEY_ID: 'bad id' }), /VAULT_KEY_ID must be 1 to 64 letters, digits, .+ got "bad id"/);
  assert.throws(() => loadConfig({ VAULT_OLD_KEYS: 'no-colon' }), /id:base64/);
});

test('on SQLite without VAULT_KEY a key file (0600, in a 0700 folder) is made in KEY_DIR once and reused; with DATABASE_URL there is no key', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-vault-'));
  const dirs = { dataDir: path.join(root, 'data'), keyDir: path.join(root, 'keys') };
  try {
    const first = loadVaultKeyring({ ...dirs, vaultOldKeys: [] })!;
    const file = path.join(dirs.keyDir, VAULT_KEY_FILE);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(dirs.keyDir).mode & 0o777, 0o700);
    assert.equal(fs.existsSync(dirs.dataDir), false, 'nothing of the key in DATA_DIR');
    const sealed = first.encrypt(PAN, 'b');
    const second = loadVaultKeyring({ ...dirs, vaultOldKeys: [] })!;
    assert.equal(second.current.id, first.current.id);
    assert.equal(second.decrypt(sealed.keyId, sealed.ciphertext, 'b'), PAN, 'a restart reads the same key');
    assert.deepEqual(fs.readdirSync(dirs.keyDir), [VAULT_KEY_FILE], 'no temporary file is left');
    // Setting VAULT_KEY later: new cards use it, cards sealed with the file key still open.
    const configured = loadVaultKeyring({ ...dirs, vaultOldKeys: [], vaultKey: key('prod-1') })!;
    assert.equal(configured.current.id, 'prod-1');
    assert.equal(configured.decrypt(sealed.keyId, sealed.ciphertext, 'b'), PAN);
    assert.equal(loadVaultKeyring({ ...dirs, vaultOldKeys: [], databaseUrl: 'postgres://x/y' }), undefined);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a key file an earlier version made in DATA_DIR is still read, and no second key is made in KEY_DIR; moved to KEY_DIR, it is read there', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-vault-'));
  const dirs = { dataDir: path.join(root, 'data'), keyDir: path.join(root, 'keys') };
  try {
    // What the earlier version did: the key file in DATA_DIR.
    const earlier = loadVaultKeyring({ dataDir: dirs.dataDir, keyDir: dirs.dataDir, vaultOldKeys: [] })!;
    const sealed = earlier.encrypt(PAN, 'b');
    const legacy = path.join(dirs.dataDir, VAULT_KEY_FILE);
    assert.equal(vaultKeyFile(dirs), legacy);
    const upgraded = loadVaultKeyring({ ...dirs, vaultOldKeys: [] })!;
    assert.equal(upgraded.current.id, earlier.current.id);
    assert.equal(upgraded.decrypt(sealed.keyId, sealed.ciphertext, 'b'), PAN);
    assert.equal(fs.existsSync(dirs.keyDir), false, 'no second key beside the first');
    fs.mkdirSync(dirs.keyDir, { mode: 0o700 });
    fs.renameSync(legacy, path.join(dirs.keyDir, VAULT_KEY_FILE));
    assert.equal(vaultKeyFile(dirs), path.join(dirs.keyDir, VAULT_KEY_FILE));
    assert.equal(loadVaultKeyring({ ...dirs, vaultOldKeys: [] })!.decrypt(sealed.keyId, sealed.ciphertext, 'b'), PAN, 'moved, the same key');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('card display: first six and last four digits; the name on the card split into first and last name', () => {
  const masks: [string, string][] = [
    ['4111111111111111', '411111******1111'],
    ['378282246310005', '378282*****0005'],
    ['670344444444444449', '670344********4449'],
  ];
  for (const [pan, masked] of masks) assert.equal(maskPan(pan), masked);
  const names: [string, { first?: string; last?: string }][] = [
    ['Jo Tester', { first: 'Jo', last: 'Tester' }],
    ['  Anna  van der  Berg ', { first: 'Anna van der', last: 'Berg' }],
    ['Madonna', { last: 'Madonna' }],
    ['', {}],
  ];
  for (const [name, split] of names) assert.deepEqual(splitHolderName(name), split, name);
});
