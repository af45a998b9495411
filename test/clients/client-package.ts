/**
 * Test support: the TypeScript client as a merchant gets it. A copy of clients/typescript is packed
 * with `npm pack` (its prepack builds dist/ with tsc) in a directory of its own, so test files packing
 * at the same time never share a build; the tarball is unpacked into a fresh `node_modules/@kassa/client`
 * whose dependencies (openapi-fetch, standardwebhooks) are linked from the repository's, as no test
 * reaches a registry.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const CLIENT = path.join(root, 'clients/typescript');

export interface InstalledClient {
  /** A directory whose node_modules holds @kassa/client: run a shop from here. */
  dir: string;
  /** The installed package's entry point (for import()). */
  entry: string;
}

export function installClientPackage(): InstalledClient {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-client-'));
  const build = path.join(dir, 'build');
  fs.mkdirSync(build);
  for (const name of ['package.json', 'tsconfig.json', 'README.md', 'openapi.json', 'src'])
    fs.cpSync(path.join(CLIENT, name), path.join(build, name), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(build, 'node_modules'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: build, env: { ...process.env, npm_config_update_notifier: 'false' } })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
  const installed = path.join(dir, 'node_modules/@kassa/client');
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', installed, '--strip-components=1']);
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(dependencies)) fs.symlinkSync(path.join(root, 'node_modules', name), path.join(dir, 'node_modules', name));
  return { dir, entry: path.join(installed, 'dist/index.js') };
}
