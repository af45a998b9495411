/**
 * What `npm start` (src/main.ts, two HTTP processes under a primary) logs at start, once each:
 * what it found of an earlier version's files (permissions taken off, a key file beside the
 * database).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase } from '../support/app.ts';
import { startKassaProcess } from '../support/process.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { ensureKeyFile } from '../../src/lib/private-files.ts';
import { VAULT_KEY_FILE } from '../../src/vault/keys.ts';

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('starting Kassa', () => {
  test("a start on an earlier version's files takes the permissions off and names the key file beside the database, once each", async () => {
    const db = await createTestDatabase('sqlite');
    const config = loadConfig(db.env);
    const earlier = await openStore(config);
    await earlier.migrate();
    await earlier.close();
    fs.chmodSync(config.dataDir, 0o755);
    fs.chmodSync(path.join(config.dataDir, 'kassa.db'), 0o644);
    // Where earlier versions made the vault key: in DATA_DIR.
    const vaultKeyFile = path.join(config.dataDir, VAULT_KEY_FILE);
    ensureKeyFile(vaultKeyFile);
    const kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: '2' });
    try {
      const output = kassa.output();
      assert.equal(occurrences(output, 'took group and other permissions off'), 1, output);
      assert.equal(occurrences(output, `the key file ${vaultKeyFile} lies in DATA_DIR beside the database`), 1, output);
      assert.equal(fs.statSync(config.dataDir).mode & 0o777, 0o700);
      assert.equal(fs.existsSync(path.join(config.keyDir, VAULT_KEY_FILE)), false, 'the vault key in DATA_DIR is read, no second one made');
    } finally {
      kassa.child.kill('SIGKILL');
      await db.drop();
    }
  });
});
