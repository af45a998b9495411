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
import { AdyenConnector, shopperFields } from '../../src/acquirer/adyen.ts';
import { authoriseResultOf, refusedRequestResult, retryAdvice } from '../../src/acquirer/adyen-outcomes.ts';
import { adyenCurrencies, adyenExponent, fromAdyenMinor, toAdyenMinor } from '../../src/acquirer/adyen-amounts.ts';
import { shopperOf } from '../../src/payments/card/shopper.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { ConsoleClient, makeAccount } from '../console/support.ts';
import { notificationSignature, parseNotification, signedString, signedWith } from '../../src/acquirer/adyen-notifications.ts';
import { signedNotification } from './signed-notification.ts';
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
    refusal: { reason: 'Not enough balance', retry: 'retry later' },
  });
  assert.equal((authoriseResultOf({ resultCode: 'Refused', refusalReason: 'FRAUD' }) as { failureCode: string }).failureCode, 'fraud_detected');
  assert.equal((authoriseResultOf({ resultCode: 'Refused', refusalReason: 'Expired Card' }) as { failureCode: string }).failureCode, 'card_refused');
  assert.equal((authoriseResultOf({ resultCode: 'Error' }) as { failureCode: string }).failureCode, 'processing_error');
  for (const code of ['Received', 'Pending', 'PresentToShopper', 'Something new']) assert.equal(authoriseResultOf({ resultCode: code }).outcome, 'unknown', code);
});

test('Cancelled is the shopper or merchant cancelling, not a card refused; Error keeps its reason', () => {
  assert.deepEqual(authoriseResultOf({ resultCode: 'Cancelled', pspReference: 'P3' }), { outcome: 'declined', failureCode: 'cancelled', acquirerReference: 'P3' });
  assert.deepEqual(authoriseResultOf({ resultCode: 'Error', refusalReason: 'Acquirer Error' }), {
    outcome: 'declined',
    failureCode: 'processing_error',
    refusal: { reason: 'Acquirer Error', retry: 'retry later' },
  });
});

test("a refusal keeps Adyen's reason, its code and the merchant advice code, and says whether to try the card again", () => {
  const refused = authoriseResultOf({
    resultCode: 'Refused',
    refusalReason: 'Refused',
    refusalReasonCode: '2',
    pspReference: 'P4',
    additionalData: { merchantAdviceCode: '03: Do not try again' },
  });
  assert.deepEqual(refused, {
    outcome: 'declined',
    failureCode: 'card_refused',
    acquirerReference: 'P4',
    refusal: { reason: 'Refused', code: '2', merchantAdviceCode: '03: Do not try again', retry: 'do not retry' },
  });
  const cases: [string | undefined, string | undefined, string][] = [
    ['Refused', '01: New account information available', 'update card details'],
    ['Refused', '02: Cannot approve at this time, try again later', 'retry later'],
    ['Not enough balance', '03: Do not try again', 'do not retry'],
    ['Not enough balance', undefined, 'retry later'],
    ['Blocked Card', undefined, 'do not retry'],
    ['Expired Card', undefined, 'update card details'],
    ['Refused', undefined, 'no advice'],
    ['Refused', '99', 'no advice'],
    [undefined, undefined, 'no advice'],
  ];
  for (const [reason, code, advice] of cases) assert.equal(retryAdvice(reason, code), advice, `${reason} ${code}`);
});

test('a 4xx from Adyen is a request it did not take: failed with its error, not an unknown outcome', () => {
  assert.deepEqual(refusedRequestResult(422, { status: 422, errorCode: '905', message: 'Payment details are not supported', pspReference: 'P5' }), {
    outcome: 'declined',
    failureCode: 'processing_error',
    acquirerReference: 'P5',
    refusal: { reason: 'Payment details are not supported', code: '905', retry: 'do not retry' },
  });
  assert.deepEqual(refusedRequestResult(403, {}), {
    outcome: 'declined',
    failureCode: 'processing_error',
    refusal: { reason: 'Adyen answered 403', retry: 'no advice' },
  });
});

test("Kassa's minor units are Adyen's but for the currencies Adyen documents otherwise (CLP, ISK: 2; CVE: 0)", () => {
  const cases: [string, number, number | undefined][] = [
    ['eur', 1050, 1050],
    ['jpy', 500, 500],
    ['kwd', 1234, 1234],
    ['clp', 5000, 500_000],
    ['isk', 2790, 279_000],
    ['cve', 1000, 10],
    ['cve', 1050, undefined],
    ['xyz', 100, undefined],
  ];
  for (const [currency, kassa, adyen] of cases) {
    assert.equal(toAdyenMinor(kassa, currency), adyen, `${currency} ${kassa} to Adyen`);
    if (adyen !== undefined) assert.equal(fromAdyenMinor(adyen, currency), kassa, `${currency} ${adyen} from Adyen`);
  }
  assert.equal(fromAdyenMinor(500_050, 'clp'), undefined, 'CLP centavos have no ISO 4217 minor unit');
  assert.equal(fromAdyenMinor(7, 'CVE'), 700);
  assert.deepEqual([adyenExponent('CLP'), adyenExponent('isk'), adyenExponent('cve'), adyenExponent('eur')], [2, 2, 0, 2]);
  for (const code of ['eur', 'usd', 'clp', 'isk', 'cve', 'jpy']) assert.ok(adyenCurrencies.includes(code), code);
  for (const code of ['che', 'bov', 'clf', 'uyw']) assert.ok(!adyenCurrencies.includes(code), code);
});

/** A stored payment row with the given request fields, as create-payment stores them. */
const rowWith = (threeDS: Record<string, unknown>, columns: { language?: string; merchant_order_reference?: string | null; echo?: string } = {}) => ({
  request: JSON.stringify({ threeDS: { scaReady: 'no', ...threeDS } }),
  echo: columns.echo ?? '{}',
  language: columns.language ?? 'nld',
  merchant_order_reference: columns.merchant_order_reference ?? null,
});

test('the shopper: what the merchant told, each part only when whole and valid, in Adyen’s fields', () => {
  const full = rowWith(
    {
      billingAddress: 'Keizersgracht',
      billingHouseNumber: '117',
      billingHouseExtension: 'A',
      billingPostalCode: '1015 CJ',
      billingCity: 'Amsterdam',
      billingState: 'NH',
      billingCountry: 'NL',
      billingPhoneNumber: '612345678',
      billingPhoneCountry: '31',
      billingEmail: 'jo@example.com',
      billingFirstName: 'Jo',
      billingLastName: 'Tester',
      shippingAddress: 'Damrak 1',
      shippingPostalCode: '1012 LG',
      shippingCity: 'Amsterdam',
      shippingCountry: 'NL',
      browserInfo: { ipAddress: '203.0.113.7' },
    },
    { merchant_order_reference: 'order-42' },
  );
  assert.deepEqual(shopperFields(shopperOf(full)), {
    billingAddress: { street: 'Keizersgracht', houseNumberOrName: '117 A', postalCode: '1015 CJ', city: 'Amsterdam', stateOrProvince: 'NH', country: 'NL' },
    deliveryAddress: { street: 'Damrak 1', houseNumberOrName: '', postalCode: '1012 LG', city: 'Amsterdam', country: 'NL' },
    shopperEmail: 'jo@example.com',
    telephoneNumber: '+31612345678',
    shopperName: { firstName: 'Jo', lastName: 'Tester' },
    shopperIP: '203.0.113.7',
    shopperLocale: 'nl-NL',
    merchantOrderReference: 'order-42',
  });
  // Nothing told: nothing sent but the payment's language.
  assert.deepEqual(shopperFields(shopperOf(rowWith({}, { language: 'eng' }))), { shopperLocale: 'en' });
  // A part missing leaves the whole out; a value Adyen would drop or refuse is not sent.
  const partial = rowWith({
    billingAddress: 'Keizersgracht 117',
    billingCity: 'Amsterdam',
    billingCountry: 'NL',
    billingFirstName: 'Jo',
    billingPhoneNumber: '123',
    billingPhoneCountry: '31',
    shippingAddress: 'Main Street 1',
    shippingPostalCode: '12345-6789-0000',
    shippingCity: 'Springfield',
    shippingCountry: 'US',
  });
  assert.deepEqual(shopperFields(shopperOf(partial)), { shopperLocale: 'nl-NL' });
  assert.deepEqual(shopperFields({ name: { firstName: 'J', lastName: 'x'.repeat(81) } }), {}, "a name longer than Adyen's 80 characters is left out, not cut");
  // The e-mail of the customer's account when no billing e-mail was given; the legacy browser's address.
  assert.deepEqual(shopperOf(rowWith({ accountInfo: { email: 'acc@example.com' }, browser: { ipAddress: '198.51.100.1' } }, { language: 'xyz' })), {
    email: 'acc@example.com',
    ipAddress: '198.51.100.1',
  });
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
    assert.deepEqual(await wrongKey.authorise(request(1000), 'k-401'), {
      outcome: 'declined',
      failureCode: 'processing_error',
      refusal: { reason: 'HTTP Status Response - Unauthorized', code: '000', retry: 'no advice' },
    });
    assert.equal((await wrongKey.refund({ reference: 'tr_r', acquirerReference: 'P', amountMinor: 100, currency: 'eur' }, 'k-r')).outcome, 'refused');
    assert.deepEqual(adyen.violations, []);
  });

  test("the shopper, a Bancontact card and Adyen's own units go out as Adyen's contract has them", async () => {
    const connector = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: adyen.apiKey, timeoutMs: 2000 });
    const shopper = shopperOf(
      rowWith(
        {
          billingAddress: 'Rue de la Loi',
          billingHouseNumber: '16',
          billingPostalCode: '1000',
          billingCity: 'Bruxelles',
          billingCountry: 'BE',
          billingEmail: 'jo@example.com',
          billingPhoneNumber: '471234567',
          billingPhoneCountry: '32',
          billingFirstName: 'Jo',
          billingLastName: 'Tester',
          browserInfo: { ipAddress: '2001:db8::1' },
        },
        { language: 'fra', merchant_order_reference: 'order-7' },
      ),
    );
    const bcmc = request(1000);
    const bcmcCard = { pan: '6703444444444449', expiryMonth: 3, expiryYear: 2030, holderName: 'J. Smit', brand: 'bcmc' as const };
    assert.equal((await connector.authorise({ ...bcmc, reference: 'tr_bcmc', shopper, instrument: { kind: 'card', card: bcmcCard } }, 'k-bcmc')).outcome, 'authorised');
    const sent = adyen.requests.find((r) => r.idempotencyKey === 'k-bcmc')!.body;
    assert.equal(sent.selectedBrand, 'bcmc', 'processed as Bancontact, not Maestro');
    assert.deepEqual(sent.billingAddress, { street: 'Rue de la Loi', houseNumberOrName: '16', postalCode: '1000', city: 'Bruxelles', country: 'BE' });
    assert.equal(sent.shopperEmail, 'jo@example.com');
    assert.equal(sent.telephoneNumber, '+32471234567');
    assert.deepEqual(sent.shopperName, { firstName: 'Jo', lastName: 'Tester' });
    assert.equal(sent.shopperIP, '2001:db8::1');
    assert.equal(sent.shopperLocale, 'fr-BE');
    assert.equal(sent.merchantOrderReference, 'order-7');
    await connector.authorise({ ...request(1000), currency: 'clp', exponent: 0, reference: 'tr_clp' }, 'k-clp');
    assert.deepEqual(adyen.requests.find((r) => r.idempotencyKey === 'k-clp')!.body.amount, { value: 100_000, currency: 'CLP' });
    const cents = await connector.authorise({ ...request(1050), currency: 'cve', reference: 'tr_cve' }, 'k-cve');
    assert.equal(cents.outcome, 'declined', 'CVE has no cents at Adyen: refused before Adyen is asked');
    assert.equal(
      adyen.requests.find((r) => r.idempotencyKey === 'k-cve'),
      undefined,
    );
    const refund = await connector.refund({ reference: 'tr_r2', acquirerReference: 'P', amountMinor: 525, currency: 'cve' }, 'k-r2');
    assert.equal(refund.outcome, 'refused');
    assert.deepEqual(adyen.violations, []);
  });

  test('a 422 from Adyen fails the authorisation with its error; Cancelled and a refusal with advice keep their words', async () => {
    const connector = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: adyen.apiKey, timeoutMs: 2000 });
    const unsupported = await connector.authorise(request(1026), 'k-905');
    assert.equal(unsupported.outcome, 'declined');
    assert.deepEqual((unsupported as { refusal: unknown }).refusal, { reason: 'Payment details are not supported', code: '905', retry: 'do not retry' });
    assert.deepEqual(await connector.authorise(request(1026), 'k-905'), unsupported, 'asked again with its key: the same answer');
    assert.equal(((await connector.authorise(request(1027), 'k-cancel')) as { failureCode: string }).failureCode, 'cancelled');
    const advised = await connector.authorise(request(1025), 'k-mac');
    assert.deepEqual((advised as { refusal: unknown }).refusal, { reason: 'Refused', code: '2', merchantAdviceCode: '03: Do not try again', retry: 'do not retry' });
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

    /** The pspReference Adyen answered the authorisation's last `/cancel` with: the reversal's own, which its CANCELLATION names. */
    const lastCancel = (psp: string) => adyen.requests.filter((r) => r.path === '/cancel' && r.body.originalReference === psp).at(-1)!.answer!.pspReference as string;

    async function notify(items: Record<string, unknown>[], options: { key?: string } = {}) {
      const notificationItems = items.map((item) =>
        signedNotification({ merchantAccountCode: 'ShopNL', eventDate: new Date().toISOString(), success: 'true', ...item }, options.key ?? HMAC_KEY),
      );
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
        pspReference: lastCancel(pspReference),
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
      assert.equal((await live.post('/reversal', { reference })).json().details.captureStatus, 'reversed');
      const refusal = {
        eventCode: 'CANCELLATION',
        pspReference: lastCancel(psp),
        originalReference: psp,
        merchantReference: reference,
        amount: { value: 2600, currency: 'EUR' },
        success: 'false',
      };
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
        pspReference: lastCancel(other.psp),
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
          [twice.pspReference, 'CANCELLATION', other.psp, 0],
          [refusal.pspReference, 'CANCELLATION', psp, 0],
        ].sort(),
      );
    });

    test('a refused CANCELLATION re-opens the authorisation only when it names the reversal Adyen took last: another is kept on the timeline and changes nothing', async () => {
      const { reference, psp } = await liveAuthorisation(2800);
      assert.equal((await live.post('/reversal', { reference })).json().details.captureStatus, 'reversed');
      const refusal = (pspReference: string) => ({
        eventCode: 'CANCELLATION',
        pspReference,
        originalReference: psp,
        merchantReference: reference,
        amount: { value: 2800, currency: 'EUR' },
        success: 'false',
        reason: 'Transaction not found',
      });
      // The refusal of another reversal of it (an earlier one's, come late): the amount was released by the one Adyen took.
      assert.equal((await notify([refusal('CANEARLIER000001')])).body, '[accepted]');
      assert.equal((await live.get(`/transaction?reference=${reference}`)).json().details.captureStatus, 'reversed');
      const kept = (await eventsOf(t.store.read, reference)).at(-1)!;
      assert.deepEqual([kept.cause, kept.detail], ['acquirer_notice', 'CANCELLATION (not done), 28 EUR: Transaction not found']);
      assert.equal((await deliveriesFor(t.store, reference)).length, 0, 'nothing to tell the merchant');
      // The refusal of the reversal Adyen took: the amount is still held.
      assert.equal((await notify([refusal(lastCancel(psp))])).body, '[accepted]');
      assert.equal((await live.get(`/transaction?reference=${reference}`)).json().details.captureStatus, 'authorised');
      assert.equal((await eventsOf(t.store.read, reference)).at(-1)!.cause, 'reversal_refused_by_acquirer');
      assert.equal((await deliveriesFor(t.store, reference)).length, 1);
      assert.deepEqual(adyen.violations, []);
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

    /** A live card payment paid on Kassa's page as a browser without scripts: its page's last answer. */
    async function payOnPage(body: Record<string, unknown>) {
      const created = await live.post('/payment', cardPayment(body));
      assert.equal(created.statusCode, 200, created.body);
      const payment = created.json();
      const { path: page, csrf } = await openPage(t.app, payment.payUrl);
      await postForm(t.app, `${page}/card`, { csrf, ...card() });
      return payment as { reference: string };
    }
    const authorisationOf = (reference: string) => adyen.requests.find((r) => r.path === '/authorise' && r.body.reference === reference)!.body;

    test("what the merchant told of the shopper goes on the authorisation, within Adyen's contract", async () => {
      const payment = await payOnPage({
        amount: '20.00',
        merchantOrderReference: 'order-2026-001',
        language: 'deu',
        billingAddress: 'Unter den Linden',
        billingHouseNumber: '77',
        billingPostalCode: '10117',
        billingCity: 'Berlin',
        billingState: 'BE',
        billingCountry: 'DEU',
        billingEmail: 'kunde@example.com',
        billingPhoneNumber: '+49 30 1234567',
        billingFirstName: 'Erika',
        billingLastName: 'Mustermann',
        shippingAddress: 'Friedrichstraße 43',
        shippingPostalCode: '10117',
        shippingCity: 'Berlin',
        shippingCountry: 'DE',
      });
      assert.equal((await live.get(`/transaction?reference=${payment.reference}`)).json().status, 'success');
      const sent = authorisationOf(payment.reference);
      assert.deepEqual(sent.billingAddress, {
        street: 'Unter den Linden',
        houseNumberOrName: '77',
        postalCode: '10117',
        city: 'Berlin',
        stateOrProvince: 'BE',
        country: 'DE',
      });
      assert.deepEqual(sent.deliveryAddress, { street: 'Friedrichstraße 43', houseNumberOrName: '', postalCode: '10117', city: 'Berlin', country: 'DE' });
      assert.equal(sent.shopperEmail, 'kunde@example.com');
      assert.equal(sent.telephoneNumber, '+49301234567');
      assert.deepEqual(sent.shopperName, { firstName: 'Erika', lastName: 'Mustermann' });
      assert.equal(sent.shopperLocale, 'de-DE');
      assert.equal(sent.merchantOrderReference, 'order-2026-001');
      assert.equal(typeof sent.shopperIP, 'string', "the customer's address as the page saw it (Adyen authenticates)");
      assert.deepEqual(adyen.violations, []);
    });

    test('a refusal is failed with its reason and advice on the payment; a 422 from Adyen too; Cancelled is cancelled', async () => {
      const advised = await payOnPage({ amount: '20.25' });
      const refused = (await live.get(`/transaction?reference=${advised.reference}`)).json();
      assert.equal(refused.status, 'failed');
      assert.equal(refused.failureCode, 'card_refused');
      assert.deepEqual(refused.details.acquirerRefusal, { reason: 'Refused', code: '2', merchantAdviceCode: '03: Do not try again', retry: 'do not retry' });
      // The console's transaction view says it in the operator's language.
      await makeAccount(t.store, `ops-${backend}@kassa.test`);
      const operator = new ConsoleClient(t.app);
      await operator.signIn(`ops-${backend}@kassa.test`);
      const view = await operator.get(`/dashboard/payments/${advised.reference}`, { 'accept-language': 'nl' });
      assert.equal(view.statusCode, 200);
      assert.match(view.body, /Waarom de acquirer het weigerde/);
      assert.match(view.body, /03: Do not try again/);
      assert.match(view.body, /class="retry-do-not-retry">Nee: de uitgever keurt deze kaart niet goed; stuur haar niet opnieuw</);
      const unsupported = (await live.get(`/transaction?reference=${(await payOnPage({ amount: '20.26' })).reference}`)).json();
      assert.deepEqual([unsupported.status, unsupported.failureCode], ['failed', 'processing_error'], 'a 4xx is no unknown outcome');
      assert.deepEqual(unsupported.details.acquirerRefusal, { reason: 'Payment details are not supported', code: '905', retry: 'do not retry' });
      const cancelled = (await live.get(`/transaction?reference=${(await payOnPage({ amount: '20.27' })).reference}`)).json();
      assert.deepEqual([cancelled.status, cancelled.failureCode], ['failed', 'cancelled']);
      assert.equal(cancelled.details.acquirerRefusal, undefined, 'Adyen gave no reason');
      assert.deepEqual(adyen.violations, []);
    });

    test("a currency Adyen does not take, or an amount its units cannot carry, is refused at creation; CLP goes out in Adyen's units", async () => {
      const che = await live.post('/payment', cardPayment({ currency: 'CHE', amount: '10.00' }));
      assert.equal(che.statusCode, 422, che.body);
      assert.deepEqual(che.json().errors, [{ field: '/currency', code: 'not_served', message: "is not taken by this merchant's live acquirer (adyen)" }]);
      const cve = await live.post('/payment', cardPayment({ currency: 'CVE', amount: '10.50' }));
      assert.equal(cve.statusCode, 422, cve.body);
      assert.deepEqual(cve.json().errors, [
        { field: '/amount', code: 'not_served', message: "has more decimals than this merchant's live acquirer (adyen) takes in CVE" },
      ]);
      assert.equal((await live.post('/payment', cardPayment({ currency: 'CVE', amount: '10.00' }))).statusCode, 200);
      assert.equal((await t.client.post('/payment', cardPayment({ currency: 'CVE', amount: '10.50' }))).statusCode, 200, 'the test-mode simulator takes every amount');
      const clp = await payOnPage({ currency: 'CLP', amount: '5000' });
      assert.deepEqual(authorisationOf(clp.reference).amount, { value: 500_000, currency: 'CLP' });
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
      endpoints: {},
      account: 'ShopNL',
      updated: JSON.parse(set).updated,
    });
    const withCheckout = JSON.parse(cli([...setArgs, '--checkout-endpoint', 'https://checkout-live.example/checkout/v71/', '--json'], secrets));
    assert.deepEqual(withCheckout.endpoints, { checkout: 'https://checkout-live.example/checkout/v71' });
    const shown = cli(['acquirer', 'show', '--merchant', merchantId]);
    assert.match(shown, /live: adyen at https:\/\/pal-live\.example\S+, checkout at https:\/\/checkout-live\.example\/checkout\/v71, account ShopNL/);
    assert.throws(() => cli([...setArgs, '--checkout-endpoint', 'http://checkout.example'], secrets), /--checkout-endpoint must be an https URL/);
    for (const output of [set, shown, cli(['acquirer', 'show', '--merchant', merchantId, '--json'])]) {
      assert.ok(!output.includes('AQEsecret') && !output.includes(HMAC_KEY), 'no credential is printed');
    }
    assert.throws(() => cli(setArgs, JSON.stringify({ apiKey: 'k', hmacKey: 'not hex' })), /hmacKey/);
    assert.throws(() => cli([...setArgs.slice(0, -4), '--endpoint', 'http://pal.example', '--merchant-account', 'ShopNL'], secrets), /https/);
  } finally {
    await database.drop();
  }
});
