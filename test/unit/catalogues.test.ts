/**
 * The message catalogues (src/lib/catalogues.ts): a folder of ICU MessageFormat JSON files, read
 * and compiled once; a language is one more file; a catalogue missing a key, with a key the
 * reference lacks, with other arguments or with a broken message stops the load, naming it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { argumentsOf, loadCatalogues } from '../../src/lib/catalogues.ts';

const english = { locale: 'en-GB', pay: 'Pay {amount}', tries: '{count, plural, one {# try left} other {# tries left}}' };

/** A folder holding `files` (language → messages), loaded as the pages load theirs. */
function load(files: Record<string, unknown>) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-catalogues-'));
  for (const [language, messages] of Object.entries(files)) fs.writeFileSync(path.join(folder, `${language}.json`), JSON.stringify(messages));
  return loadCatalogues<keyof typeof english>(pathToFileURL(`${folder}/`), { reference: 'eng', locale: (messages) => messages.locale });
}

test('a language is a catalogue file: each is compiled, the reference first, and formats in its own locale', () => {
  const catalogues = load({
    nld: { locale: 'nl-NL', pay: 'Betaal {amount}', tries: '{count, plural, one {nog # poging} other {nog # pogingen}}' },
    eng: english,
    spa: { locale: 'es-ES', pay: 'Pagar {amount}', tries: '{count, plural, one {# intento} other {# intentos}}' },
  });
  assert.deepEqual(
    catalogues.map((c) => c.language),
    ['eng', 'nld', 'spa'],
  );
  const [eng, nld, spa] = catalogues;
  assert.equal(eng.format('pay', { amount: '€1.00' }), 'Pay €1.00');
  assert.equal(eng.format('tries', { count: 1 }), '1 try left');
  assert.equal(nld.format('tries', { count: 1200 }), 'nog 1.200 pogingen');
  assert.equal(spa.format('pay', { amount: '1,00 €' }), 'Pagar 1,00 €');
  assert.equal(nld.messages.pay, 'Betaal {amount}');
});

test('a catalogue that does not match the reference stops the load, naming the file and the keys', () => {
  assert.throws(() => load({ eng: english, nld: { locale: 'nl-NL', pay: 'Betaal {amount}' } }), /nld\.json: missing tries/);
  assert.throws(() => load({ eng: english, nld: { ...english, extra: 'Extra' } }), /nld\.json: unknown extra/);
  assert.throws(() => load({ eng: english, nld: { ...english, pay: 'Betaal {bedrag}' } }), /nld\.json: other arguments than eng\.json in pay/);
  assert.throws(() => load({ eng: english, nld: { ...english, pay: 'Betaal {amount' } }), /EXPECT_ARGUMENT_CLOSING_BRACE|MALFORMED_ARGUMENT/);
  assert.throws(() => load({ eng: english, nld: ['not', 'an', 'object'] }), /nld\.json: a catalogue is a JSON object/);
  assert.throws(() => load({ nld: english }), /no eng\.json/);
});

test('the arguments of a message, those of its plural and select branches too', () => {
  assert.deepEqual(argumentsOf('Pay {amount} to {merchant}'), ['amount', 'merchant']);
  assert.deepEqual(argumentsOf('{count, plural, one {# for {name}} other {# for {name} and {other}}}'), ['count', 'name', 'other']);
  assert.deepEqual(argumentsOf('No arguments, an apostrophe’s fine'), []);
});
