/**
 * The Adyen connector against a stand-in that validates every request against Adyen's own
 * OpenAPI document (adyen-fake.ts): the HMAC vector from Adyen's library, the outcome table,
 * authorisations (authorised, refused, no answer), and on SQLite and PostgreSQL a merchant's
 * live connection set as the command line sets it — capture, refund and reversal of live
 * authorisations answered `[…-received]` and finished by signed notifications; forged and
 * replayed notifications change nothing; credentials never printed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { api, backends, cardPayment, createTestDatabase, suiteApp } from '../support/app.ts';
import { pendingPaymentRow, deliveriesFor } from '../events/support.ts';
import { connectToFake, startFakeAdyen, ADYEN_CONTRACT, type FakeAdyen } from './adyen-fake.ts';
import { AdyenConnector } from '../../src/acquirer/adyen.ts';
import { authoriseResultOf } from '../../src/acquirer/adyen-outcomes.ts';
import { notificationSignature, parseNotification, signedString, signedWith } from '../../src/acquirer/adyen-notifications.ts';
import { eventsOf, insertTransaction } from '../../src/store/transactions.ts';
import { ensurePaymentPage, setPageFields } from '../../src/store/payment-pages.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import type { AuthoriseRequest } from '../../src/acquirer/connector.ts';
import { mintTestWalletToken } from '../../src/wallet/index.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';
import { kassaCliWithInput } from '../support/process.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';

const vectors = path.join(path.dirname(ADYEN_CONTRACT), 'vectors');
const HMAC_KEY = randomBytes(32).toString('hex');

const skip = needs(adyenContractMissing);

test("a notification's signature is Adyen's: the vector of Adyen's own library", { skip }, () => {
  const vector = JSON.parse(fs.readFileSync(path.join(vectors, 'hmac.json'), 'utf8'));
  const item = parseNotification({ live: 'false', notificationItems: [{ NotificationRequestItem: vector.notificationRequestItem }] })!.items[0];
  assert.equal(signedString(item), vector.signedString);
  assert.equal(notificationSignature(item, vector.hmacKeyHex), vector.expectedHmacSignature);
  assert.ok(signedWith({ ...item, additionalData: { hmacSignature: vector.expectedHmacSignature } }, vector.hmacKeyHex));
  assert.ok(!signedWith({ ...item, amount: { ...item.amount, value: 1001 }, additionalData: { hmacSignature: vector.expectedHmacSignature } }, vector.hmacKeyHex));
  // The library's sample bodies parse (their signatures use a key that is not published).
  for (const file of ['captureTrue.json', 'refundTrue.json', 'refundFalse.json']) {
    assert.equal(parseNotification(JSON.parse(fs.readFileSync(path.join(vectors, file), 'utf8')))!.items.length, 1, file);
  }
});

test("Adyen's answers map to Kassa's outcomes through one table", () => {
  assert.deepEqual(authoriseResultOf({ resultCode: 'Authorised', pspReference: 'P1', authCode: 'A' }), {
    outcome: 'authorised',
    acquirerReference: 'P1',
    authorisationCode: 'A',
  });
  assert.deepEqual(authoriseResultOf({ resultCode: 'Refused', refusalReason: 'Not enough balance', pspReference: 'P2' }), {
    outcome: 'declined',
    failureCode: 'insufficient_funds',
    acquirerReference: 'P2',
  });
  assert.equal((authoriseResultOf({ resultCode: 'Refused', refusalReason: 'FRAUD' }) as { failureCode: string }).failureCode, 'fraud_detected');
  assert.equal((authoriseResultOf({ resultCode: 'Refused', refusalReason: 'Expired Card' }) as { failureCode: string }).failureCode, 'card_refused');
  assert.equal((authoriseResultOf({ resultCode: 'Error' }) as { failureCode: string }).failureCode, 'processing_error');
  assert.equal(authoriseResultOf({ resultCode: 'Received' }).outcome, 'unknown');
  assert.equal(authoriseResultOf({ resultCode: 'Something new' }).outcome, 'unknown');
});

describe('the Adyen connector against the contract', { skip }, () => {
  let adyen: FakeAdyen;
  before(async () => (adyen = await startFakeAdyen()));
  after(() => adyen.close());

  const request = (amountMinor: number, captureNow = true): AuthoriseRequest => ({
    reference: `tr_${amountMinor}`,
    mode: 'live',
    amountMinor,
    currency: 'eur',
    exponent: 2,
    instrument: {
      kind: 'card',
      card: { pan: '4111111111111111', expiryMonth: 3, expiryYear: 2030, cvc: '737', holderName: 'J. Smit', brand: 'visa' },
      authentication: {
        protocolVersion: '2.2.0',
        transStatus: 'Y',
        eci: '05',
        authenticationValue: 'AAABBJkZFgAAAAAAAAAAAAAAAAA=',
        dsTransID: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
      },
    },
    captureNow,
    merchantName: 'Shop',
  });

  test('authorisations: authorised, refused with their reasons, and no answer in time', async () => {
    const connector = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: adyen.apiKey, timeoutMs: 2000 });
    const sale = await connector.authorise(request(1000), 'tr_1000:card-1');
    assert.equal(sale.outcome, 'authorised');
    assert.deepEqual(await connector.authorise(request(1000), 'tr_1000:card-1'), sale, 'the same key is the same authorisation');
    assert.deepEqual(await connector.authorise(request(1022), 'k22'), { ...(await connector.authorise(request(1022), 'k22')) });
    assert.equal(((await connector.authorise(request(1022), 'k22b')) as { failureCode: string }).failureCode, 'insufficient_funds');
    assert.equal(((await connector.authorise(request(1023), 'k23')) as { failureCode: string }).failureCode, 'fraud_detected');
    const held = await connector.authorise(request(4000, false), 'k-hold');
    assert.equal(held.outcome, 'authorised');
    const sent = adyen.requests.find((r) => r.idempotencyKey === 'k-hold')!.body;
    assert.deepEqual(sent.additionalData, { manualCapture: 'true' });
    assert.deepEqual(sent.mpiData, {
      directoryResponse: 'Y',
      threeDSVersion: '2.2.0',
      eci: '05',
      cavv: 'AAABBJkZFgAAAAAAAAAAAAAAAAA=',
      dsTransID: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
    });
    adyen.slowMs = 500;
    const slow = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: adyen.apiKey, timeoutMs: 100 });
    assert.equal((await slow.authorise(request(1031), 'k31')).outcome, 'unknown');
    const wrongKey = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: 'wrong', timeoutMs: 2000 });
    assert.equal((await wrongKey.authorise(request(1000), 'k-401')).outcome, 'unknown');
    assert.equal((await wrongKey.refund({ reference: 'tr_r', acquirerReference: 'P', amountMinor: 100, currency: 'eur' }, 'k-r')).outcome, 'refused');
    assert.deepEqual(adyen.violations, []);
  });
});

for (const backend of backends) {
  describe(`live payments through Adyen (${backend})`, { skip }, () => {
    const t = suiteApp(backend);
    let adyen: FakeAdyen;
    let live: ReturnType<typeof api>;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'live', hmacKey: HMAC_KEY });
      live = api(t.app, t.merchant.liveApiKey);
      // Where the merchant's webhooks would go: only their recording is looked at here.
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
    });
    after(() => adyen.close());

    /** A live card authorisation as the card page leaves one: `success`, authorised, Adyen's pspReference kept. */
    async function liveAuthorisation(amountMinor: number) {
      const row = { ...pendingPaymentRow(t.store.secrets, t.merchant.merchantId, { mode: 'live' }), type: 'authorise', status: 'success', amount_minor: amountMinor };
      const psp = `PSP${randomBytes(6).toString('hex').toUpperCase()}`;
      await t.store.transact(async (db) => {
        await insertTransaction(db, { ...row, details: JSON.stringify({ captureStatus: 'authorised' }), brand: 'visa' }, 'created');
        await ensurePaymentPage(db, row.reference, 'csrf', Date.now());
        await setPageFields(db, row.reference, { acquirer_reference: psp });
      });
      return { reference: row.reference, psp };
    }

    async function notify(items: Record<string, unknown>[], options: { key?: string } = {}) {
      const notificationItems = items.map((item) => {
        const full = { merchantAccountCode: 'ShopNL', eventDate: new Date().toISOString(), success: 'true', ...item } as unknown as Parameters<
          typeof notificationSignature
        >[0];
        return { NotificationRequestItem: { ...full, additionalData: { hmacSignature: notificationSignature(full, options.key ?? HMAC_KEY) } } };
      });
      return t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload: { live: 'true', notificationItems } });
    }

    test('capture → partial refund: each taken by Adyen, finished by its signed notification, with its webhook', async () => {
      const { reference, psp } = await liveAuthorisation(4000);
      const captured = await live.post('/capture', { reference, amount: '30.00' });
      assert.equal(captured.statusCode, 200, captured.body);
      const capture = captured.json();
      assert.deepEqual([capture.status, capture.amount, capture.parentReference], ['pending', 30, reference]);
      const sent = adyen.requests.find((r) => r.path === '/capture')!;
      assert.deepEqual(sent.body, {
        merchantAccount: 'ShopNL',
        originalReference: psp,
        reference: capture.reference,
        modificationAmount: { value: 3000, currency: 'EUR' },
      });
      assert.equal(sent.idempotencyKey, `${capture.reference}:capture`, "the capture's own reference: one key, one amount");

      const item = { eventCode: 'CAPTURE', pspReference: 'CAP1', originalReference: psp, merchantReference: capture.reference, amount: { value: 3000, currency: 'EUR' } };
      const accepted = await notify([item]);
      assert.equal(accepted.body, '[accepted]');
      assert.equal((await live.get(`/transaction?reference=${capture.reference}`)).json().status, 'success');
      assert.equal((await deliveriesFor(t.store, capture.reference)).length, 1, 'the capture is announced by webhook');
      // A replay changes nothing.
      const events = (await eventsOf(t.store.read, capture.reference)).length;
      assert.equal((await notify([item])).body, '[accepted]');
      assert.equal((await eventsOf(t.store.read, capture.reference)).length, events);

      const refund = (await live.post('/refund', { reference, amount: '10.00' })).json();
      assert.deepEqual([refund.status, refund.parentReference], ['pending', capture.reference]);
      assert.equal(adyen.requests.find((r) => r.path === '/refund')!.body.originalReference, psp);
      const refundItem = {
        eventCode: 'REFUND',
        pspReference: 'REF1',
        originalReference: psp,
        merchantReference: refund.reference,
        amount: { value: 1000, currency: 'EUR' },
      };
      // A forged item changes nothing; the answer is still [accepted], so Adyen does not resend it.
      assert.equal((await notify([refundItem], { key: randomBytes(32).toString('hex') })).body, '[accepted]');
      assert.equal((await live.get(`/transaction?reference=${refund.reference}`)).json().status, 'pending');
      await notify([refundItem]);
      assert.equal((await live.get(`/transaction?reference=${refund.reference}`)).json().status, 'success');
      assert.equal((await live.get(`/transaction?reference=${capture.reference}`)).json().details.refundedAmount, 10);

      // A refund Adyen could not do frees its amount again.
      const second = (await live.post('/refund', { reference: capture.reference })).json();
      assert.equal(second.amount, 20);
      await notify([
        {
          eventCode: 'REFUND',
          pspReference: 'REF2',
          originalReference: psp,
          merchantReference: second.reference,
          amount: { value: 2000, currency: 'EUR' },
          success: 'false',
        },
      ]);
      assert.deepEqual([(await live.get(`/transaction?reference=${second.reference}`)).json().status], ['failed']);
      assert.equal((await live.post('/refund', { reference: capture.reference })).json().amount, 20);
      assert.deepEqual(adyen.violations, []);
    });

    test('reversal cancels the authorisation at Adyen; its CANCELLATION notification confirms it, or, refused, makes it authorised again', async () => {
      const { reference, psp } = await liveAuthorisation(2500);
      const reversed = await live.post('/reversal', { reference });
      assert.equal(reversed.statusCode, 200, reversed.body);
      assert.equal(reversed.json().details.captureStatus, 'reversed');
      assert.deepEqual(adyen.requests.find((r) => r.path === '/cancel' && r.body.originalReference === psp)!.body, {
        merchantAccount: 'ShopNL',
        originalReference: psp,
        reference,
      });
      const cancellation = (merchantReference: string, pspReference: string, success: string) => ({
        eventCode: 'CANCELLATION',
        pspReference: `CAN${pspReference}`,
        originalReference: pspReference,
        merchantReference,
        amount: { value: 2500, currency: 'EUR' },
        success,
      });
      // Adyen confirms: what Kassa recorded at once stands, nothing is added.
      const events = (await eventsOf(t.store.read, reference)).length;
      assert.equal((await notify([cancellation(reference, psp, 'true')])).body, '[accepted]');
      assert.equal((await eventsOf(t.store.read, reference)).length, events);
      assert.equal((await deliveriesFor(t.store, reference)).length, 0);

      // Adyen could not cancel: the amount is still held, so the authorisation is authorised again, and the merchant is told.
      const refused = await liveAuthorisation(2500);
      assert.equal((await live.post('/reversal', { reference: refused.reference })).json().details.captureStatus, 'reversed');
      await notify([cancellation(refused.reference, refused.psp, 'false')]);
      assert.equal((await live.get(`/transaction?reference=${refused.reference}`)).json().details.captureStatus, 'authorised');
      assert.equal((await eventsOf(t.store.read, refused.reference)).at(-1)!.cause, 'reversal_refused_by_acquirer');
      assert.equal((await deliveriesFor(t.store, refused.reference)).length, 1, 'the merchant is told to read it again');
      // A replay changes nothing; the held amount can be captured.
      await notify([cancellation(refused.reference, refused.psp, 'false')]);
      assert.equal((await deliveriesFor(t.store, refused.reference)).length, 1);
      assert.equal((await live.post('/capture', { reference: refused.reference })).statusCode, 200);
      assert.deepEqual(adyen.violations, []);
    });

    test('a notification item is applied once: sent again after the payment moved on, or twice at the same time, it changes nothing and sends no webhook', async () => {
      const { reference, psp } = await liveAuthorisation(2600);
      const refusal = {
        eventCode: 'CANCELLATION',
        pspReference: `CAN${psp}`,
        originalReference: psp,
        merchantReference: reference,
        amount: { value: 2600, currency: 'EUR' },
        success: 'false',
      };
      assert.equal((await live.post('/reversal', { reference })).json().details.captureStatus, 'reversed');
      assert.equal((await notify([refusal])).body, '[accepted]');
      assert.equal((await live.get(`/transaction?reference=${reference}`)).json().details.captureStatus, 'authorised');
      assert.equal((await deliveriesFor(t.store, reference)).length, 1);
      // Reversed again: a new cancel at Adyen, under a key of its own (the first's would get the first answer back).
      assert.equal((await live.post('/reversal', { reference })).json().details.captureStatus, 'reversed');
      const cancels = adyen.requests.filter((r) => r.path === '/cancel' && r.body.originalReference === psp).map((r) => r.idempotencyKey);
      assert.equal(cancels.length, 2);
      assert.notEqual(cancels[0], cancels[1]);
      assert.match(cancels[1]!, new RegExp(`^${reference}:reversal-`));
      // The first refusal, retried by Adyen, does not re-open it.
      assert.equal((await notify([refusal])).body, '[accepted]');
      assert.equal((await live.get(`/transaction?reference=${reference}`)).json().details.captureStatus, 'reversed');
      assert.equal((await deliveriesFor(t.store, reference)).length, 1, 'no webhook for an item applied before');

      // A new item delivered twice at once (Adyen's retry racing its first try): one change, one webhook.
      const other = await liveAuthorisation(2700);
      assert.equal((await live.post('/reversal', { reference: other.reference })).statusCode, 200);
      const twice = {
        ...refusal,
        pspReference: `CAN${other.psp}`,
        originalReference: other.psp,
        merchantReference: other.reference,
        amount: { value: 2700, currency: 'EUR' },
      };
      const answers = await Promise.all([notify([twice]), notify([twice]), notify([twice])]);
      assert.deepEqual(
        answers.map((a) => a.body),
        ['[accepted]', '[accepted]', '[accepted]'],
      );
      const causes = (await eventsOf(t.store.read, other.reference)).map((e) => e.cause);
      assert.equal(causes.filter((c) => c === 'reversal_refused_by_acquirer').length, 1, causes.join());
      assert.equal((await deliveriesFor(t.store, other.reference)).length, 1);
      // Each signed item is kept by Adyen's name of it.
      const kept = await t.store.read.selectFrom('acquirer_notifications').selectAll().where('reference', 'in', [reference, other.reference]).execute();
      assert.deepEqual(
        kept.map((k) => [k.acquirer_reference, k.event_code, k.original_reference, k.success]).sort(),
        [
          [`CAN${other.psp}`, 'CANCELLATION', other.psp, 0],
          [`CAN${psp}`, 'CANCELLATION', psp, 0],
        ].sort(),
      );
    });

    test("a payment held for review (no answer in time) learns its outcome from Adyen's AUTHORISATION notification", async () => {
      async function held(type: string) {
        const row = { ...pendingPaymentRow(t.store.secrets, t.merchant.merchantId, { mode: 'live' }), type, status: 'manualintervention', amount_minor: 1500 };
        await t.store.transact((db) => insertTransaction(db, row, 'created'));
        return row.reference;
      }
      const authorised = await held('authorise');
      const refused = await held('sale');
      const item = (merchantReference: string, extra: Record<string, unknown> = {}) => ({
        eventCode: 'AUTHORISATION',
        pspReference: `PSP${merchantReference.slice(-8)}`,
        merchantReference,
        amount: { value: 1500, currency: 'EUR' },
        ...extra,
      });
      await notify([item(authorised), item(refused, { success: 'false', reason: 'Not enough balance' })]);
      const now = (await live.get(`/transaction?reference=${authorised}`)).json();
      assert.deepEqual([now.status, now.details.captureStatus], ['success', 'authorised']);
      const declined = (await live.get(`/transaction?reference=${refused}`)).json();
      assert.deepEqual([declined.status, declined.failureCode], ['failed', 'insufficient_funds']);
      // Held as the card page holds one: Adyen's reference is what the capture names.
      assert.equal((await live.post('/capture', { reference: authorised })).statusCode, 200);
      assert.equal(adyen.requests.at(-1)!.body.originalReference, `PSP${authorised.slice(-8)}`);
    });

    test("another merchant's notification signature does not settle this merchant's refund", async () => {
      const other = await createMerchant(t.store, 'Other Shop');
      const otherKey = randomBytes(32).toString('hex');
      await connectToFake(t.store, adyen, { merchantId: other.merchantId, mode: 'live', hmacKey: otherKey, apiKey: 'x' });
      const { reference, psp } = await liveAuthorisation(1000);
      const capture = (await live.post('/capture', { reference })).json();
      await notify(
        [{ eventCode: 'CAPTURE', pspReference: 'CAPX', originalReference: psp, merchantReference: capture.reference, amount: { value: 1000, currency: 'EUR' } }],
        { key: otherKey },
      );
      assert.equal((await live.get(`/transaction?reference=${capture.reference}`)).json().status, 'pending');
    });

    test('a wallet token pays through Adyen: the device card with its cryptogram and ECI as an authenticated MPI result', async () => {
      const shop = await createMerchant(t.store, 'Wallet Shop');
      await connectToFake(t.store, adyen, { merchantId: shop.merchantId, mode: 'test', hmacKey: HMAC_KEY });
      const token = await mintTestWalletToken({
        pan: '4111111111111111',
        expiry: '301231',
        amountMinor: 2500,
        currencyNumeric: '978',
        cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=',
        eci: '05',
        network: 'Visa',
        displayName: 'Visa 1111',
        type: 'debit',
      });
      const wallet = api(t.app, shop.testApiKey);
      const { browserInfo } = exampleThreeDSRequest();
      const created = await wallet.post('/payment', { amount: '25.00', currency: 'EUR', method: 'walletpay', details: { walletPayEncryptedToken: token }, browserInfo });
      assert.equal(created.statusCode, 200, created.body);
      const { reference } = created.json();
      let paid = created.json();
      for (let waited = 0; paid.status === 'pending' && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        paid = (await wallet.get(`/transaction?reference=${reference}`)).json();
      }
      assert.equal(paid.status, 'success');
      const sent = adyen.requests.filter((r) => r.path === '/authorise' && r.body.reference === reference);
      assert.equal(sent.length, 1);
      assert.equal((sent[0]!.body.card as { number: string }).number, '4111111111111111');
      assert.deepEqual(sent[0]!.body.mpiData, { directoryResponse: 'Y', authenticationResponse: 'Y', eci: '05', cavv: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=' });
      assert.equal(sent[0]!.body.threeDS2RequestData, undefined, 'the wallet authenticated: Adyen is not asked to');
      assert.deepEqual(adyen.violations, []);
    });

    test('without a live connection a merchant cannot move live money, and test mode keeps the simulator', async () => {
      const other = await createMerchant(t.store, 'Unconnected Shop');
      const row = { ...pendingPaymentRow(t.store.secrets, other.merchantId, { mode: 'live' }), type: 'authorise', status: 'success' };
      await t.store.transact(async (db) => {
        await insertTransaction(db, { ...row, details: JSON.stringify({ captureStatus: 'authorised' }) }, 'created');
        await ensurePaymentPage(db, row.reference, 'csrf', Date.now());
        await setPageFields(db, row.reference, { acquirer_reference: 'PSPUNCONNECTED' });
      });
      const answer = await api(t.app, other.liveApiKey).post('/capture', { reference: row.reference });
      assert.equal(answer.statusCode, 503, answer.body);
      assert.equal(answer.json().title, 'No acquirer configured');
      const created = (await t.client.post('/payment', cardPayment({ transactionType: 'authorise', amount: '12.00' }))).json();
      await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      assert.equal((await t.client.post('/capture', { reference: created.reference })).json().status, 'success', 'the simulator captures at once');
    });
  });
}

test('`kassa acquirer set` reads the credentials from standard input and never prints them', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const cli = (args: string[], input?: string) => kassaCliWithInput(database.env, input, ...args);
    const { merchantId } = JSON.parse(cli(['merchant', 'create', '--name', 'CLI Shop', '--json']));
    const secrets = JSON.stringify({ apiKey: 'AQEsecret-api-key', hmacKey: HMAC_KEY });
    const setArgs = [
      'acquirer',
      'set',
      '--merchant',
      merchantId,
      '--mode',
      'live',
      '--connector',
      'adyen',
      '--endpoint',
      'https://pal-live.example/pal/servlet/Payment/v68',
      '--merchant-account',
      'ShopNL',
    ];
    const set = cli([...setArgs, '--json'], secrets);
    assert.deepEqual(JSON.parse(set), {
      merchantId,
      mode: 'live',
      connector: 'adyen',
      endpoint: 'https://pal-live.example/pal/servlet/Payment/v68',
      account: 'ShopNL',
      updated: JSON.parse(set).updated,
    });
    const shown = cli(['acquirer', 'show', '--merchant', merchantId]);
    assert.match(shown, /live: adyen at https:\/\/pal-live\.example/);
    for (const output of [set, shown, cli(['acquirer', 'show', '--merchant', merchantId, '--json'])]) {
      assert.ok(!output.includes('AQEsecret') && !output.includes(HMAC_KEY), 'no credential is printed');
    }
    assert.throws(() => cli(setArgs, JSON.stringify({ apiKey: 'k', hmacKey: 'not hex' })), /hmacKey/);
    assert.throws(() => cli([...setArgs.slice(0, -4), '--endpoint', 'http://pal.example', '--merchant-account', 'ShopNL'], secrets), /https/);
  } finally {
    await database.drop();
  }
});
