/**
 * Every status, outcome after it, transaction type, dispute stage, failure code, event cause and retry advice Kassa can produce has a text in
 * every language of the console (src/console/i18n.ts): the causes are read from the code that
 * writes them, so a new one without a text fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { consoleTranslations, consoleTranslator, term, termKinds, type TermKind } from '../../src/console/i18n.ts';
import { failureCodes, statuses } from '../../src/ground/states.ts';
import { flows } from '../../src/payments/flows.ts';
import { filterChoices } from '../../src/console/views.ts';
import { retryAdvices } from '../../src/acquirer/connector.ts';
import { disputeStages } from '../../src/ground/dispute-stages.ts';
import { outcomes } from '../../src/console/outcomes.ts';

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/**
 * The causes the code writes into transaction_events: `cause: 'expired'` (and a type
 * `cause: 'capture' | 'reversal'`), the answers of `const cause = caller ? 'merchant_cancel' : 'customer_cancel'`,
 * and the cause argument of `insertTransaction(…, 'created')` and `failNow(…, code, 'cause', at)`.
 */
function causesInCode(): Set<string> {
  const causes = new Set<string>();
  const literals = (text: string) => [...text.matchAll(/'([a-z][a-z0-9_]*)'/g)].map((m) => m[1]);
  for (const file of sourceFiles('src').filter((f) => !f.startsWith(join('src', 'console')))) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      for (const m of line.matchAll(/\bcause: ('[a-z0-9_]+'(?: \| '[a-z0-9_]+')*)/g)) literals(m[1]).forEach((c) => causes.add(c));
      // A chosen cause: the literals an expression answers (after `?` or `:`), not the ones it compares with.
      const assigned = /\bconst cause = ([^;]+);/.exec(line);
      if (assigned) for (const m of ` : ${assigned[1]}`.matchAll(/[?:] '([a-z][a-z0-9_]*)'/g)) causes.add(m[1]);
      const inserted = /insertTransaction\(\w+, \w+, '([a-z_]+)'\)/.exec(line);
      if (inserted) causes.add(inserted[1]);
      const failed = /failNow\([^)]*'(\w+)', (\w+)\)/.exec(line);
      if (failed) causes.add(failed[1]);
    }
  }
  return causes;
}

const transactionTypes = new Set([...Object.values(flows).flatMap((flow) => flow.transactionTypes), 'credit', ...filterChoices.type]);

const produced: Record<TermKind, string[]> = {
  status: [...statuses],
  outcome: [...outcomes],
  type: [...transactionTypes],
  stage: [...disputeStages],
  failureCode: [...failureCodes],
  cause: [...causesInCode()],
  retry: [...retryAdvices],
};

test('the causes read from the code include the known ones, so the scan itself works', () => {
  for (const cause of [
    'created',
    'acquirer_authorised',
    'acquirer_refused',
    'merchant_cancel',
    'customer_cancel',
    'capture',
    'reversal',
    'card_attempts_exceeded',
    'operator_resolved',
  ]) {
    assert.ok(produced.cause.includes(cause), cause);
  }
});

for (const [kind, values] of Object.entries(produced) as [TermKind, string[]][]) {
  test(`every ${kind} Kassa can produce has a text in every console language`, () => {
    for (const [language, messages] of Object.entries(consoleTranslations)) {
      const missing = values.filter((value) => !((messages as Record<string, string>)[`${kind}.${value}`] ?? '').trim());
      assert.deepEqual(missing, [], `${kind} without a ${language} text`);
    }
  });
}

test('a term is shown in the page language, and one Kassa does not know as it is', () => {
  assert.equal(term(consoleTranslator('nl-NL,nl;q=0.9'), 'status', 'manualintervention'), 'In controle');
  assert.equal(term(consoleTranslator('en-GB'), 'cause', 'merchant_cancel'), 'Cancelled by the merchant');
  assert.equal(term(consoleTranslator('de-DE,nl;q=0.5'), 'status', 'failed'), 'Mislukt');
  assert.equal(term(consoleTranslator(undefined), 'cause', 'something_new'), 'something_new');
});

/**
 * The console's own code, where a message is asked for: by its key as a literal (`t('signIn')`,
 * `label: 'save'`), or by a key built from a literal prefix (`t(`done_${name}`)`).
 */
const consoleCode = sourceFiles(join('src', 'console'))
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const builtPrefixes = [...consoleCode.matchAll(/`([a-zA-Z_]+)\$\{/g)].map((m) => m[1]);

test('every message of the console catalogues is used: by the code, or as the term of a value Kassa produces', () => {
  const unused = Object.keys(consoleTranslations.eng).filter((key) => {
    const kind = termKinds.find((k) => key.startsWith(`${k}.`));
    if (kind) return !produced[kind].includes(key.slice(kind.length + 1));
    return !consoleCode.includes(`'${key}'`) && !builtPrefixes.some((prefix) => key.startsWith(prefix));
  });
  assert.deepEqual(unused, []);
});
