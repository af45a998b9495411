/**
 * `npm run config-table`: prints the README's configuration table as src/config.ts declares it;
 * `-- --write` puts it between the README's markers. test/unit/config.test.ts fails when the
 * README's table is not this one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { settingsTable } from '../src/config.ts';

export const BEGIN = '<!-- settings:begin (generated from src/config.ts by `npm run config-table -- --write`; do not edit by hand) -->';
export const END = '<!-- settings:end -->';
const readme = path.resolve(import.meta.dirname, '../README.md');

/** The README with its table replaced by the declared one. */
export function withDeclaredTable(text: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${BEGIN} … ${END} section`);
  return `${text.slice(0, start + BEGIN.length)}\n${settingsTable()}\n${text.slice(end)}`;
}

if (process.argv[1] === import.meta.filename) {
  if (process.argv.includes('--write')) fs.writeFileSync(readme, withDeclaredTable(fs.readFileSync(readme, 'utf8')));
  else process.stdout.write(`${settingsTable()}\n`);
}
