/**
 * Every status, outcome after it, transaction type, dispute stage, failure code, event cause, retry advice and audit outcome Kassa can produce has a text in
 * every language of the console (src/console/i18n.ts). The event causes are the table every writer
 * of an event is typed by (src/ground/event-causes.ts), whose texts the compiler checks as well.
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
import { eventCauses } from '../../src/ground/event-causes.ts';
import { auditOutcomes } from '../../src/operators/audit.ts';

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

const transactionTypes = new Set([...Object.values(flows).flatMap((flow) => flow.transactionTypes), 'credit', ...filterChoices.type]);

const produced: Record<TermKind, string[]> = {
  status: [...statuses],
  outcome: [...outcomes],
  type: [...transactionTypes],
  stage: [...disputeStages],
  failureCode: [...failureCodes],
  cause: [...eventCauses],
  retry: [...retryAdvices],
  auditOutcome: [...auditOutcomes],
};

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
