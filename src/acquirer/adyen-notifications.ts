/**
 * Adyen's standard notifications (`Webhooks-v1.json`, docs/acquirers.md "Notifications"):
 * each `NotificationRequestItem` is signed on its own with the merchant's HMAC key — HMAC-SHA256
 * over `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`
 * with the hex-decoded key, base64 (`vectors/hmac.json`). Parsing and checking are pure; the
 * reader (`readAdyenNotification`) checks each item against the HMAC key of every connection of
 * its merchant account and mode, and says in Kassa's words what a signed item tells.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Problem } from '../ground/problem.ts';
import { failureCodeOfRefusal } from './adyen-outcomes.ts';
import type { AcquirerWord, NotificationReader } from './notifications.ts';

export interface AdyenNotificationItem {
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  eventCode: string;
  success: string;
  reason?: string;
  additionalData?: { hmacSignature?: string };
}

export interface AdyenNotification {
  live: boolean;
  items: AdyenNotificationItem[];
}

const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/** The items of a notification body, or undefined when it is not one. An item without the fields a signature covers is left out. */
export function parseNotification(body: unknown): AdyenNotification | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { live, notificationItems } = body as { live?: unknown; notificationItems?: unknown };
  if (!Array.isArray(notificationItems)) return undefined;
  const items: AdyenNotificationItem[] = [];
  for (const wrapper of notificationItems) {
    const item = (wrapper as { NotificationRequestItem?: unknown } | null)?.NotificationRequestItem as Record<string, unknown> | undefined;
    const amount = item?.amount as { value?: unknown; currency?: unknown } | undefined;
    if (!item || typeof item.pspReference !== 'string' || typeof item.merchantAccountCode !== 'string' || typeof item.eventCode !== 'string') continue;
    if (typeof amount?.value !== 'number' || typeof amount.currency !== 'string') continue;
    items.push({
      pspReference: item.pspReference,
      originalReference: text(item.originalReference) || undefined,
      merchantAccountCode: item.merchantAccountCode,
      merchantReference: text(item.merchantReference),
      amount: { value: amount.value, currency: amount.currency },
      eventCode: item.eventCode,
      success: text(item.success),
      reason: text(item.reason) || undefined,
      additionalData: { hmacSignature: text((item.additionalData as Record<string, unknown> | undefined)?.hmacSignature) || undefined },
    });
  }
  return { live: live === true || live === 'true', items };
}

export function signedString(item: Omit<AdyenNotificationItem, 'additionalData'>): string {
  return [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    item.amount.value,
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(':');
}

export function notificationSignature(item: Omit<AdyenNotificationItem, 'additionalData'>, hmacKeyHex: string): string {
  return createHmac('sha256', Buffer.from(hmacKeyHex, 'hex')).update(signedString(item), 'utf8').digest('base64');
}

/** Whether the item carries the signature of `hmacKeyHex`, compared in constant time. */
export function signedWith(item: AdyenNotificationItem, hmacKeyHex: string): boolean {
  const given = Buffer.from(item.additionalData?.hmacSignature ?? '', 'base64');
  const expected = Buffer.from(notificationSignature(item, hmacKeyHex), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Adyen's event codes that finish what Kassa asked for (a `/cancel` is a reversal); the rest (reports…) settle nothing. */
const events: Record<string, AcquirerWord['event']> = { AUTHORISATION: 'authorisation', CAPTURE: 'capture', REFUND: 'refund', CANCELLATION: 'reversal' };

/** Adyen takes a notification as delivered only from this answer, and sends again whatever it did not get it for. */
const accepted = { contentType: 'text/plain', body: '[accepted]' };

export const readAdyenNotification: NotificationReader = async ({ json }, connectionsOf) => {
  const notification = parseNotification(json);
  if (!notification) throw new Problem(400, 'Not a notification', 'The body is not an Adyen notification (notificationItems).');
  const mode = notification.live ? 'live' : 'test';
  const words: AcquirerWord[] = [];
  let forged = 0;
  for (const item of notification.items) {
    const connections = await connectionsOf(item.merchantAccountCode, mode);
    const signer = connections.find((connection) => typeof connection.secrets.hmacKey === 'string' && signedWith(item, connection.secrets.hmacKey));
    if (!signer) {
      forged++;
      continue;
    }
    words.push({
      owner: { merchantId: signer.merchantId, mode: signer.mode },
      reference: item.merchantReference,
      event: events[item.eventCode] ?? 'other',
      success: item.success === 'true',
      acquirerReference: item.pspReference,
      failureCode: failureCodeOfRefusal(item.reason),
      item: { connector: 'adyen', eventCode: item.eventCode, originalReference: item.originalReference },
    });
  }
  return { words, forged, answer: accepted };
};
