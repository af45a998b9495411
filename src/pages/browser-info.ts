/**
 * Browser data for the AReq when the merchant gave no browserInfo (docs/api.md#browser-data: the service
 * obtains it when the customer is redirected to it). The card page's script fills screen,
 * time zone and language into hidden fields; accept headers, user agent and IP come from
 * the request. Without scripts only the request's part is known. Pure.
 */
import { screenColorDepths, type BrowserInfo } from '../ground/browser-info.ts';
import { type BrowserFacts } from '../payments/card/steps.ts';

export interface BrowserForm {
  js?: string;
  screenWidth?: string;
  screenHeight?: string;
  colorDepth?: string;
  timeZone?: string;
  browserLanguage?: string;
  windowWidth?: string;
}

export interface RequestFacts {
  accept?: string;
  userAgent?: string;
  acceptLanguage?: string;
  ip?: string;
}

const pixels = (value: string | undefined) => (value && /^\d{1,6}$/.test(value) ? value : undefined);
const clip = (value: string | undefined, max: number) => (value ? value.slice(0, max) : undefined);

/** The challenge window that fits the customer's window (EMVCo sizes). */
export function windowSizeFor(width: number | undefined): BrowserInfo['challengeWindowSize'] {
  if (width === undefined) return 'FULL_SCREEN';
  if (width >= 600) return 'W500H600';
  if (width >= 440) return 'W390H400';
  return 'FULL_SCREEN';
}

export function collectBrowserFacts(form: BrowserForm, request: RequestFacts): BrowserFacts {
  const javascriptEnabled = form.js === '1';
  const collected: Partial<BrowserInfo> = { javaEnabled: false };
  const acceptHeaders = clip(request.accept, 2048);
  if (acceptHeaders) collected.acceptHeaders = acceptHeaders;
  const userAgent = clip(request.userAgent, 2048);
  if (userAgent) collected.userAgent = userAgent;
  if (request.ip && request.ip.length <= 45) collected.ipAddress = request.ip;
  const language = javascriptEnabled ? form.browserLanguage : request.acceptLanguage?.split(',')[0]?.split(';')[0]?.trim();
  if (language && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(language) && language.length <= 8) collected.language = language;
  if (javascriptEnabled) {
    const width = pixels(form.screenWidth);
    const height = pixels(form.screenHeight);
    if (width) collected.screenWidth = width;
    if (height) collected.screenHeight = height;
    const depth = screenColorDepths.find((d) => d === form.colorDepth) ?? (form.colorDepth ? '24' : undefined);
    if (depth) collected.screenColorDepth = depth;
    if (form.timeZone && /^[+-]?\d{1,4}$/.test(form.timeZone)) collected.timeZone = form.timeZone;
    const windowWidth = pixels(form.windowWidth);
    collected.challengeWindowSize = windowSizeFor(windowWidth ? Number(windowWidth) : undefined);
  } else {
    collected.challengeWindowSize = 'W390H400';
  }
  return { javascriptEnabled, collected };
}
