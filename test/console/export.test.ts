/** The CSV export's guard against formula injection, as a table: what a spreadsheet would run gets a leading quote. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spreadsheetSafe } from '../../src/console/export.ts';

const cases: [string, string][] = [
  ['=HYPERLINK("https://evil.example")', `'=HYPERLINK("https://evil.example")`],
  ['+31 6 1234', `'+31 6 1234`],
  ['-2+3', `'-2+3`],
  ['@SUM(A1)', `'@SUM(A1)`],
  ['\tcmd', `'\tcmd`],
  ['\rcmd', `'\rcmd`],
  ['order-10045', 'order-10045'],
  ['1234.50', '1234.50'],
  ['', ''],
  ['a=b', 'a=b'],
];

for (const [cell, expected] of cases) {
  test(`a cell ${JSON.stringify(cell)} is exported as ${JSON.stringify(expected)}`, () => assert.equal(spreadsheetSafe(cell), expected));
}
