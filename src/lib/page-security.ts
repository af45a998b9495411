/**
 * Security of every HTML page Kassa serves (the customer pages and the console): a strict
 * Content-Security-Policy with a fresh nonce per response, no framing except where it is the
 * point (the challenge window), and the CSRF checks.
 *
 * CSRF: every form carries a synchronizer token (a payment's, kept in `payment_pages`; a
 * console session's), compared in constant time, and a browser-declared cross-site post
 * (`Sec-Fetch-Site: cross-site`) is refused. The two addresses an issuer's ACS posts to
 * (CRes, PaRes) are cross-site by nature; they are bound to their session instead
 * (threeDSSessionData / the sealed MD).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const newNonce = () => randomBytes(16).toString('base64');

export interface PagePolicy {
  nonce: string;
  /** `'none'` everywhere but the pages that live inside the challenge window (`'self'`). */
  frameAncestors: "'none'" | "'self'";
  /** Where this page's forms may go (and be redirected to): the ACS, the merchant's returnUrl. */
  formTargets?: string[];
  /** What this page may frame: the challenge window's ACS. */
  frameTargets?: string[];
}

/** A CSP source for a URL: its origin for http(s), its scheme for an app deep link (`myshop:`). */
export function sourceOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : parsed.protocol;
  } catch {
    return undefined;
  }
}

const unique = (sources: (string | undefined)[]) => [...new Set(sources.filter((s): s is string => !!s))];

export function contentSecurityPolicy(policy: PagePolicy): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${policy.nonce}'`,
    `style-src 'nonce-${policy.nonce}'`,
    "img-src 'self' data:",
    `form-action ${["'self'", ...unique(policy.formTargets ?? [])].join(' ')}`,
    `frame-src ${["'self'", ...unique(policy.frameTargets ?? [])].join(' ')}`,
    `frame-ancestors ${policy.frameAncestors}`,
    "base-uri 'none'",
  ].join('; ');
}

export function sendPage(reply: FastifyReply, policy: PagePolicy, body: { toString(): string }, status = 200) {
  return reply
    .code(status)
    .header('Content-Security-Policy', contentSecurityPolicy(policy))
    .header('X-Frame-Options', policy.frameAncestors === "'self'" ? 'SAMEORIGIN' : 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .header('Cross-Origin-Opener-Policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(body.toString());
}

export function csrfValid(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** The browser says the form was posted from another site. */
export const crossSite = (request: FastifyRequest) => request.headers['sec-fetch-site'] === 'cross-site';

export type Form = Record<string, string | string[] | undefined>;

/**
 * One value of a posted form field (the first, if it was sent twice). Only text counts: a JSON
 * body reaches these routes too (the app parses JSON everywhere), and its numbers, booleans and
 * objects are no form value.
 */
export const field = (body: unknown, name: string): string | undefined => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
};
