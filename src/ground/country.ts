/** Countries and their subdivisions: ISO 3166-1 and ISO 3166-2, from the iso-3166 package. */
import { iso31661, iso31662 } from 'iso-3166';

const alpha2ToNumeric = new Map<string, string>(iso31661.map((c) => [c.alpha2, c.numeric]));
/** Alpha-2 and alpha-3 (`NL`, `NLD`) → alpha-2: the official client sends `NLD` (docs/interop.md). */
const alpha2ByCode = new Map<string, string>(iso31661.flatMap((c) => [[c.alpha2, c.alpha2] as const, [c.alpha3, c.alpha2] as const]));

/** `NL` → `{NH, ZH, …}`: the subdivision part of every ISO 3166-2 code, nested ones included. */
const subdivisionsByCountry = new Map<string, Set<string>>();
for (const { code } of iso31662) {
  const dash = code.indexOf('-');
  const country = code.slice(0, dash);
  let parts = subdivisionsByCountry.get(country);
  if (!parts) subdivisionsByCountry.set(country, (parts = new Set()));
  parts.add(code.slice(dash + 1));
}

/** ISO 3166-1 alpha-2 of an assigned country; expects upper case. */
export function isCountryAlpha2(code: string): boolean {
  return alpha2ToNumeric.has(code);
}

/** ISO 3166-1 alpha-2 of an assigned country given as alpha-2 or alpha-3, any case (`nld` → `NL`). */
export function countryAlpha2(code: string): string | undefined {
  return alpha2ByCode.get(code.toUpperCase());
}

/** ISO 3166-1 numeric (3 digits) of an assigned alpha-2 country code. */
export function countryNumeric(alpha2: string): string | undefined {
  return alpha2ToNumeric.get(alpha2.toUpperCase());
}

/** Shape of an ISO 3166-2 subdivision part (`NH`, `CA`, `01`, `BFS`); expects upper case. */
export function isSubdivisionShape(part: string): boolean {
  return /^[A-Z0-9]{1,3}$/.test(part);
}

/** `NH` is a subdivision of `NL` (ISO 3166-2 `NL-NH`); both upper case. */
export function isSubdivisionOf(country: string, part: string): boolean {
  return subdivisionsByCountry.get(country)?.has(part) ?? false;
}
