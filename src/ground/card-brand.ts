/**
 * Card brand detection and the Luhn check. The brands' number ranges come from the
 * credit-card-type package, plus an entry for Bancontact (bcmc), which it does not know.
 * A number can match several brands (co-badged cards, e.g. Bancontact with Maestro or
 * Visa); the customer may then choose, and the most specific range is the default.
 * Pure; the same rules are sent to the card page's script for live detection.
 */
import creditCardType from 'credit-card-type';

export const cardBrands = ['visa', 'mastercard', 'amex', 'maestro', 'bcmc'] as const;
export type CardBrand = (typeof cardBrands)[number];

export type Pattern = number | [number, number];

export interface BrandRule {
  brand: CardBrand;
  /** Name shown to the customer. */
  name: string;
  patterns: Pattern[];
  lengths: number[];
  /** Where the number is grouped when shown (4111 1111 1111 1111). */
  gaps: number[];
  /** Security code digits; 0 = the brand has none (bcmc). */
  cvcLength: number;
}

/** credit-card-type's identifiers of the brands Kassa takes. */
const libraryTypes: Record<Exclude<CardBrand, 'bcmc'>, string> = {
  visa: creditCardType.types.VISA,
  mastercard: creditCardType.types.MASTERCARD,
  amex: creditCardType.types.AMERICAN_EXPRESS,
  maestro: creditCardType.types.MAESTRO,
};

/** Bancontact: 6703 (co-badged with Maestro) and the 479658 / 606005 ranges; no security code. */
const bancontact: BrandRule = {
  brand: 'bcmc',
  name: 'Bancontact',
  patterns: [6703, 479658, 606005],
  lengths: [16, 17, 18, 19],
  gaps: [4, 8, 12],
  cvcLength: 0,
};

export const brandRules: readonly BrandRule[] = cardBrands.map((brand) => {
  if (brand === 'bcmc') return bancontact;
  const info = creditCardType.getTypeInfo(libraryTypes[brand]);
  return {
    brand,
    name: info.niceType,
    patterns: info.patterns as Pattern[],
    lengths: info.lengths,
    gaps: info.gaps,
    cvcLength: info.code.size,
  };
});

export const ruleOf = (brand: CardBrand) => brandRules.find((rule) => rule.brand === brand)!;
export const brandName = (brand: string) => brandRules.find((rule) => rule.brand === brand)?.name ?? brand;

/** How many leading digits of `digits` a pattern pins down (0 = no match). */
export function patternStrength(digits: string, pattern: Pattern): number {
  if (typeof pattern === 'number') {
    const prefix = String(pattern);
    return digits.startsWith(prefix) ? prefix.length : 0;
  }
  const [low, high] = pattern;
  const width = String(low).length;
  if (digits.length < width) return 0;
  const head = Number(digits.slice(0, width));
  return head >= low && head <= high ? width : 0;
}

/** Ranges of the brands Kassa does not take (Discover, JCB, …): a number in one is not caught by a broad range such as Maestro's `6`. */
const otherPatterns: Pattern[] = Object.values(creditCardType.types)
  .filter((type) => !Object.values(libraryTypes).includes(type))
  .flatMap((type) => creditCardType.getTypeInfo(type).patterns as Pattern[]);

const strengthOf = (digits: string, patterns: Pattern[]) => Math.max(0, ...patterns.map((p) => patternStrength(digits, p)));

/** Every brand whose range holds this (complete) card number, most specific range first. */
export function detectBrands(digits: string): CardBrand[] {
  const otherBrand = strengthOf(digits, otherPatterns);
  return brandRules
    .map((rule) => ({ rule, strength: strengthOf(digits, rule.patterns) }))
    .filter(({ rule, strength }) => strength > otherBrand && rule.lengths.includes(digits.length))
    .sort((a, b) => b.strength - a.strength)
    .map(({ rule }) => rule.brand);
}

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The card number without the spaces and dashes people type. */
export const cardDigits = (input: string) => input.replace(/[\s-]/g, '');
