/**
 * The card form's fields → card data, or the errors to show next to each field. Pure.
 * Errors are message keys, translated by the page.
 */
import type { CardBrand } from '../../ground/card-brand.ts';
import type { CardData } from '../../acquirer/connector.ts';
import { cardDigits, detectBrands, luhnValid, ruleOf } from '../../ground/card-brand.ts';

export interface CardForm {
  cardNumber?: string;
  /** MM/YY, MM / YY, MMYY or MM/YYYY (autocomplete cc-exp). */
  expiry?: string;
  cvc?: string;
  holderName?: string;
  /** The brand the customer chose for a co-badged card. */
  brand?: string;
}

export type CardField = 'cardNumber' | 'expiry' | 'cvc' | 'holderName' | 'brand';

export type CardError =
  | 'number_required'
  | 'number_invalid'
  | 'brand_unknown'
  | 'brand_not_accepted'
  | 'brand_not_preselected'
  | 'expiry_required'
  | 'expiry_invalid'
  | 'expiry_past'
  | 'cvc_required'
  | 'cvc_invalid'
  | 'name_required'
  | 'name_invalid';

export interface CardContext {
  /** Brands the merchant accepts. */
  accepted: readonly CardBrand[];
  /** The merchant's preselected brand for this payment (request `brand`). */
  preselected?: CardBrand;
  now: Date;
}

export type CardInputResult =
  | { ok: true; card: CardData /** Brands the number also matches (co-badged), for information. */; coBadged: CardBrand[] }
  | { ok: false; errors: Partial<Record<CardField, CardError>> };

const EXPIRY = /^(\d{1,2})\s*[/-]?\s*(\d{2}|\d{4})$/;
/** EMVCo cardholderName: 2 to 45 characters. */
const NAME_MIN = 2;
const NAME_MAX = 45;

/** Month and four-digit year of an expiry as typed, or undefined. */
export function parseExpiry(text: string): { month: number; year: number } | undefined {
  const match = EXPIRY.exec(text.trim());
  if (!match) {
    // "0330" without a separator
    const compact = /^(\d{2})(\d{2})$/.exec(text.trim());
    if (!compact) return undefined;
    return parseExpiry(`${compact[1]}/${compact[2]}`);
  }
  const month = Number(match[1]);
  const year = match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return undefined;
  return { month, year };
}

/** A card is valid through the last day of its expiry month. */
export const isExpired = (expiry: { month: number; year: number }, now: Date) =>
  expiry.year < now.getUTCFullYear() || (expiry.year === now.getUTCFullYear() && expiry.month < now.getUTCMonth() + 1);

/** The brand a number is processed as: the preselected one, the customer's choice, else the most specific. */
export function chooseBrand(
  digits: string,
  ctx: Pick<CardContext, 'accepted' | 'preselected'>,
  chosen?: string,
): { brand: CardBrand; coBadged: CardBrand[] } | { error: CardError } {
  const matching = detectBrands(digits);
  if (matching.length === 0) return { error: 'brand_unknown' };
  if (ctx.preselected) {
    return matching.includes(ctx.preselected) ? { brand: ctx.preselected, coBadged: matching } : { error: 'brand_not_preselected' };
  }
  const accepted = matching.filter((brand) => ctx.accepted.includes(brand));
  if (accepted.length === 0) return { error: 'brand_not_accepted' };
  const brand = accepted.find((b) => b === chosen) ?? accepted[0];
  return { brand, coBadged: matching };
}

/** The CVC's error for `brand` (any brand's length while the brand is unknown); none for brands without one (bcmc). */
export function cvcError(cvc: string, brand: CardBrand | undefined): CardError | undefined {
  const cvcLength = brand ? ruleOf(brand).cvcLength : undefined;
  if (cvcLength === 0) return undefined;
  if (!cvc) return 'cvc_required';
  if (!/^\d{3,4}$/.test(cvc) || (cvcLength !== undefined && cvc.length !== cvcLength)) return 'cvc_invalid';
  return undefined;
}

export function validateCard(form: CardForm, ctx: CardContext): CardInputResult {
  const errors: Partial<Record<CardField, CardError>> = {};
  const digits = cardDigits(form.cardNumber ?? '');
  let brand: CardBrand | undefined;
  let coBadged: CardBrand[] = [];
  if (!digits) errors.cardNumber = 'number_required';
  else if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) errors.cardNumber = 'number_invalid';
  else {
    const choice = chooseBrand(digits, ctx, form.brand);
    if ('error' in choice) errors.cardNumber = choice.error;
    else [brand, coBadged] = [choice.brand, choice.coBadged];
  }

  const expiryText = form.expiry?.trim() ?? '';
  const expiry = expiryText ? parseExpiry(expiryText) : undefined;
  if (!expiryText) errors.expiry = 'expiry_required';
  else if (!expiry) errors.expiry = 'expiry_invalid';
  else if (isExpired(expiry, ctx.now)) errors.expiry = 'expiry_past';

  const cvc = form.cvc?.trim() ?? '';
  const cvcLength = brand ? ruleOf(brand).cvcLength : undefined;
  const cvcProblem = cvcError(cvc, brand);
  if (cvcProblem) errors.cvc = cvcProblem;

  const holderName = (form.holderName ?? '').trim().replace(/\s+/g, ' ');
  if (!holderName) errors.holderName = 'name_required';
  else if (holderName.length < NAME_MIN || holderName.length > NAME_MAX || /[\p{Cc}\d]/u.test(holderName)) errors.holderName = 'name_invalid';

  if (Object.keys(errors).length > 0 || !brand || !expiry) return { ok: false, errors };
  return {
    ok: true,
    coBadged,
    card: {
      pan: digits,
      expiryMonth: expiry.month,
      expiryYear: expiry.year,
      ...(cvcLength === 0 ? {} : { cvc }),
      holderName,
      brand,
    },
  };
}
