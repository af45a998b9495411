/** URL checks for addresses merchants give us (returnUrl, webhookUrl). */

const MAX_URL_LENGTH = 2048;
/** Schemes that would run code or read local data in the customer's browser. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

export type UrlCheck = { ok: true } | { ok: false; message: string };

/** An absolute http(s) URL, or a mobile-application deep link such as `myshop://checkout/done` (spec §2.1). */
export function checkReturnUrl(value: string): UrlCheck {
  const url = parse(value);
  if (!url) return { ok: false, message: 'must be an absolute URL (https://…) or an app deep link (myapp://…)' };
  if (url.protocol === 'http:' || url.protocol === 'https:') return { ok: true };
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return { ok: false, message: `must not use the ${url.protocol} scheme` };
  return { ok: true };
}

/** An absolute http(s) URL. */
export function checkHttpUrl(value: string): UrlCheck {
  const url = parse(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    return { ok: false, message: 'must be an absolute http(s) URL' };
  }
  return { ok: true };
}

function parse(value: string): URL | undefined {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value)) return undefined;
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname) return undefined;
    return url;
  } catch {
    return undefined;
  }
}
