/**
 * The console's words: the message catalogues in `messages/` (one JSON file per language, ICU
 * MessageFormat, src/lib/catalogues.ts, as the customer pages' pages/messages/), compiled once
 * when this module loads. English (`eng.json`) is the reference: `MessageKey` is the keys every
 * catalogue has, so a text the code asks for that one lacks does not compile, nor does an event
 * cause without its text; and every other catalogue must hold the same keys with the same
 * arguments as English or Kassa does not start. The words of Kassa's own states
 * and events are messages too, keyed `kind.value` (`status.pending`, `cause.created`: `term`).
 * The browser's Accept-Language picks the catalogue; one without any gets English
 * (docs/console.md "Languages").
 */
import type englishMessages from './messages/eng.json';
import type dutchMessages from './messages/nld.json';
import { acceptedLanguages, languageOfTag } from '../ground/language.ts';
import type { EventCause } from '../ground/event-causes.ts';
import { loadCatalogues, type MessageValues } from '../lib/catalogues.ts';

/**
 * The keys of a catalogue that has a text for every event cause (ground/event-causes.ts): a
 * cause added there without its `cause.<cause>` in a catalogue does not compile here.
 */
type KeysWithEveryCause<Messages extends Record<`cause.${EventCause}`, string>> = keyof Messages;
/** A key of every catalogue (each language of messages/ is named here, so the compiler checks it). */
export type MessageKey = KeysWithEveryCause<typeof englishMessages> & KeysWithEveryCause<typeof dutchMessages>;
export type Translate = (key: MessageKey, values?: MessageValues) => string;

// A catalogue's `htmlLang` is also the Intl locale of its numbers and plural rules (the console writes amounts and percentages in it).
const catalogues = loadCatalogues<MessageKey>(new URL('./messages/', import.meta.url), { reference: 'eng', locale: (messages) => messages.htmlLang });

/** Each console language's messages as written in its catalogue, English first. */
export const consoleTranslations: Readonly<Record<string, Record<MessageKey, string>>> = Object.fromEntries(
  catalogues.map((catalogue) => [catalogue.language, catalogue.messages]),
);

/** The catalogue of the first language of the browser's Accept-Language that has one, else English. */
export function consoleTranslator(acceptLanguage: string | undefined): Translate {
  const language = acceptedLanguages(acceptLanguage)
    .map(languageOfTag)
    .find((code) => code !== undefined && code in consoleTranslations);
  return (catalogues.find((catalogue) => catalogue.language === language) ?? catalogues[0]).format;
}

/** The kinds of Kassa's own terms the console shows in words; each value of a kind is the message `kind.value`. */
export const termKinds = ['status', 'outcome', 'type', 'stage', 'failureCode', 'cause', 'retry', 'auditOutcome'] as const;
export type TermKind = (typeof termKinds)[number];

const englishKeys = new Set<string>(Object.keys(consoleTranslations.eng));

/** One of Kassa's terms in the page's language; a term without a text yet is shown as Kassa names it. */
export function term(t: Translate, kind: TermKind, value: string): string {
  const key = `${kind}.${value}`;
  return englishKeys.has(key) ? t(key as MessageKey) : value;
}
