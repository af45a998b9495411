/**
 * Message catalogues: a folder of JSON files, one per language named by its ISO 639-2/T code
 * (`eng.json`, `nld.json`), each a flat object of key → ICU MessageFormat message (`Pay
 * {amount}`; plurals and selects as ICU writes them), the "key-value JSON" that translators'
 * tools read and write. They are read and compiled (intl-messageformat, FormatJS) once, when
 * the folder is loaded at start: a request only formats. A catalogue that lacks a key of the
 * reference language, has one it lacks, or gives a message other arguments than the reference
 * does stops the start, naming them (docs/pages.md "Languages").
 */
import fs from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

export type MessageValues = Record<string, string | number>;

export interface Catalogue<Key extends string> {
  /** The ISO 639-2/T code, the file's name. */
  language: string;
  /** The messages as written in the file. */
  messages: Readonly<Record<Key, string>>;
  /** A message with its arguments filled in. */
  format(key: Key, values?: MessageValues): string;
}

/** The arguments a message takes, sorted: `{amount}`, `{count, plural, …}` and those inside its branches. */
export function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
      names.add(element.value);
      if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) walk(option.value);
      if (element.type === TYPE.tag) walk(element.children);
    }
  };
  walk(parse(message, { ignoreTag: true }));
  return [...names].sort();
}

/**
 * Every catalogue of `folder`, the `reference` language's first. `locale` is the Intl locale a
 * catalogue's numbers, dates and plural rules follow (each catalogue may name its own by a key).
 */
export function loadCatalogues<Key extends string>(folder: URL, options: { reference: string; locale: (messages: Record<string, string>) => string }): Catalogue<Key>[] {
  const files = fs
    .readdirSync(folder)
    .filter((name) => /^[a-z]{3}\.json$/.test(name))
    .sort();
  const read = (name: string): Record<string, string> => {
    const parsed: unknown = JSON.parse(fs.readFileSync(new URL(name, folder), 'utf8'));
    const entries = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.entries(parsed) : [];
    if (entries.length === 0 || entries.some(([, message]) => typeof message !== 'string'))
      throw new Error(`${name}: a catalogue is a JSON object of key → message text`);
    return Object.fromEntries(entries) as Record<string, string>;
  };
  const referenceFile = `${options.reference}.json`;
  if (!files.includes(referenceFile)) throw new Error(`${folder.pathname}: no ${referenceFile}, the reference catalogue`);
  const reference = read(referenceFile);
  const ordered = [referenceFile, ...files.filter((name) => name !== referenceFile)];
  return ordered.map((name) => {
    const messages = name === referenceFile ? reference : read(name);
    const missing = Object.keys(reference).filter((key) => !(key in messages));
    const extra = Object.keys(messages).filter((key) => !(key in reference));
    const differing = Object.keys(reference).filter((key) => key in messages && argumentsOf(messages[key]).join() !== argumentsOf(reference[key]).join());
    if (missing.length || extra.length || differing.length) {
      throw new Error(
        `${name}: ${[missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unknown ${extra.join(', ')}` : '', differing.length ? `other arguments than ${referenceFile} in ${differing.join(', ')}` : ''].filter(Boolean).join('; ')}`,
      );
    }
    const locale = options.locale(messages);
    const compiled = new Map(Object.entries(messages).map(([key, message]) => [key, new IntlMessageFormat(message, locale, undefined, { ignoreTag: true })]));
    return {
      language: name.slice(0, 3),
      messages: messages as Record<Key, string>,
      format: (key: Key, values?: MessageValues) => String(compiled.get(key)!.format(values)),
    };
  });
}
