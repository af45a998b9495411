/**
 * Verifies Kassa's webhooks: Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256>`) keyed with the merchant's `whsec_` secret
 * (`kassa webhook show`), checked by the Standard Webhooks reference library, timestamps older
 * or newer than 5 minutes refused. The body is `{"id": "<reference>"}`: read the transaction
 * for its state, as the webhook carries nothing else.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

export interface KassaWebhook {
  /** The reference of the transaction whose state changed. */
  id: string;
}

/**
 * `body` exactly as received (the raw bytes as text, not re-serialized JSON); `headers` as your
 * framework gives them (names in any case). Throws WebhookVerificationError when not genuine.
 */
export function verifyWebhook(secret: string, body: string, headers: Record<string, string | string[] | undefined>): KassaWebhook {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) lower[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  const payload = new Webhook(secret).verify(body, lower) as Partial<KassaWebhook>;
  if (typeof payload.id !== 'string') throw new WebhookVerificationError('The webhook body has no transaction reference.');
  return { id: payload.id };
}
