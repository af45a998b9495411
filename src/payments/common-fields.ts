/**
 * Request fields shared by every operation that sends a customer to a Kassa page
 * (payments, vault enrollments): returnUrl, language, the merchant's free texts and
 * the per-transaction webhookUrl. Pure: no I/O.
 */
import { checkHttpUrl, checkReturnUrl } from '../lib/urls.ts';
import { checkLanguage, DEFAULT_LANGUAGE } from '../ground/language.ts';
import { checkLiveUrl } from '../events/ssrf.ts';
import type { FieldErrors } from '../ground/problem.ts';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Existing clients send `""` for unset optional fields (DESIGN §2): treat as absent. */
export const given = (v: unknown) => v !== undefined && v !== null && v !== '';

const TEXT_LIMITS = { merchantOrderReference: 255, description: 1000, metadata: 4096 } as const;

export interface CommonFields {
  returnUrl?: string;
  language: string;
  merchantOrderReference?: string;
  description?: string;
  metadata?: string;
  webhookUrl?: string;
}

/** A live webhook must be https and not a literal private address (the connect-time check covers names). */
function checkLiveWebhookUrl(value: string): { ok: true } | { ok: false; message: string } {
  const check = checkHttpUrl(value);
  if (!check.ok) return check;
  try {
    checkLiveUrl(new URL(value));
    return { ok: true };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

type UrlCheck = (value: string) => { ok: true } | { ok: false; message: string };

function optionalText(body: Record<string, unknown>, errors: FieldErrors, name: keyof typeof TEXT_LIMITS): string | undefined {
  const value = body[name];
  if (!given(value)) return undefined;
  if (typeof value !== 'string') return void errors.add(`/${name}`, 'type', 'must be a string');
  const max = TEXT_LIMITS[name];
  if (value.length > max) return void errors.add(`/${name}`, 'max_length', `must be at most ${max} characters`);
  return value;
}

function optionalUrl(body: Record<string, unknown>, errors: FieldErrors, name: 'returnUrl' | 'webhookUrl', check: UrlCheck): string | undefined {
  const value = body[name];
  if (!given(value)) return undefined;
  if (typeof value !== 'string') return void errors.add(`/${name}`, 'type', 'must be a string');
  const result = check(value);
  if (!result.ok) return void errors.add(`/${name}`, 'format', result.message);
  return value;
}

export function parseCommonFields(body: Record<string, unknown>, errors: FieldErrors, returnUrlRequired: boolean, mode: 'test' | 'live'): CommonFields {
  const returnUrl = optionalUrl(body, errors, 'returnUrl', checkReturnUrl);
  if (!given(body.returnUrl) && returnUrlRequired) errors.add('/returnUrl', 'required', 'is required: the customer returns there afterwards');

  let language = DEFAULT_LANGUAGE;
  if (given(body.language)) {
    if (typeof body.language !== 'string') errors.add('/language', 'type', 'must be a string');
    else {
      const check = checkLanguage(body.language);
      if (!check.ok) errors.add('/language', 'enum', check.message);
      else language = check.code;
    }
  }

  return {
    returnUrl,
    language,
    merchantOrderReference: optionalText(body, errors, 'merchantOrderReference'),
    description: optionalText(body, errors, 'description'),
    metadata: optionalText(body, errors, 'metadata'),
    webhookUrl: optionalUrl(body, errors, 'webhookUrl', mode === 'live' ? checkLiveWebhookUrl : checkHttpUrl),
  };
}
