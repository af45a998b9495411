/**
 * One call to one of Adyen's APIs (Classic Payment, Checkout, Disputes): JSON in and out, the
 * connection's API key in `x-api-key`, Adyen's `Idempotency-Key` where the call has one, bounded by
 * ACQUIRER_TIMEOUT. A 5xx, a timeout or a network error is no answer that can be trusted
 * (docs/acquirers.md "Unknown outcomes"); anything else is Adyen's answer as it came.
 */

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
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
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
