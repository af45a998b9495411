/**
 * The customer's browser as 3-D Secure 2 sees it (docs/api.md#browser-data): what the merchant's
 * `browserInfo` says or the card page measured, read by the 3-D Secure server's AReq and by an
 * acquirer that authenticates itself. Pure.
 */

/** docs/api.md#browser-data; `48` accepted too (the API contract lists the values twice, once with 48: docs/api.md#readings-of-unclear-lines). */
export const screenColorDepths = ['1', '4', '8', '15', '16', '24', '32', '48', '64'] as const;
export const challengeWindowSizes = ['W250H400', 'W390H400', 'W500H600', 'W600H400', 'FULL_SCREEN'] as const;

/** docs/api.md#browser-data */
export interface BrowserInfo {
  javaEnabled: boolean;
  acceptHeaders: string;
  ipAddress: string;
  language: string;
  screenColorDepth: (typeof screenColorDepths)[number];
  screenHeight: string;
  screenWidth: string;
  timeZone: string;
  userAgent: string;
  challengeWindowSize: (typeof challengeWindowSizes)[number];
}
