/**
 * One call to one of Adyen's APIs (Classic Payment, Checkout, Disputes): JSON in and out, the
 * connection's API key in `x-api-key`, Adyen's `Idempotency-Key` where the call has one, bounded by
 * ACQUIRER_TIMEOUT. A 5xx, a timeout or a network error is no answer that can be trusted
 * (docs/acquirers.md "Unknown outcomes"); anything else is Adyen's answer as it came.
 */

import { createHash } from 'node:crypto';

/** Adyen takes an `Idempotency-Key` of at most 64 characters (its API reference of the header). */
export const MAX_IDEMPOTENCY_KEY = 64;

/**
 * Kassa's idempotency key as Adyen takes it: the key itself when it is short enough, else with its
 * middle (a 3-D Secure step's session, `<reference>:<session>:challenge` is 74 characters) replaced
 * by 22 base64url characters of the SHA-256 of the whole key, so it still names the payment first
 * and the step last, and is the same for every retry of the call.
 */
export function adyenIdempotencyKey(key: string): string {
  if (key.length <= MAX_IDEMPOTENCY_KEY) return key;
  const digest = createHash('sha256').update(key).digest('base64url').slice(0, 22);
  const parts = key.split(':');
  const named = parts.length >= 3 ? `${parts[0]}:${digest}:${parts.at(-1)}` : undefined;
  return named && named.length <= MAX_IDEMPOTENCY_KEY ? named : `${key.slice(0, MAX_IDEMPOTENCY_KEY - digest.length - 1)}:${digest}`;
}

/** What a call came to: Adyen's JSON answer, or no answer that can be trusted. */
export type AdyenAnswer = { status: number; body: Record<string, unknown> } | { status: 'unknown'; reason: string };

export async function callAdyen(
  url: string,
  body: Record<string, unknown>,
  { apiKey, timeoutMs, idempotencyKey }: { apiKey: string; timeoutMs: number; idempotencyKey?: string },
): Promise<AdyenAnswer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': adyenIdempotencyKey(idempotencyKey) } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.status >= 500) return { status: 'unknown', reason: `Adyen answered ${response.status}` };
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  } catch (error) {
    return { status: 'unknown', reason: error instanceof Error ? error.name : 'network error' };
  }
}
