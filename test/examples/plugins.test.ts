/**
 * The patches that point CCV's shop plugins at Kassa (examples/plugins/, docs/plugins.md). The
 * plugins' own files are not kept in this repository (they are other projects' code), so each
 * patch is checked against what it carries: its header names the plugin's repository, version and
 * commit as docs/plugins.md does; it applies with `git apply` to its files as its hunks' lines
 * rebuild them, and changes nothing but the API root; and the lines it adds, run with PHP as the
 * plugin runs them right after building its client with the official PHP library (plugin-client.php),
 * give the client Kassa's root: with the placeholder as written, and with a running Kassa's address
 * in its place, where the key check then answers as Kassa does. Without PHP the PHP part skips,
 * saying why; under CI it fails instead (test/support/dependencies.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/app.ts';
import { kassaCli, startKassaProcess, type KassaProcess } from '../support/process.ts';
import { phpClientAutoload, phpMissing } from '../support/php.ts';
import { needs } from '../support/dependencies.ts';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** What docs/plugins.md tells the merchant to replace with their Kassa's PUBLIC_URL and a slash. */
const placeholderRoot = 'https://kassa.example/';

/**
 * Each patch, the files it must change, how the plugin reaches the API (plugin-client.php) and, for
 * the library, where each file keeps the client it builds (read from the plugins' published files).
 */
const plugins = [
  { folder: 'woocommerce', kind: 'library', files: { 'src/WC_CCVOnlinePayments.php': '$this->api' } },
  { folder: 'magento2', kind: 'library', files: { 'src/CcvOnlinePaymentsService.php': '$this->api', 'src/Model/Config/Backend/ApiKey.php': '$api' } },
  { folder: 'prestashop', kind: 'library', files: { 'ccvonlinepayments.php': '$api' } },
  { folder: 'omnipay', kind: 'omnipay', files: { 'src/Message/Request/CCVOnlinePaymentsRequest.php': undefined } },
] as const;

interface Hunk {
  oldStart: number;
  oldLines: string[];
  newLines: string[];
  added: string[];
  removed: string[];
}

interface Patch {
  file: string;
  text: string;
  /** From the header: `Against CCV/<repository> <version>, commit <sha>`. */
  repository: string;
  version: string;
  commit: string;
  files: Map<string, Hunk[]>;
}

/** Reads a unified diff; a hunk whose line counts disagree with its header fails here. */
function readPatch(folder: string): Patch {
  const file = `examples/plugins/${folder}/kassa-api-root.patch`;
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const against = /^Against (CCV\/[\w-]+) (v[\d.]+), commit ([0-9a-f]{40}) \(MIT\)\.$/m.exec(text);
  assert.ok(against, `${file} names the plugin's repository, version and commit`);
  const files = new Map<string, Hunk[]>();
  const lines = text.split('\n');
  let hunks: Hunk[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const diff = /^diff --git a\/(\S+) b\/\1$/.exec(lines[i]);
    if (diff) files.set(diff[1], (hunks = []));
    const header = /^@@ -(\d+),(\d+) \+\d+,(\d+) @@/.exec(lines[i]);
    if (!header) continue;
    const hunk: Hunk = { oldStart: Number(header[1]), oldLines: [], newLines: [], added: [], removed: [] };
    while (hunk.oldLines.length < Number(header[2]) || hunk.newLines.length < Number(header[3])) {
      const line = lines[++i];
      assert.ok(line !== undefined && /^[ +-]/.test(line), `${file}: hunk at line ${hunk.oldStart} is shorter than its header says`);
      if (line[0] !== '+') hunk.oldLines.push(line.slice(1));
      if (line[0] !== '-') hunk.newLines.push(line.slice(1));
      if (line[0] === '+') hunk.added.push(line.slice(1));
      if (line[0] === '-') hunk.removed.push(line.slice(1));
    }
    assert.deepEqual([hunk.oldLines.length, hunk.newLines.length], [Number(header[2]), Number(header[3])], `${file}: hunk at line ${hunk.oldStart}`);
    hunks!.push(hunk);
  }
  return { file, text, repository: against[1], version: against[2], commit: against[3], files };
}

/** A file as a patch's hunks show it: their lines at their line numbers, a filler line elsewhere. */
function rebuild(hunks: Hunk[], side: 'oldLines' | 'newLines'): string {
  const lines: string[] = [];
  let oldLine = 1;
  for (const hunk of hunks) {
    for (; oldLine < hunk.oldStart; oldLine++) lines.push(`// line ${oldLine} of the plugin's file, not kept here`);
    lines.push(...hunk[side]);
    oldLine += hunk.oldLines.length;
  }
  for (let end = oldLine + 3; oldLine < end; oldLine++) lines.push(`// line ${oldLine} of the plugin's file, not kept here`);
  return `${lines.join('\n')}\n`;
}

const patches = plugins.map((plugin) => ({ ...plugin, patch: readPatch(plugin.folder) }));

const setApiRoot = /^\s*\$(this->)?api->setApiRoot\('([^']*)'\);( \/\/ .*)?$/;
const endpoint = /^\s*const ENDPOINT = '([^']*)';( \/\/ .*)?$/;

describe('the patches that point CCV shop plugins at Kassa', () => {
  for (const { folder, files, kind, patch } of patches) {
    test(`${folder}: changes ${Object.keys(files).join(' and ')} and nothing but the API root`, () => {
      assert.deepEqual([...patch.files.keys()], Object.keys(files));
      for (const hunks of patch.files.values()) {
        assert.equal(hunks.length, 1);
        const [{ added, removed }] = hunks;
        if (kind === 'library') {
          assert.deepEqual(removed, [], 'the client is built as before; one line after it sets the root');
          assert.equal(added.length, 1);
          assert.equal(setApiRoot.exec(added[0])?.[2], placeholderRoot, added[0]);
        } else {
          assert.equal(removed.length, 1);
          assert.match(removed[0], endpoint, 'the driver has no setting: its ENDPOINT constant is replaced');
          assert.equal(added.length, 1);
          assert.equal(endpoint.exec(added[0])?.[1], placeholderRoot, added[0]);
        }
      }
    });

    test(`${folder}: applies with git apply to its files as its hunks show them`, () => {
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), `kassa-plugin-${folder}-`));
      try {
        for (const [file, hunks] of patch.files) {
          fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
          fs.writeFileSync(path.join(copy, file), rebuild(hunks, 'oldLines'));
        }
        const patchFile = path.join(root, patch.file);
        execFileSync('git', ['apply', '--check', patchFile], { cwd: copy, stdio: 'pipe' });
        execFileSync('git', ['apply', patchFile], { cwd: copy, stdio: 'pipe' });
        for (const [file, hunks] of patch.files) assert.equal(fs.readFileSync(path.join(copy, file), 'utf8'), rebuild(hunks, 'newLines'), file);
      } finally {
        fs.rmSync(copy, { recursive: true, force: true });
      }
    });
  }

  test('docs/plugins.md gives each patch with the version and commit it was written against', () => {
    const page = fs.readFileSync(path.join(root, 'docs/plugins.md'), 'utf8');
    for (const { patch } of patches) {
      const row = page.split('\n').find((line) => line.includes(`(../${patch.file})`));
      assert.ok(row, `docs/plugins.md links ${patch.file}`);
      for (const fact of [patch.repository, patch.version, patch.commit.slice(0, 12)]) assert.ok(row.includes(fact), `${patch.file}: the row names ${fact}: ${row}`);
    }
    assert.ok(page.includes(placeholderRoot), 'docs/plugins.md names the placeholder to replace');
  });
});

interface ClientAnswer {
  apiRoot?: string;
  valid?: boolean;
  endpoint?: string;
  url?: string;
  status?: number;
  methods?: string[];
}

describe('the patched lines, run with PHP as each plugin runs them, against the official client and Kassa', { skip: needs(phpMissing()) }, () => {
  let db: TestDatabase;
  let kassa: KassaProcess;
  let testApiKey: string;

  before(async () => {
    db = await createTestDatabase('sqlite');
    testApiKey = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Plugin Shop', '--json')).testApiKey;
    kassa = await startKassaProcess({ ...db.env, RATE_LIMIT_PER_SECOND: '0' });
  });

  after(async () => {
    if (kassa?.child.exitCode === null) kassa.child.kill('SIGKILL');
    await db?.drop();
  });

  async function php(input: { kind: string; lines: string[]; client?: string; key: string | null }): Promise<ClientAnswer> {
    const env = { ...process.env, CCV_PHP_CLIENT: phpClientAutoload };
    const { stdout, stderr } = await run('php', [path.join(import.meta.dirname, 'plugin-client.php'), JSON.stringify(input)], { env, timeout: 60_000 });
    try {
      return JSON.parse(stdout);
    } catch {
      throw new Error(`${stdout}${stderr}`);
    }
  }

  for (const { folder, kind, files, patch } of patches) {
    for (const [file, hunks] of patch.files) {
      const client = (files as Record<string, string | undefined>)[file];
      const added = hunks.flatMap((hunk) => hunk.added);
      /** The added lines with a running Kassa's address for the placeholder (known once `before` ran). */
      const atKassa = () => added.map((line) => line.replace(placeholderRoot, `${kassa.baseUrl}/`));
      if (kind === 'library') {
        test(`${folder} ${file}: the client's API root is the Kassa root the line names`, async () => {
          assert.deepEqual(await php({ kind, lines: added, client, key: null }), { apiRoot: placeholderRoot });
        });

        test(`${folder} ${file}: with a running Kassa's address, the client checks the merchant's key at Kassa`, async () => {
          assert.deepEqual(await php({ kind, lines: atKassa(), client, key: testApiKey }), { apiRoot: `${kassa.baseUrl}/`, valid: true });
          assert.deepEqual(await php({ kind, lines: atKassa(), client, key: 'test_unknown' }), { apiRoot: `${kassa.baseUrl}/`, valid: false });
        });
      } else {
        test(`${folder} ${file}: the driver's requests go to the Kassa root the line names`, async () => {
          assert.deepEqual(await php({ kind, lines: added, key: null }), { endpoint: placeholderRoot, url: `${placeholderRoot}api/v1/method` });
        });

        test(`${folder} ${file}: with a running Kassa's address, the driver's request for the methods is answered by Kassa`, async () => {
          const answer = await php({ kind, lines: atKassa(), key: testApiKey });
          assert.equal(answer.status, 200, JSON.stringify(answer));
          assert.ok(answer.methods?.includes('card'), JSON.stringify(answer));
        });
      }
    }
  }
});
