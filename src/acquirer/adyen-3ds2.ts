/**
 * Adyen's native 3-D Secure 2 in the Classic Payment API (docs/acquirers.md "3-D Secure through
 * Adyen"), as data: the fields `/authorise` carries so that Adyen authenticates the cardholder
 * (`browserInfo`, `threeDS2RequestData` with `deviceChannel: browser`), what `/authorise3ds2`
 * carries after the issuer's 3DS method or challenge, and what an answer means — decided
 * (`Authorised`, `Refused`, … through the one outcome table, adyen-outcomes.ts), or the
 * customer's next step (`IdentifyShopper`, `ChallengeShopper`, read from `additionalData`'s
 * `threeds2.*` keys). Pure.
 */
import type { AuthenticatingRequest, AuthenticationContinuation, AuthenticationStep } from './connector.ts';
import type { BrowserInfo } from '../ground/browser-info.ts';
import { authoriseResultOf, type AdyenPaymentResult } from './adyen-outcomes.ts';

/** BrowserInfo's colorDepth values (Payment API v68); EMVCo's 64 bits is sent as 48, the highest both know. */
const adyenColorDepths = [1, 4, 8, 15, 16, 24, 30, 32, 48];
const colorDepthOf = (depth: string | undefined) => {
  const bits = Number(depth ?? 24);
  return adyenColorDepths.includes(bits) ? bits : bits > 48 ? 48 : 24;
};

/**
 * Adyen's `BrowserInfo`, all of whose fields are required. Without scripts the page knows no
 * screen, colour depth or time zone: those are sent as 0 × 0, 24 bits and UTC with
 * `javaScriptEnabled: false`, which tells the issuer they were not measured (EMVCo leaves them
 * out then; Adyen's schema asks for them).
 */
export function adyenBrowserInfo(browser: Partial<BrowserInfo>, javascriptEnabled: boolean): Record<string, unknown> {
  const whole = (value: string | undefined) => (value !== undefined && /^-?\d+$/.test(value) ? Number(value) : 0);
  return {
    userAgent: browser.userAgent ?? '',
    acceptHeader: browser.acceptHeaders ?? '*/*',
    javaEnabled: browser.javaEnabled ?? false,
    javaScriptEnabled: javascriptEnabled,
    colorDepth: colorDepthOf(browser.screenColorDepth),
    screenHeight: whole(browser.screenHeight),
    screenWidth: whole(browser.screenWidth),
    timeZoneOffset: whole(browser.timeZone),
    language: browser.language ?? 'en',
  };
}

/** The 3-D Secure part of the first `/authorise`: Adyen authenticates in the browser flow, the ACS posts the CRes to Kassa's page. */
export function authenticatingFields(request: AuthenticatingRequest): Record<string, unknown> {
  return {
    browserInfo: adyenBrowserInfo(request.browser, request.javascriptEnabled),
    ...(request.browser.ipAddress ? { shopperIP: request.browser.ipAddress } : {}),
    threeDS2RequestData: {
      deviceChannel: 'browser',
      notificationURL: request.notificationUrl,
      threeDSRequestorChallengeInd: request.challengeIndicator,
    },
  };
}

/** What `/authorise3ds2` carries besides the payment: the token, and whether the 3DS method ran or what the CRes said. */
export function continuationFields(request: AuthenticationContinuation): Record<string, unknown> {
  const { after } = request;
  return {
    threeDS2Token: request.token,
    ...(after.step === 'method'
      ? { threeDS2RequestData: { deviceChannel: 'browser', threeDSCompInd: after.completed } }
      : { threeDS2Result: { transStatus: after.step === 'challenge' ? after.transStatus : 'U' } }),
  };
}

/** An answer of `/authorise` or `/authorise3ds2` with its `additionalData` (all strings, PaymentResult). */
export type AdyenAuthenticationResult = AdyenPaymentResult & { additionalData?: Record<string, string> };

/**
 * What an answer means for the customer: the next step when Adyen asks for one, else the
 * outcome of the one table. `IdentifyShopper` without a 3DS method URL has `methodUrl`
 * undefined: the connector then says at once that no method ran (`threeDSCompInd: U`).
 */
export function authenticationStepOf(
  result: AdyenAuthenticationResult,
): AuthenticationStep | { step: 'method'; token: string; threeDSServerTransID: string; methodUrl: undefined } {
  const data = result.additionalData ?? {};
  const token = data['threeds2.threeDS2Token'];
  if (result.resultCode === 'IdentifyShopper') {
    const threeDSServerTransID = data['threeds2.threeDSServerTransID'];
    if (token && threeDSServerTransID) return { step: 'method', token, threeDSServerTransID, methodUrl: data['threeds2.threeDSMethodURL'] || undefined };
  }
  if (result.resultCode === 'ChallengeShopper') {
    const response = (name: string) => data[`threeds2.threeDS2ResponseData.${name}`];
    const [acsUrl, acsTransID, threeDSServerTransID] = [response('acsURL'), response('acsTransID'), response('threeDSServerTransID')];
    if (token && acsUrl && acsTransID && threeDSServerTransID) {
      return { step: 'challenge', token, threeDSServerTransID, acsTransID, acsUrl, messageVersion: response('messageVersion') ?? '2.2.0' };
    }
  }
  // 3-D Secure 1, for an issuer without 3-D Secure 2 (PaymentResult v68: issuerUrl, md, paRequest).
  if (result.resultCode === 'RedirectShopper') {
    const { issuerUrl, md, paRequest } = result as { issuerUrl?: string; md?: string; paRequest?: string };
    if (issuerUrl && md && paRequest) return { step: 'redirect', issuerUrl, md, paRequest };
  }
  // A step without what it needs cannot be taken: nothing was authorised, so the table's `rejected` holds for it too.
  return { step: 'done', result: authoriseResultOf(result) };
}
