/**
 * Test support: an Adyen notification item as Adyen sends it, signed with a connection's HMAC key
 * (Kassa's own `notificationSignature`, checked against Adyen's vector in adyen.test.ts). Each test
 * gives the fields it needs; `additionalData` travels beside the signature, which does not cover it.
 * And a notification's verified words as the notification route reads them, for a test that runs
 * `settleByAcquirer` itself (its stages held or forced into an order).
 */
import { notificationSignature } from '../../src/acquirer/adyen-notifications.ts';
import type { AcquirerWord } from '../../src/acquirer/notifications.ts';
import { notificationReaderOf } from '../../src/acquirer/select.ts';
import { findAcquirerConnectionsByAccount } from '../../src/store/acquirer-connections.ts';
import type { Store } from '../../src/store/store.ts';

export function signedNotification(item: Record<string, unknown>, hmacKeyHex: string, additionalData: Record<string, unknown> = {}) {
  const signature = notificationSignature(item as unknown as Parameters<typeof notificationSignature>[0], hmacKeyHex);
  return { NotificationRequestItem: { ...item, additionalData: { ...additionalData, hmacSignature: signature } } };
}

/** The verified words of an Adyen notification body: Adyen's reader, given the connections of the body's account, as the route gives them. */
export async function adyenWordsOf(store: Store, payload: Record<string, unknown>): Promise<AcquirerWord[]> {
  const read = await notificationReaderOf('adyen')!({ raw: Buffer.from(JSON.stringify(payload)), json: payload, headers: {} }, (account, mode) =>
    findAcquirerConnectionsByAccount(store.read, store.secrets, 'adyen', account, mode),
  );
  return read.words;
}
