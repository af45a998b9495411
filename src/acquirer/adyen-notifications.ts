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
import { fromAdyenMinor } from './adyen-amounts.ts';
import type { AcquirerEvent, AcquirerWord, NotificationReader } from './notifications.ts';

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

/**
 * Every event code of Adyen's standard notifications (`Webhooks-v1.json`) in Kassa's words
 * (acquirer/notifications.ts `AcquirerEvent`; docs/acquirers.md "Notifications" says what each
 * does). A code not here is `unknown`: accepted, logged, nothing changed.
 */
export const adyenEvents = {
  AUTHORISATION: 'authorisation',
  CAPTURE: 'capture',
  REFUND: 'refund',
  // A `/cancel` is Kassa's reversal.
  CANCELLATION: 'reversal',
  CAPTURE_FAILED: 'captureFailed',
  REFUND_FAILED: 'refundFailed',
  REFUNDED_REVERSED: 'refundReversed',
  EXPIRE: 'authorisationExpired',
  // Adyen's `/technicalCancel` is a cancel-or-refund by the merchant's reference: either code may report it.
  TECHNICAL_CANCEL: 'cancelled',
  CANCEL_OR_REFUND: 'cancelled',
  OFFER_CLOSED: 'offerClosed',
  // Disputes, kept on the payment's timeline until Kassa has a disputes feature.
  NOTIFICATION_OF_CHARGEBACK: 'dispute',
  CHARGEBACK: 'dispute',
  SECOND_CHARGEBACK: 'dispute',
  CHARGEBACK_REVERSED: 'dispute',
  REQUEST_FOR_INFORMATION: 'dispute',
  NOTIFICATION_OF_FRAUD: 'dispute',
  DISPUTE_DEFENSE_PERIOD_ENDED: 'dispute',
  INFORMATION_SUPPLIED: 'dispute',
  ISSUER_COMMENTS: 'dispute',
  ISSUER_RESPONSE_TIMEFRAME_EXPIRED: 'dispute',
  PREARBITRATION_OPEN: 'dispute',
  PREARBITRATION_WON: 'dispute',
  PREARBITRATION_LOST: 'dispute',
  PREARBITRATION_ACCEPTED: 'dispute',
  PREARBITRATION_DECLINED: 'dispute',
  PREARBITRATION_ISSUER_WITHDRAWN: 'dispute',
  SCHEME_ARBITRATION: 'dispute',
  SCHEME_ARBITRATION_WON: 'dispute',
  SCHEME_ARBITRATION_LOST: 'dispute',
  // Nothing Kassa asks for and nothing that changes a payment's outcome: on its timeline only.
  AUTHENTICATION: 'notice',
  AUTHORISATION_ADJUSTMENT: 'notice',
  AUTORESCUE: 'notice',
  CANCEL_AUTORESCUE: 'notice',
  HANDLED_EXTERNALLY: 'notice',
  MANUAL_REVIEW_ACCEPT: 'notice',
  MANUAL_REVIEW_REJECT: 'notice',
  ORDER_OPENED: 'notice',
  ORDER_CLOSED: 'notice',
  POSTPONED_REFUND: 'notice',
  RECURRING_CONTRACT: 'notice',
  REFUND_WITH_DATA: 'notice',
  VOID_PENDING_REFUND: 'notice',
  REPORT_AVAILABLE: 'notice',
  PAIDOUT_REVERSED: 'notice',
  PAYOUT_DECLINE: 'notice',
  PAYOUT_EXPIRE: 'notice',
  PAYOUT_THIRDPARTY: 'notice',
} as const satisfies Record<string, AcquirerEvent>;

const eventOf = (code: string): AcquirerEvent => (Object.hasOwn(adyenEvents, code) ? adyenEvents[code as keyof typeof adyenEvents] : 'unknown');

/**
 * An item's amount in Kassa's minor units (ISO 4217): Adyen counts some currencies in other
 * units (docs/acquirers.md "Amounts", adyen-amounts.ts). The one place a notification's amount
 * becomes Kassa's; one Kassa's units cannot carry (or of a currency it does not know) is kept as
 * Adyen sent it, for the timeline to say so.
 */
const kassaAmountOf = ({ value, currency }: AdyenNotificationItem['amount']): AcquirerWord['amount'] => ({
  minor: fromAdyenMinor(value, currency),
  currency,
  asSent: value,
});

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
      event: eventOf(item.eventCode),
      success: item.success === 'true',
      acquirerReference: item.pspReference,
      failureCode: failureCodeOfRefusal(item.reason),
      item: { connector: 'adyen', eventCode: item.eventCode, originalReference: item.originalReference },
      amount: kassaAmountOf(item.amount),
      reason: item.reason,
    });
  }
  return { words, forged, answer: accepted };
};
