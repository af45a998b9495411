/**
 * The customer pages' words: the message catalogues in `messages/` (one JSON file per language,
 * ICU MessageFormat, src/lib/catalogues.ts), compiled once when this module loads. English
 * (`eng.json`) is the reference: its keys are `MessageKey`, so a text the code asks for that
 * English lacks does not compile, and every other catalogue must hold the same keys with the
 * same arguments or Kassa does not start. A language is a catalogue file: its `htmlLang` and
 * `locale` entries are the page's `lang` and the Intl locale of its amounts and dates. Which
 * language a page shows: `pageLanguage` (docs/pages.md "Languages").
 */
import type englishMessages from './messages/eng.json';
import { acceptedLanguages, languageOfTag } from '../ground/language.ts';
import { findCurrency } from '../ground/amount.ts';
import { loadCatalogues, type MessageValues } from '../lib/catalogues.ts';

export type MessageKey = keyof typeof englishMessages;
export type Messages = Record<MessageKey, string>;

const catalogues = loadCatalogues<MessageKey>(new URL('./messages/', import.meta.url), { reference: 'eng', locale: (messages) => messages.locale });

/** The languages pages exist in (ISO 639-2/T), English first: one for each catalogue. */
export const pageLanguages: readonly string[] = catalogues.map((catalogue) => catalogue.language);
export type PageLanguage = string;

/** Each language's messages as written in its catalogue. */
export const translations: Readonly<Record<PageLanguage, Messages>> = Object.fromEntries(catalogues.map((catalogue) => [catalogue.language, catalogue.messages]));

const isPageLanguage = (code: string | undefined): code is PageLanguage => pageLanguages.includes(code ?? '');

/**
 * The page's language: the payment's `language` when a page exists in it, else the first of
 * the browser's Accept-Language that has one, else English (docs/pages.md "Languages").
 */
export function pageLanguage(paymentLanguage: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  if (isPageLanguage(paymentLanguage)) return paymentLanguage;
  return acceptedLanguages(acceptLanguage).map(languageOfTag).find(isPageLanguage) ?? 'eng';
}

export type Translate = (key: MessageKey, values?: MessageValues) => string;

const translators = new Map<string, Translate>(catalogues.map((catalogue) => [catalogue.language, catalogue.format]));

/** The translator of a page language; any other code falls back to `eng`. */
export function translator(language: string): Translate {
  return translators.get(language) ?? translators.get('eng')!;
}

/**
 * An amount in major units as given (a line's `totalPrice`, the issuer's purchase amount: a JSON
 * number or decimal text) in the currency, as the page's language writes it; the text as it is
 * when Intl cannot (an unknown currency code).
 */
export function moneyText(t: Translate, major: number | string, currency: string): string {
  const text = String(major).trim();
  // The currency's own decimals (ISO 4217), as the page's amount has them: 30 → €30.00.
  const digits = findCurrency(currency)?.exponent ?? text.split('.')[1]?.length ?? 0;
  try {
    return new Intl.NumberFormat(t('locale'), {
      style: 'currency',
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(Number(text));
  } catch {
    return `${text} ${currency.toUpperCase()}`;
  }
}

/** A count as the page's language writes it. */
export const formatNumber = (t: Translate, value: number) => new Intl.NumberFormat(t('locale')).format(value);

/** A moment as the page's language writes it, in UTC (the page says so: a customer's own time zone is unknown without scripts). */
export const formatDateTime = (t: Translate, at: Date | number) =>
  new Intl.DateTimeFormat(t('locale'), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at);
