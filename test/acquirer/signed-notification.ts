/**
 * Test support: an Adyen notification item as Adyen sends it, signed with a connection's HMAC key
 * (Kassa's own `notificationSignature`, checked against Adyen's vector in adyen.test.ts). Each test
 * gives the fields it needs; `additionalData` travels beside the signature, which does not cover it.
 */
import { notificationSignature } from '../../src/acquirer/adyen-notifications.ts';

export function signedNotification(item: Record<string, unknown>, hmacKeyHex: string, additionalData: Record<string, unknown> = {}) {
  const signature = notificationSignature(item as unknown as Parameters<typeof notificationSignature>[0], hmacKeyHex);
  return { NotificationRequestItem: { ...item, additionalData: { ...additionalData, hmacSignature: signature } } };
}
