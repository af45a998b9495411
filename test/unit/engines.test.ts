/**
 * The Node.js versions Kassa says it runs on (package.json `engines.node`, README) are ones every
 * package `npm ci` installs says it runs on: otherwise `npm ci` warns EBADENGINE on the stated
 * runtime, as it did for cookie 2 (Node 22 and later), which package.json `overrides` replaces with
 * cookie 1 (docs/operations.md "Installing").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
const stated: string = read('package.json').engines.node;
/** Node.js 20 as Kassa states it: from the first 20.x it admits on, every later 20.x. */
const node20 = `${stated} <21`;

test('Kassa states Node.js 20 as its runtime', () => {
  assert.ok(semver.intersects(stated, '20.x'), stated);
});

test('every package of package-lock.json runs on every Node.js 20 that Kassa states (no EBADENGINE from npm ci)', () => {
  const packages: Record<string, { version?: string; engines?: { node?: string } }> = read('package-lock.json').packages;
  const refusing = Object.entries(packages)
    .filter(([where, { engines }]) => where !== '' && engines?.node !== undefined && !semver.subset(node20, engines.node))
    .map(([where, { version, engines }]) => `${where.replace(/^.*node_modules\//, '')}@${version} requires node ${engines!.node}`);
  assert.deepEqual(refusing, []);
});
