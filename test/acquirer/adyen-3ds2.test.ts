/**
 * Adyen's native 3-D Secure 2 as data (src/acquirer/adyen-3ds2.ts): what an answer means — the
 * customer's next step or the outcome of the one table — and the browser and continuation fields
 * Kassa sends; then the connector against the stand-in that validates every request against
 * Adyen's OpenAPI document: an issuer without a 3DS method, and no answer in time; and on SQLite
 * and PostgreSQL the card page's steps over HTTP as a browser without scripts: a forged CRes,
 * a completion before the CRes, two completions at once, the 3DS method not run.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adyenBrowserInfo, authenticationStepOf, continuationFields, type AdyenAuthenticationResult } from '../../src/acquirer/adyen-3ds2.ts';
import { AdyenConnector } from '../../src/acquirer/adyen.ts';
import { adyenIdempotencyKey } from '../../src/acquirer/adyen-http.ts';
import { observed } from '../../src/acquirer/observed.ts';
import { SimulatedAcquirer } from '../../src/acquirer/simulator.ts';
import type { AuthenticatingRequest } from '../../src/acquirer/connector.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { api, backends, cardPayment, suiteApp, type MerchantApi } from '../support/app.ts';
import { card, csrfOf, FORM, hiddenValue, openPage, postForm } from '../pages/flow.ts';
import { findPaymentPage } from '../../src/store/payment-pages.ts';

const method = {
  'threeds2.threeDS2Token': 'T1',
  'threeds2.threeDSServerTransID': 'b7c4c2a6-1d5e-4a0f-9a59-0a3c7f1f2e11',
  'threeds2.threeDSMethodURL': 'https://acs.example/method',
};
const challenge = {
  'threeds2.threeDS2Token': 'T2',
  'threeds2.threeDS2ResponseData.threeDSServerTransID': 'c9200190-5ffe-11e8-954f-26e6f38ae710',
  'threeds2.threeDS2ResponseData.acsTransID': 'eb9c6eb3-57b3-400d-bf2f-4e72bd69dcec',
  'threeds2.threeDS2ResponseData.acsURL': 'https://acs.example/challenge',
  'threeds2.threeDS2ResponseData.messageVersion': '2.1.0',
};
const without = (data: Record<string, string>, key: string) => Object.fromEntries(Object.entries(data).filter(([name]) => name !== key));

const steps: [string, AdyenAuthenticationResult, unknown][] = [
  [
    'IdentifyShopper → the 3DS method',
    { resultCode: 'IdentifyShopper', pspReference: 'P', additionalData: method },
    { step: 'method', token: 'T1', threeDSServerTransID: method['threeds2.threeDSServerTransID'], methodUrl: 'https://acs.example/method' },
  ],
  [
    'IdentifyShopper without a method URL → a method step with none (the connector says U at once)',
    { resultCode: 'IdentifyShopper', additionalData: without(method, 'threeds2.threeDSMethodURL') },
    { step: 'method', token: 'T1', threeDSServerTransID: method['threeds2.threeDSServerTransID'], methodUrl: undefined },
  ],
  [
    'IdentifyShopper without a token → refused as the table says (rejected)',
    { resultCode: 'IdentifyShopper', pspReference: 'P', additionalData: without(method, 'threeds2.threeDS2Token') },
    { step: 'done', result: { outcome: 'declined', failureCode: 'rejected', acquirerReference: 'P' } },
  ],
  [
    'ChallengeShopper → the challenge, with the ACS’s protocol version',
    { resultCode: 'ChallengeShopper', additionalData: challenge },
    {
      step: 'challenge',
      token: 'T2',
      threeDSServerTransID: challenge['threeds2.threeDS2ResponseData.threeDSServerTransID'],
      acsTransID: challenge['threeds2.threeDS2ResponseData.acsTransID'],
      acsUrl: 'https://acs.example/challenge',
      messageVersion: '2.1.0',
    },
  ],
  [
    'ChallengeShopper without an ACS URL → rejected',
    { resultCode: 'ChallengeShopper', additionalData: without(challenge, 'threeds2.threeDS2ResponseData.acsURL') },
    { step: 'done', result: { outcome: 'declined', failureCode: 'rejected' } },
  ],
  [
    'Authorised → the authorisation',
    { resultCode: 'Authorised', pspReference: 'P', authCode: 'A1' },
    { step: 'done', result: { outcome: 'authorised', acquirerReference: 'P', authorisationCode: 'A1' } },
  ],
  [
    'Refused: 3D Not Authenticated → rejected, with its reason kept',
    { resultCode: 'Refused', refusalReason: '3D Not Authenticated', pspReference: 'P' },
    {
      step: 'done',
      result: { outcome: 'declined', failureCode: 'rejected', acquirerReference: 'P', refusal: { reason: '3D Not Authenticated', retry: 'no advice' } },
    },
  ],
  ['Received → unknown', { resultCode: 'Received' }, { step: 'done', result: { outcome: 'unknown', reason: 'Adyen resultCode Received' } }],
];
for (const [name, answer, expected] of steps) test(`Adyen's 3DS2 answer: ${name}`, () => assert.deepEqual(authenticationStepOf(answer), expected));

test("the browser as Adyen's BrowserInfo: what the page measured, and without scripts what EMVCo leaves out sent as not measured", () => {
  const measured = {
    acceptHeaders: 'text/html',
    userAgent: 'Mozilla/5.0',
    javaEnabled: false,
    language: 'nl-NL',
    screenColorDepth: '64',
    screenHeight: '800',
    screenWidth: '1280',
    timeZone: '-60',
  } as const;
  assert.deepEqual(adyenBrowserInfo(measured, true), {
    userAgent: 'Mozilla/5.0',
    acceptHeader: 'text/html',
    javaEnabled: false,
    javaScriptEnabled: true,
    colorDepth: 48,
    screenHeight: 800,
    screenWidth: 1280,
    timeZoneOffset: -60,
    language: 'nl-NL',
  });
  assert.deepEqual(adyenBrowserInfo({ acceptHeaders: 'text/html', userAgent: 'curl', javaEnabled: false }, false), {
    userAgent: 'curl',
    acceptHeader: 'text/html',
    javaEnabled: false,
    javaScriptEnabled: false,
    colorDepth: 24,
    screenHeight: 0,
    screenWidth: 0,
    timeZoneOffset: 0,
    language: 'en',
  });
});

test('/authorise3ds2 says whether the 3DS method ran, or what the CRes said', () => {
  const payment = { reference: 'tr_1', mode: 'live' as const, amountMinor: 100, currency: 'eur', exponent: 2, token: 'T', captureNow: true };
  assert.deepEqual(continuationFields({ ...payment, after: { step: 'method', completed: 'N' } }), {
    threeDS2Token: 'T',
    threeDS2RequestData: { deviceChannel: 'browser', threeDSCompInd: 'N' },
  });
  assert.deepEqual(continuationFields({ ...payment, after: { step: 'challenge', transStatus: 'Y' } }), { threeDS2Token: 'T', threeDS2Result: { transStatus: 'Y' } });
});

test('only a connector whose acquirer authenticates has the capability, through the metrics wrapper too', () => {
  const adyen = new AdyenConnector({ endpoint: 'http://127.0.0.1:1', merchantAccount: 'M', apiKey: 'k', timeoutMs: 10 });
  assert.ok(observed(adyen).authentication);
  assert.equal(observed(new SimulatedAcquirer()).authentication, undefined);
});

/** The suites that start the stand-in; the tests above need no Adyen material. */
const skip = needs(adyenContractMissing);

describe("the Adyen connector's native 3DS2 against the contract", { skip }, () => {
  let adyen: FakeAdyen;
  before(async () => (adyen = await startFakeAdyen()));
  after(() => adyen.close());

  const request = (amountMinor: number): AuthenticatingRequest => ({
    reference: `tr_3ds_${amountMinor}`,
    mode: 'live',
    amountMinor,
    currency: 'eur',
    exponent: 2,
    card: { pan: '5555555555554444', expiryMonth: 12, expiryYear: 2034, cvc: '123', holderName: 'J. Smit', brand: 'mastercard' },
    captureNow: false,
    merchantName: 'Shop',
    browser: { acceptHeaders: 'text/html', userAgent: 'Mozilla/5.0', javaEnabled: false, language: 'en-GB', ipAddress: '192.0.2.1' },
    javascriptEnabled: false,
    challengeIndicator: '01',
    notificationUrl: 'https://kassa.example/pay/x/3ds/notify',
  });

  test('an issuer without a 3DS method: Adyen is told at once (threeDSCompInd U) and its answer is the authorisation', async () => {
    const connector = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: adyen.apiKey, timeoutMs: 2000 });
    const step = await connector.authentication.authorise(request(1017), 'tr_3ds_1017:attempt-1');
    assert.equal(step.step === 'done' && step.result.outcome, 'authorised');
    const sent = adyen.requests.filter((r) => r.body.reference === 'tr_3ds_1017');
    assert.deepEqual(
      sent.map((r) => [r.path, r.idempotencyKey]),
      [
        ['/authorise', 'tr_3ds_1017:attempt-1'],
        ['/authorise3ds2', 'tr_3ds_1017:attempt-1:method'],
      ],
    );
    assert.equal(sent[0]!.body.shopperIP, '192.0.2.1');
    assert.deepEqual(sent[0]!.body.additionalData, { allow3DS2: 'true', manualCapture: 'true' });
    assert.deepEqual(sent[1]!.body.additionalData, { manualCapture: 'true' }, 'the hold is asked for again with the authorisation');
    assert.deepEqual(adyen.violations, []);
  });

  test('no answer in time is an unknown outcome (→ manualintervention)', async () => {
    adyen.slowMs = 500;
    const connector = new AdyenConnector({ endpoint: adyen.url, merchantAccount: 'ShopNL', apiKey: adyen.apiKey, timeoutMs: 100 });
    const step = await connector.authentication.authorise(request(1031), 'tr_3ds_1031:attempt-1');
    assert.deepEqual(step, { step: 'done', result: { outcome: 'unknown', reason: 'TimeoutError' } });
    assert.deepEqual(adyen.violations, []);
  });
});

/** Posts a form to the stand-in's issuer pages (a real HTTP server on 127.0.0.1), as the browser's frame would. */
async function postToIssuer(url: string, fields: Record<string, string>): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: FORM, body: new URLSearchParams(fields).toString() });
  assert.equal(response.status, 200);
  return response.text();
}

for (const backend of backends) {
  describe(`the card page's steps with Adyen authenticating, over HTTP without scripts (${backend})`, { skip }, () => {
    const t = suiteApp(backend);
    let adyen: FakeAdyen;
    let live: MerchantApi;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'live', hmacKey: 'ab'.repeat(32) });
      live = api(t.app, t.merchant.liveApiKey);
    });
    after(() => adyen.close());

    async function submitCard(amount: string) {
      const payment = (await live.post('/payment', cardPayment({ amount }))).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const step = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      return { payment, path, csrf, step };
    }
    const callsFor = (reference: string) => adyen.requests.filter((r) => r.body.reference === reference);

    for (const [answer, status] of [
      ['Approve', 'success'],
      ['Reject', 'failed'],
    ] as const) {
      test(`an issuer with 3-D Secure 1 only (RedirectShopper): the PaReq and Adyen's MD posted to it, its PaRes to /authorise3d; ${answer} → ${status}`, async () => {
        const { payment, path, step } = await submitCard('50.18');
        assert.equal(step.statusCode, 200, step.body);
        const acsUrl = /<form method="post" action="([^"]+)"/.exec(step.body)![1]!;
        assert.equal(new URL(acsUrl).pathname, '/acs/3ds1');
        const md = hiddenValue(step.body, 'MD');
        assert.match(md, /^MD[0-9a-f]+$/, "Adyen's MD, as the issuer must echo it");
        const termUrl = hiddenValue(step.body, 'TermUrl').replaceAll('&amp;', '&');
        assert.match(termUrl, new RegExp(`${path}/3ds1\\?md=`), "Kassa's own session and card in the TermUrl");
        const issuerPage = await postToIssuer(acsUrl, { PaReq: hiddenValue(step.body, 'PaReq'), MD: md, TermUrl: termUrl });
        const back = await postToIssuer(`${new URL(acsUrl).origin}/acs/3ds1/answer`, { MD: hiddenValue(issuerPage, 'MD'), TermUrl: termUrl, answer });
        const term = new URL(/<form method="post" action="([^"]+)"/.exec(back)![1]!.replaceAll('&amp;', '&'));
        const done = await postForm(t.app, `${term.pathname}${term.search}`, { PaRes: hiddenValue(back, 'PaRes'), MD: hiddenValue(back, 'MD') });
        assert.ok([200, 303].includes(done.statusCode), done.body);
        const read = (await live.get(`/transaction?reference=${payment.reference}`)).json();
        assert.equal(read.status, status);
        const calls = callsFor(payment.reference);
        assert.deepEqual(
          calls.map((r) => r.path),
          ['/authorise'],
          'the continuation names no reference of its own: /authorise3d carries Adyen md only',
        );
        const continued = adyen.requests.filter((r) => r.path === '/authorise3d' && r.body.md === md);
        assert.equal(continued.length, 1);
        const session = (
          await t.store.read
            .selectFrom('threeds_sessions')
            .select('id')
            .where('reference', '=', payment.reference)
            .where('protocol', '=', '1.0.2')
            .executeTakeFirstOrThrow()
        ).id;
        assert.equal(
          continued[0]!.idempotencyKey,
          adyenIdempotencyKey(`${payment.reference}:${session}:redirect`),
          "the session's own key, within Adyen's 64 characters",
        );
        // The same PaRes posted again: the payment is final, Adyen is not asked again.
        const again = await postForm(t.app, `${term.pathname}${term.search}`, { PaRes: hiddenValue(back, 'PaRes'), MD: hiddenValue(back, 'MD') });
        assert.ok([200, 303].includes(again.statusCode));
        assert.equal(adyen.requests.filter((r) => r.path === '/authorise3d' && r.body.md === md).length, 1);
        assert.deepEqual(adyen.violations, []);
      });
    }

    test('a forged CRes changes nothing; a completion before the CRes shows the challenge again; two completions at once authorise once', async () => {
      const { payment, path, step } = await submitCard('50.11');
      assert.equal(step.statusCode, 200, step.body);
      const framePath = /<iframe[^>]+src="([^"]+)"/.exec(step.body)![1]!;
      const frame = await t.app.inject({ method: 'GET', url: framePath });
      const acsUrl = /<form method="post" action="([^"]+)"/.exec(frame.body)![1]!;
      const fields = { creq: hiddenValue(frame.body, 'creq'), threeDSSessionData: hiddenValue(frame.body, 'threeDSSessionData') };
      assert.equal(JSON.parse(Buffer.from(fields.creq, 'base64url').toString()).messageVersion, '2.2.0');
      const completion = { csrf: csrfOf(step.body), session: hiddenValue(step.body, 'session'), sealedCard: hiddenValue(step.body, 'sealedCard') };

      // Nothing is in flight while the customer takes the challenge (docs/acquirers.md "Unknown outcomes").
      assert.equal((await findPaymentPage(t.store.read, payment.reference))!.authorisation_in_flight, null);

      const early = await postForm(t.app, `${path}/3ds/complete`, completion);
      assert.equal(early.statusCode, 409, 'the issuer has not answered yet: the pop-up again');
      const issuerPage = await postToIssuer(acsUrl, fields);
      const answered = await postToIssuer(`${new URL(acsUrl).origin}/acs/challenge/answer`, { ...fields, answer: 'Approve' });
      const cres = hiddenValue(answered, 'cres');
      assert.match(issuerPage, /Approve/);
      const forged = await postForm(t.app, `${path}/3ds/notify`, { cres, threeDSSessionData: 'x'.repeat(32) });
      assert.equal(forged.statusCode, 403);
      assert.equal((await postForm(t.app, `${path}/3ds/complete`, completion)).statusCode, 409, 'a forged CRes is not recorded');
      assert.equal((await postForm(t.app, `${path}/3ds/notify`, { cres, threeDSSessionData: fields.threeDSSessionData })).statusCode, 200);

      const [first, second] = await Promise.all([postForm(t.app, `${path}/3ds/complete`, completion), postForm(t.app, `${path}/3ds/complete`, completion)]);
      assert.ok([first.statusCode, second.statusCode].includes(303), `${first.statusCode} ${second.statusCode}`);
      assert.equal((await live.get(`/transaction?reference=${payment.reference}`)).json().status, 'success');
      assert.deepEqual(
        callsFor(payment.reference).map((r) => r.path),
        ['/authorise', '/authorise3ds2'],
        'one authorisation',
      );
      assert.equal((await findPaymentPage(t.store.read, payment.reference))!.authorisation_in_flight, null, 'the outcome committed clears the record');
      assert.deepEqual(adyen.violations, []);
    });

    test("without scripts the issuer's 3DS method cannot run: Continue says so (N), and the browser is sent as not measured", async () => {
      const { payment, path, step } = await submitCard('50.15');
      assert.equal(step.statusCode, 200, step.body);
      assert.match(step.body, /<iframe name="method-window"/);
      const [authorise] = callsFor(payment.reference);
      assert.equal((authorise!.body.browserInfo as Record<string, unknown>).javaScriptEnabled, false);
      const completion = {
        csrf: csrfOf(step.body),
        session: hiddenValue(step.body, 'session'),
        sealedCard: hiddenValue(step.body, 'sealedCard'),
        completed: hiddenValue(step.body, 'completed'),
      };
      assert.equal(completion.completed, 'N');
      const done = await postForm(t.app, `${path}/3ds/method-complete`, completion);
      assert.equal(done.statusCode, 303, done.body);
      assert.equal((await live.get(`/transaction?reference=${payment.reference}`)).json().status, 'success');
      const again = await postForm(t.app, `${path}/3ds/method-complete`, completion);
      assert.equal(again.statusCode, 303, 'a replayed completion shows the outcome');
      const calls = callsFor(payment.reference);
      assert.deepEqual(
        calls.map((r) => r.path),
        ['/authorise', '/authorise3ds2'],
      );
      assert.deepEqual(calls[1]!.body.threeDS2RequestData, { deviceChannel: 'browser', threeDSCompInd: 'N' });
      assert.deepEqual(adyen.violations, []);
    });
  });
}
