/**
 * Live card pages through Adyen's native 3-D Secure 2 in a real browser (headless Chromium), on
 * SQLite and PostgreSQL: a merchant connected to a stand-in for Adyen that validates every request
 * against Adyen's own OpenAPI document and serves an issuer's ACS (test/acquirer/adyen-fake.ts).
 * The customer types the card on Kassa's page; Adyen answers frictionless, with the issuer's 3DS
 * method in the page's hidden frame, or with a challenge in the page's pop-up, and its last
 * answer is the authorisation: sale, challenge approved and rejected, refused, an authorise
 * payment captured through the API, a stored card paid again, and test mode pointed at Adyen.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, backends, type MerchantApi } from '../support/app.ts';
import { assertAccessible, chromiumMissing, payWithCard, screenshot, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from '../acquirer/adyen-fake.ts';
import { adyenContractMissing } from '../acquirer/adyen-contract.ts';
import { adyenIdempotencyKey } from '../../src/acquirer/adyen-http.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import type { Mode } from '../../src/store/schema.ts';

const skip = needs(chromiumMissing ?? adyenContractMissing);

for (const backend of backends) {
  describe(`live card pages through Adyen's native 3-D Secure 2 in Chromium (${backend})`, { skip }, () => {
    const h = suiteHarness(backend);
    let adyen: FakeAdyen;
    let live: MerchantApi;

    const connect = (merchantId: string, mode: Mode) => connectToFake(h.kassa.store, adyen, { merchantId, mode, hmacKey: 'ab'.repeat(32) });

    before(async () => {
      adyen = await startFakeAdyen();
      await connect(h.kassa.merchant.merchantId, 'live');
      live = api(h.kassa.app, h.kassa.merchant.liveApiKey);
    });
    after(() => adyen.close());

    async function open(amount: string, overrides: Record<string, unknown> = {}, merchantApi = live) {
      const created = await merchantApi.post('/payment', { amount, currency: 'EUR', method: 'card', returnUrl: h.returnUrl, ...overrides });
      assert.equal(created.statusCode, 200, created.body);
      const payment = created.json();
      const session = await h.context({ reach: [adyen.url] });
      await session.page.goto(payment.payUrl);
      return { ...session, payment };
    }

    const sentFor = (reference: string) => adyen.requests.filter((r) => r.body.reference === reference);
    const authentication = async (reference: string) => JSON.parse((await h.row(reference)).authentication ?? 'null');
    const read = async (reference: string, merchantApi = live) => (await merchantApi.get(`/transaction?reference=${reference}`)).json();

    async function answerChallenge(page: Page, answer: 'Approve' | 'Reject') {
      await page.frameLocator('iframe[name=challenge-window]').getByRole('button', { name: answer }).click();
    }

    test('frictionless: one /authorise carrying the browser and threeDS2RequestData is the authorisation', async () => {
      const { page, payment, context, cspViolations } = await open('25.00');
      await page.getByRole('heading', { name: 'Card details' }).waitFor();
      assert.equal(await page.locator('.test-banner').count(), 0, 'a live page has no test banner');
      await payWithCard(page);
      await page.waitForURL(h.returnUrl);
      const paid = await read(payment.reference);
      assert.deepEqual([paid.status, paid.brand], ['success', 'visa']);
      const sent = sentFor(payment.reference);
      assert.deepEqual(
        sent.map((r) => r.path),
        ['/authorise'],
      );
      const { body, idempotencyKey } = sent[0]!;
      assert.equal(idempotencyKey, `${payment.reference}:attempt-1`);
      assert.deepEqual(body.threeDS2RequestData, { deviceChannel: 'browser', notificationURL: `${payment.payUrl}/3ds/notify`, threeDSRequestorChallengeInd: '01' });
      const browser = body.browserInfo as Record<string, unknown>;
      assert.equal(browser.javaScriptEnabled, true);
      assert.ok((browser.screenWidth as number) > 0 && (browser.colorDepth as number) > 0);
      assert.match(String(browser.userAgent), /Chrome/);
      assert.equal((body.additionalData as Record<string, string>).allow3DS2, 'true');
      assert.equal(body.mpiData, undefined, 'Adyen authenticates: Kassa sends no authentication of its own');
      assert.equal(body.captureDelayHours, 0);
      assert.deepEqual(adyen.violations, []);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test("an issuer with 3-D Secure 1 only (RedirectShopper): the browser goes to the issuer's page and back, then /authorise3d", async () => {
      const { page, payment, context, cspViolations } = await open('25.18');
      await payWithCard(page);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(h.returnUrl);
      assert.equal((await read(payment.reference)).status, 'success');
      assert.deepEqual(
        adyen.requests
          .filter((r) => r.body.reference === payment.reference || (r.path === '/authorise3d' && String(r.idempotencyKey).startsWith(payment.reference)))
          .map((r) => r.path),
        ['/authorise', '/authorise3d'],
      );
      assert.deepEqual(adyen.violations, []);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test("challenge approved: the issuer's page in Kassa's pop-up, then /authorise3ds2 with the CRes's transStatus", async () => {
      const { page, payment, context, cspViolations } = await open('25.11');
      await payWithCard(page);
      await page.locator('iframe[name=challenge-window]').waitFor();
      await page.frameLocator('iframe[name=challenge-window]').getByRole('button', { name: 'Approve' }).waitFor();
      await screenshot(page, 'adyen-challenge-eng');
      await assertAccessible(page, 'challenge pop-up (Adyen)');
      await answerChallenge(page, 'Approve');
      await page.waitForURL(h.returnUrl);
      assert.equal((await read(payment.reference)).status, 'success');
      const [first, second] = sentFor(payment.reference);
      assert.equal(second!.path, '/authorise3ds2');
      const transaction = [...adyen.authentications.values()].find((a) => a.reference === payment.reference)!;
      assert.equal(second!.idempotencyKey, adyenIdempotencyKey(`${payment.reference}:${transaction.threeDSServerTransID}:challenge`));
      assert.notEqual(first!.idempotencyKey, second!.idempotencyKey);
      assert.deepEqual(second!.body.threeDS2Result, { transStatus: 'Y' });
      assert.match(String(second!.body.threeDS2Token), /^TOKEN/);
      assert.equal(second!.body.card, undefined, 'the card went to Adyen once');
      const kept = await authentication(payment.reference);
      assert.deepEqual([kept.transStatus, kept.challenged, kept.threeDSServerTransID], ['Y', true, transaction.threeDSServerTransID]);
      assert.deepEqual(adyen.violations, []);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test('challenge rejected: Adyen refuses (3D Not Authenticated) → failed/rejected', async () => {
      const { page, payment, context } = await open('25.11');
      await payWithCard(page);
      await answerChallenge(page, 'Reject');
      await page.waitForURL(h.returnUrl);
      const failed = await read(payment.reference);
      assert.deepEqual([failed.status, failed.failureCode], ['failed', 'rejected']);
      assert.deepEqual(sentFor(payment.reference).at(-1)!.body.threeDS2Result, { transStatus: 'N' });
      assert.deepEqual(adyen.violations, []);
      await context.close();
    });

    test("IdentifyShopper: the issuer's 3DS method runs in the page's hidden frame, then /authorise3ds2 says it did (Y)", async () => {
      const { page, payment, context, cspViolations } = await open('25.15');
      await payWithCard(page);
      await page.waitForURL(h.returnUrl);
      assert.equal((await read(payment.reference)).status, 'success');
      const sent = sentFor(payment.reference);
      assert.deepEqual(
        sent.map((r) => r.path),
        ['/authorise', '/authorise3ds2'],
      );
      const transaction = [...adyen.authentications.values()].find((a) => a.reference === payment.reference)!;
      assert.ok(transaction.methodRan, "the issuer's 3DS method ran");
      assert.deepEqual(sent[1]!.body.threeDS2RequestData, { deviceChannel: 'browser', threeDSCompInd: 'Y' });
      assert.equal(sent[1]!.idempotencyKey, adyenIdempotencyKey(`${payment.reference}:${transaction.threeDSServerTransID}:method`));
      assert.deepEqual(adyen.violations, []);
      assert.deepEqual(cspViolations, []);
      await context.close();
    });

    test('IdentifyShopper then ChallengeShopper: method, challenge, authorisation — three calls, one payment', async () => {
      const { page, payment, context } = await open('25.16');
      await payWithCard(page);
      await page.getByRole('heading', { name: 'Confirm the payment with your bank', level: 1 }).waitFor();
      await answerChallenge(page, 'Approve');
      await page.waitForURL(h.returnUrl);
      assert.equal((await read(payment.reference)).status, 'success');
      assert.deepEqual(
        sentFor(payment.reference).map((r) => `${r.path} ${r.idempotencyKey?.split(':').at(-1)}`),
        ['/authorise attempt-1', '/authorise3ds2 method', '/authorise3ds2 challenge'],
      );
      assert.deepEqual(adyen.violations, []);
      await context.close();
    });

    test('refused by the issuer: failed with the mapped failureCode', async () => {
      const { page, payment, context } = await open('25.22');
      await payWithCard(page);
      await page.waitForURL(h.returnUrl);
      const failed = await read(payment.reference);
      assert.deepEqual([failed.status, failed.failureCode], ['failed', 'insufficient_funds']);
      await context.close();
    });

    test('an authorise payment is held at Adyen through the page, then captured through the API', async () => {
      const { page, payment, context } = await open('40.11', { transactionType: 'authorise' });
      await payWithCard(page);
      await answerChallenge(page, 'Approve');
      await page.waitForURL(h.returnUrl);
      const held = await read(payment.reference);
      assert.deepEqual([held.status, held.details.captureStatus], ['success', 'authorised']);
      const sent = sentFor(payment.reference);
      for (const request of sent)
        assert.deepEqual(request.body.additionalData && { manualCapture: (request.body.additionalData as Record<string, string>).manualCapture }, {
          manualCapture: 'true',
        });
      const captured = await live.post('/capture', { reference: payment.reference });
      assert.equal(captured.statusCode, 200, captured.body);
      assert.equal(captured.json().status, 'pending', 'Adyen takes the capture; its notification finishes it');
      const pspReference = (await h.kassa.store.read
        .selectFrom('payment_pages')
        .select('acquirer_reference')
        .where('reference', '=', payment.reference)
        .executeTakeFirst())!.acquirer_reference;
      const capture = adyen.requests.find((r) => r.path === '/capture' && r.body.originalReference === pspReference);
      assert.ok(capture, "the capture names Adyen's pspReference of the authorisation");
      assert.deepEqual(adyen.violations, []);
      await context.close();
    });

    test('a card stored by a live payment pays again from the vault through Adyen (confirm path: CVC typed)', async () => {
      const first = await open('30.00', { storeInVault: 'yes' });
      await payWithCard(first.page);
      await first.page.waitForURL(h.returnUrl);
      const stored = await read(first.payment.reference);
      assert.equal(stored.status, 'success');
      assert.ok(stored.details.vaultAccessToken, 'the card is in the vault');
      assert.equal((sentFor(first.payment.reference)[0]!.body.threeDS2RequestData as Record<string, string>).threeDSRequestorChallengeInd, '03');
      await first.context.close();

      const again = await open('31.11', { details: { vaultAccessToken: stored.details.vaultAccessToken } });
      await again.page.getByRole('heading', { name: 'Pay with your saved card' }).waitFor();
      await again.page.getByLabel('Security code (CVC)').pressSequentially('123');
      await again.page.getByRole('button', { name: /^Pay / }).click();
      await answerChallenge(again.page, 'Approve');
      await again.page.waitForURL(h.returnUrl);
      assert.equal((await read(again.payment.reference)).status, 'success');
      const [authorise] = sentFor(again.payment.reference);
      assert.equal((authorise!.body.card as Record<string, string>).number, '4111111111111111', 'the stored card');
      assert.equal((authorise!.body.threeDS2RequestData as Record<string, string>).threeDSRequestorChallengeInd, '02');
      assert.deepEqual(adyen.violations, []);
      await again.context.close();
    });

    test('test mode pointed at Adyen goes the same way; a live merchant without a connection still has no card form', async () => {
      const shop = await createMerchant(h.kassa.store, 'Adyen Test-Mode Shop');
      await connect(shop.merchantId, 'test');
      const { page, payment, context } = await open('12.11', {}, api(h.kassa.app, shop.testApiKey));
      await page.locator('.test-banner').waitFor();
      await payWithCard(page);
      await answerChallenge(page, 'Approve');
      await page.waitForURL(h.returnUrl);
      assert.equal((await read(payment.reference, api(h.kassa.app, shop.testApiKey))).status, 'success');
      assert.deepEqual(
        sentFor(payment.reference).map((r) => r.path),
        ['/authorise', '/authorise3ds2'],
        'Adyen, not the simulator',
      );
      await context.close();

      const unconnected = await createMerchant(h.kassa.store, 'Unconnected Shop');
      const created = (
        await api(h.kassa.app, unconnected.liveApiKey).post('/payment', { amount: '10.00', currency: 'EUR', method: 'card', returnUrl: h.returnUrl })
      ).json();
      const shown = await h.kassa.app.inject({ method: 'GET', url: new URL(created.payUrl).pathname });
      assert.equal(shown.statusCode, 503);
      assert.ok(!shown.body.includes('id="card-form"'));
    });
  });
}
