/**
 * Standard Webhooks signatures (docs/webhooks.md#verifying-the-signature): `webhook-signature: v1,<base64 HMAC-SHA256>`
 * over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of
 * the merchant's `whsec_` secret. Byte for byte what the `standardwebhooks` package's
 * `Webhook.sign` produces (the tests verify with it); node:crypto's HMAC is used here
 * because it is native and the delivery worker signs thousands of messages a second.
 */
import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../lib/tokens.ts';

/** The HMAC key of a `whsec_` secret (lib/tokens.ts `newWebhookSecret`). */
export const secretKey = (secret: string) => Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');

/** The body of every webhook (docs/webhooks.md#what-you-receive): the reference and nothing else. */
export const webhookBody = (reference: string) => JSON.stringify({ id: reference });

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers for one attempt; the timestamp is the attempt's own (receivers refuse ones older than 5 minutes). */
export function signWebhook(key: Buffer, webhookId: string, at: number, body: string): SignedHeaders {
  const timestamp = String(Math.floor(at / 1000));
  const signature = createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': webhookId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
