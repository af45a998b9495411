/**
 * The CSV export's guard against formula injection, as a table: what a spreadsheet would run gets a leading quote; a plain
 * number stays a number; a cell led by a separator needs none, as every cell is quoted (console.test.ts checks the file).
 */
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
  ['\n=1+1', `'\n=1+1`],
  ['\u0000=1+1', `'\u0000=1+1`],
  ['-10.00', '-10.00'],
  ['+10', '+10'],
  ['-1e5', `'-1e5`],
  ['-10.00+cmd', `'-10.00+cmd`],
  [";=cmd|' /C calc'!A0;", ";=cmd|' /C calc'!A0;"],
  ['order-10045', 'order-10045'],
  ['1234.50', '1234.50'],
  ['', ''],
  ['a=b', 'a=b'],
];

for (const [cell, expected] of cases) {
  test(`a cell ${JSON.stringify(cell)} is exported as ${JSON.stringify(expected)}`, () => assert.equal(spreadsheetSafe(cell), expected));
}
