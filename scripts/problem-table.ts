/**
 * `npm run problem-table`: prints docs/api.md's table of problem types as the registry
 * (src/ground/problem-types.ts) declares them; `-- --write` puts it between docs/api.md's
 * markers. test/unit/problems.test.ts fails when the page's table is not this one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { answeredProblemTypes } from '../src/ground/problem-types.ts';

export const BEGIN = '<!-- problems:begin (generated from src/ground/problem-types.ts by `npm run problem-table -- --write`; do not edit by hand) -->';
export const END = '<!-- problems:end -->';
const page = path.resolve(import.meta.dirname, '../docs/api.md');

/** One row per problem type the API answers, in the reference page's order. */
export function problemTable(): string {
  const rows = answeredProblemTypes.map(
    (problem) => `| ${problem.statuses.join(', ')} | \`${problem.slug}\` | ${problem.title} | \`${problem.code}\` | ${problem.meaning} |`,
  );
  return ['| Status | Slug | Title | Code | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** docs/api.md with its table replaced by the declared one. */
export function withDeclaredProblems(text: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no ${BEGIN} … ${END} section`);
  return `${text.slice(0, start + BEGIN.length)}\n${problemTable()}\n${text.slice(end)}`;
}

if (process.argv[1] === import.meta.filename) {
  if (process.argv.includes('--write')) fs.writeFileSync(page, withDeclaredProblems(fs.readFileSync(page, 'utf8')));
  else process.stdout.write(`${problemTable()}\n`);
}
