/**
 * The one notification route, `POST PUBLIC_URL/acquirer/<connector>/notifications`
 * (api/acquirer-notifications.ts): the connector named in the address reads its notification
 * (acquirer/notifications.ts), a name that reads none is an address with nothing at it, and
 * Adyen's reader verifies each item against its account's connections. What a verified item
 * settles is tested with the Adyen stand-in (test/acquirer/adyen.test.ts, claims.test.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backends, suiteApp } from '../support/app.ts';
import { readAdyenNotification } from '../../src/acquirer/adyen-notifications.ts';
import { signedNotification } from '../acquirer/signed-notification.ts';
import type { AcquirerConnection } from '../../src/store/acquirer-connections.ts';
import type { ReceivedNotification } from '../../src/acquirer/notifications.ts';

const HMAC_KEY = randomBytes(32).toString('hex');

/** A NotificationRequestItem of account ShopNL, signed with `key`. */
function signedItem(fields: Record<string, unknown>, key = HMAC_KEY) {
  const item = {
    pspReference: 'PSP1',
    merchantAccountCode: 'ShopNL',
    merchantReference: 'order-1',
    amount: { value: 1000, currency: 'EUR' },
    eventCode: 'CAPTURE',
    success: 'true',
    ...fields,
  };
  return signedNotification(item, key);
}

const received = (json: unknown): ReceivedNotification => ({ raw: Buffer.from(JSON.stringify(json) ?? ''), json, headers: {} });

describe("Adyen's notification reader", () => {
  const connection = (merchantId: string, hmacKey: string): AcquirerConnection => ({
    merchantId,
    mode: 'live',
    connector: 'adyen',
    endpoint: 'https://pal-live.example',
    endpoints: {},
    account: 'ShopNL',
    secrets: { apiKey: 'key', hmacKey },
    updated: 0,
  });
  const asked: string[] = [];
  const connectionsOf = async (account: string, mode: string) => {
    asked.push(`${account}/${mode}`);
    return [connection('m-other', randomBytes(32).toString('hex')), connection('m-shop', HMAC_KEY)];
  };

  test("each signed item becomes a word of the connection whose key signed it, in Kassa's event names; forged items are counted", async () => {
    const items = [
      signedItem({ eventCode: 'AUTHORISATION', success: 'false', reason: 'Not enough balance', merchantReference: 'pay-1' }),
      signedItem({ eventCode: 'CANCELLATION', originalReference: 'PSP0', merchantReference: 'pay-2' }),
      signedItem({ eventCode: 'REPORT_AVAILABLE', merchantReference: 'pay-3' }),
      signedItem({ eventCode: 'REFUND', merchantReference: 'pay-4' }, randomBytes(32).toString('hex')),
    ];
    asked.length = 0;
    const read = await readAdyenNotification(received({ live: 'true', notificationItems: items }), connectionsOf);
    assert.deepEqual(read.answer, { contentType: 'text/plain', body: '[accepted]' });
    assert.equal(read.forged, 1);
    assert.deepEqual(asked, ['ShopNL/live', 'ShopNL/live', 'ShopNL/live', 'ShopNL/live'], "every item is checked against its own account's connections");
    assert.deepEqual(
      read.words.map((word) => [word.owner.merchantId, word.owner.mode, word.reference, word.event, word.success, word.failureCode, word.item.originalReference]),
      [
        ['m-shop', 'live', 'pay-1', 'authorisation', false, 'insufficient_funds', undefined],
        ['m-shop', 'live', 'pay-2', 'reversal', true, 'card_refused', 'PSP0'],
        ['m-shop', 'live', 'pay-3', 'notice', true, 'card_refused', undefined],
      ],
    );
    assert.deepEqual(read.words[0].item, { connector: 'adyen', eventCode: 'AUTHORISATION', originalReference: undefined });
  });

  test('a test notification (live false) is looked up among the test connections', async () => {
    asked.length = 0;
    await readAdyenNotification(received({ live: 'false', notificationItems: [signedItem({})] }), connectionsOf);
    assert.deepEqual(asked, ['ShopNL/test']);
  });

  for (const body of [undefined, 'text', { live: 'true' }, { notificationItems: 'none' }]) {
    test(`a body that is not a notification is a 400 problem: ${JSON.stringify(body)}`, async () => {
      await assert.rejects(readAdyenNotification(received(body), connectionsOf), { status: 400, title: 'Not a notification' });
    });
  }
});

for (const backend of backends) {
  describe(`POST /acquirer/:connector/notifications (${backend})`, () => {
    const t = suiteApp(backend);

    for (const connector of ['stripe', 'simulator', 'constructor', '__proto__']) {
      test(`a connector name that reads no notifications (${connector}) is 404, as an address with nothing at it`, async () => {
        const response = await t.app.inject({ method: 'POST', url: `/acquirer/${connector}/notifications?x=1`, payload: { notificationItems: [] } });
        assert.equal(response.statusCode, 404);
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
        assert.deepEqual([response.json().title, response.json().detail], ['Not found', `There is nothing at POST /acquirer/${connector}/notifications.`]);
      });
    }

    test("Adyen's address answers [accepted] in plain text, forged items included", async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/acquirer/adyen/notifications',
        payload: { live: 'false', notificationItems: [signedItem({ merchantReference: 'nobody' })] },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '[accepted]');
      assert.match(String(response.headers['content-type']), /^text\/plain/);
    });

    const refused: [string, { type: string; payload: string }, string][] = [
      ['JSON without notificationItems', { type: 'application/json', payload: '{"live":"false"}' }, 'Not a notification'],
      ['text', { type: 'text/plain', payload: '[accepted]' }, 'Not a notification'],
      ['JSON that does not parse', { type: 'application/json', payload: '{"live":' }, 'Malformed JSON'],
    ];
    for (const [what, { type, payload }, title] of refused) {
      test(`a body of ${what} at Adyen's address is a 400 problem (${title})`, async () => {
        const response = await t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', headers: { 'content-type': type }, payload });
        assert.equal(response.statusCode, 400);
        assert.equal(response.json().title, title);
      });
    }
  });
}
