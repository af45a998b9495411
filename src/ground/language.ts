/** `language`: ISO 639-2/T three-letter codes (docs/decisions.md#languages-and-currencies), from the iso-639-2 data package. */
import { iso6392 } from 'iso-639-2';

const terminologyCodes = new Set(iso6392.map((l) => l.iso6392T ?? l.iso6392B).filter((code) => /^[a-z]{3}$/.test(code)));
const byTwoLetterCode = new Map(iso6392.filter((l) => l.iso6391).map((l) => [l.iso6391!, l.iso6392T ?? l.iso6392B]));
const twoLetterOf = new Map(iso6392.filter((l) => l.iso6391).map((l) => [l.iso6392T ?? l.iso6392B, l.iso6391!]));
const bibliographicOnly = new Map(iso6392.filter((l) => l.iso6392T).map((l) => [l.iso6392B, l.iso6392T!]));

export const DEFAULT_LANGUAGE = 'eng';

export function checkLanguage(code: string): { ok: true; code: string } | { ok: false; message: string } {
  const lower = code.toLowerCase();
  if (terminologyCodes.has(lower)) return { ok: true, code: lower };
  const terminology = bibliographicOnly.get(lower);
  if (terminology) return { ok: false, message: `must be the ISO 639-2/T code: use "${terminology}", not the bibliographic "${lower}"` };
  return { ok: false, message: 'must be an ISO 639-2/T three-letter language code such as eng or nld' };
}

/** The ISO 639-2/T code of a BCP 47 tag's language (`de-CH` → `deu`), or undefined for a tag without a two-letter ISO 639-1 language. */
export function languageOfTag(tag: string): string | undefined {
  return byTwoLetterCode.get(tag.split('-')[0].toLowerCase());
}

/** The ISO 639-1 two-letter code of an ISO 639-2/T language (`nld` → `nl`), or undefined for a language that has none. */
export function twoLetterLanguage(code: string): string | undefined {
  return twoLetterOf.get(code.toLowerCase());
}

/** An Accept-Language header's languages, the most preferred first (RFC 9110 §12.5.4: q=0 means "not acceptable"). */
export function acceptedLanguages(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag, ...parameters] = part.trim().split(';');
      const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}
