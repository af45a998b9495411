/** URL checks for addresses merchants give us (returnUrl, webhookUrl). */

const MAX_URL_LENGTH = 2048;
/** RFC 3986 §3.1, without the colon. */
export const URL_SCHEME = /^[a-z][a-z0-9+.-]*$/;
/** Schemes that would run code or read local data in the customer's browser: never a place to send one, whoever allows it. */
export const SCRIPT_SCHEMES: readonly string[] = ['javascript', 'data', 'vbscript', 'file', 'blob', 'about'];

export type UrlCheck = { ok: true } | { ok: false; message: string };

/**
 * Where a browser is sent: an absolute http(s) URL, or a URL of one of `appSchemes`, the deep
 * links (`myshop://checkout/done`, docs/api.md#the-payment-object) the operator allows. Every other scheme is
 * refused, not only those known to be dangerous: browsers and phones hand unknown ones to
 * whatever registered them (`intent:`, `ms-settings:`, …).
 */
export function checkReturnUrl(value: string, appSchemes: readonly string[] = []): UrlCheck {
  const url = parse(value);
  const allowed = appSchemes.length > 0 ? `an absolute http(s) URL or a link with the scheme ${appSchemes.map((s) => `${s}:`).join(', ')}` : 'an absolute http(s) URL';
  if (!url) return { ok: false, message: `must be ${allowed}` };
  if (url.protocol === 'http:' || url.protocol === 'https:' || appSchemes.includes(url.protocol.slice(0, -1))) return { ok: true };
  return { ok: false, message: `must be ${allowed}, not ${url.protocol}` };
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
