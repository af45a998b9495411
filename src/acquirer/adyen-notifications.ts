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
import type { AcquirerEvent, AcquirerWord, DisputeFacts, NotificationReader } from './notifications.ts';
import type { DisputeStage } from '../ground/dispute-stages.ts';

export interface AdyenNotificationItem {
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  eventCode: string;
  success: string;
  reason?: string;
  additionalData?: { hmacSignature?: string } & DisputeAdditionalData;
}

/** What a dispute's item carries in its `additionalData` (`DisputesNotificationAdditionalData`): not signed, read as facts about the dispute. */
interface DisputeAdditionalData {
  chargebackReasonCode?: string;
  chargebackSchemeCode?: string;
  rfiReasonCode?: string;
  rfiSchemeCode?: string;
  defensePeriodEndsAt?: string;
}

const disputeFields = ['chargebackReasonCode', 'chargebackSchemeCode', 'rfiReasonCode', 'rfiSchemeCode', 'defensePeriodEndsAt'] as const;

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
      additionalData: additionalDataOf(item.additionalData as Record<string, unknown> | undefined),
    });
  }
  return { live: live === true || live === 'true', items };
}

function additionalDataOf(data: Record<string, unknown> | undefined): AdyenNotificationItem['additionalData'] {
  const read: Record<string, string | undefined> = { hmacSignature: text(data?.hmacSignature) || undefined };
  for (const field of disputeFields) if (text(data?.[field])) read[field] = text(data?.[field]);
  return read;
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
  // Disputes: each drives its chargeback transaction (adyenDisputeStages, docs/disputes.md).
  NOTIFICATION_OF_CHARGEBACK: 'dispute',
  CHARGEBACK: 'dispute',
  SECOND_CHARGEBACK: 'dispute',
  CHARGEBACK_REVERSED: 'dispute',
  REQUEST_FOR_INFORMATION: 'dispute',
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
  // A fraud report is the issuer telling of fraud, no claim on the money: no dispute (docs/disputes.md).
  NOTIFICATION_OF_FRAUD: 'notice',
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

type DisputeCode = { [code in keyof typeof adyenEvents]: (typeof adyenEvents)[code] extends 'dispute' ? code : never }[keyof typeof adyenEvents];

/**
 * The stage each dispute code moves its dispute to (docs/disputes.md "Adyen"), or null for an entry of
 * its timeline that moves nothing. An arbitration's outcome ends the dispute as a pre-arbitration's
 * does; the issuer withdrawing its pre-arbitration is the merchant's win; the merchant accepting it, the
 * dispute accepted.
 */
export const adyenDisputeStages = {
  REQUEST_FOR_INFORMATION: 'notification',
  NOTIFICATION_OF_CHARGEBACK: 'notification',
  CHARGEBACK: 'chargeback',
  CHARGEBACK_REVERSED: 'reversed',
  SECOND_CHARGEBACK: 'second_chargeback',
  PREARBITRATION_OPEN: 'prearbitration',
  PREARBITRATION_WON: 'prearbitration_won',
  PREARBITRATION_ISSUER_WITHDRAWN: 'prearbitration_won',
  PREARBITRATION_LOST: 'prearbitration_lost',
  PREARBITRATION_ACCEPTED: 'accepted',
  SCHEME_ARBITRATION_WON: 'prearbitration_won',
  SCHEME_ARBITRATION_LOST: 'prearbitration_lost',
  DISPUTE_DEFENSE_PERIOD_ENDED: null,
  INFORMATION_SUPPLIED: null,
  ISSUER_COMMENTS: null,
  ISSUER_RESPONSE_TIMEFRAME_EXPIRED: null,
  PREARBITRATION_DECLINED: null,
  SCHEME_ARBITRATION: null,
} as const satisfies Record<DisputeCode, DisputeStage | null>;

/** What a dispute's item says of the dispute, in Kassa's words. */
function disputeFactsOf(item: AdyenNotificationItem): DisputeFacts {
  const data = item.additionalData ?? {};
  return {
    stage: adyenDisputeStages[item.eventCode as DisputeCode] ?? undefined,
    reasonCode: data.chargebackReasonCode ?? data.rfiReasonCode,
    schemeCode: data.chargebackSchemeCode ?? data.rfiSchemeCode,
    defensePeriodEndsAt: data.defensePeriodEndsAt,
  };
}

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
  if (!notification) throw new Problem('notANotification', 'The body is not an Adyen notification (notificationItems).');
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
      ...(eventOf(item.eventCode) === 'dispute' ? { dispute: disputeFactsOf(item) } : {}),
    });
  }
  return { words, forged, answer: accepted };
};
