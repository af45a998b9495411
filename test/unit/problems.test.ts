/**
 * The problem registry (src/ground/problem-types.ts): docs/api.md's table is the one it declares,
 * its slugs (the `type` URIs' stable part) are its own, and every code it lists is raised
 * somewhere in src/ (that every code raised is listed, the compiler checks: `new Problem(code)`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { problemTypes } from '../../src/ground/problem-types.ts';
import { Problem } from '../../src/ground/problem.ts';
import { withDeclaredProblems } from '../../scripts/problem-table.ts';

const root = path.resolve(import.meta.dirname, '../..');

test("docs/api.md's problem table is the one the registry declares (npm run problem-table -- --write)", () => {
  const page = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8');
  assert.equal(page, withDeclaredProblems(page));
});

test('every problem type has a code, a title and a slug of its own, and statuses of an error', () => {
  const types = Object.entries(problemTypes);
  for (const key of ['code', 'title', 'slug'] as const) {
    const values = types.map(([code, type]) => (key === 'code' ? code : type[key])).filter((value) => value !== null);
    assert.equal(new Set(values).size, values.length, key);
  }
  for (const [code, type] of types) {
    assert.match(code, /^[a-z][a-zA-Z]*$/);
    if (type.slug !== null) assert.match(type.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, code);
    assert.ok(type.statuses.length > 0 && type.statuses.every((status) => status >= 400 && status <= 599), code);
  }
});

test('a problem takes its status, title and type from its code', () => {
  const conflict = new Problem('conflict', { detail: 'Busy.', headers: { 'Retry-After': '1' } });
  assert.deepEqual([conflict.status, conflict.title, conflict.message, conflict.headers], [409, 'Conflict', 'Busy.', { 'Retry-After': '1' }]);
  assert.deepEqual(new Problem('validationFailed', { errors: [] }).toBody('https://kassa.example'), {
    type: 'https://kassa.example/docs#problem-validation-failed',
    title: 'Validation failed',
    status: 422,
    detail: 'The request has invalid fields; see errors.',
    errors: [],
  });
});

/** The codes src/ raises: `new …Problem('code'`, and `super('code'` in a subclass of Problem. */
function codesRaised(): Set<string> {
  const codes = new Set<string>();
  for (const file of fs.readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))) {
    const source = fs.readFileSync(path.join(root, 'src', file), 'utf8');
    const pattern = /extends \w*Problem\b/.test(source) ? /(?:new \w*Problem|super)\(\s*'(\w+)'/g : /new \w*Problem\(\s*'(\w+)'/g;
    for (const match of source.matchAll(pattern)) codes.add(match[1]!);
  }
  return codes;
}

/**
 * Listed and documented, but raised nowhere today: kept so that the OpenAPI document's `type`
 * enum (and the typed client's union made from it) stays as published.
 */
const documentedOnly = ['unprocessable'];

test('every code of the registry is raised somewhere in src/ (but the documented-only ones, which are not)', () => {
  const raised = new Set([...codesRaised(), ...documentedOnly]);
  assert.ok(raised.has('notFound') && raised.has('noAcquirer'), 'the scan finds raises and subclasses');
  assert.deepEqual(
    documentedOnly.filter((code) => codesRaised().has(code)),
    [],
    'a documented-only code that is raised again leaves the list',
  );
  assert.deepEqual(
    Object.keys(problemTypes).filter((code) => !raised.has(code)),
    [],
  );
});
