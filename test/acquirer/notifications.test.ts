/**
 * Every notification of Adyen's `Webhooks-v1.json` that changes something for the merchant is
 * acted on (docs/acquirers.md "Notifications"), on SQLite and PostgreSQL, with a test-mode merchant
 * connected to the Adyen stand-in (adyen-fake.ts): each signed item changes exactly what it should,
 * with its merchant webhook, and once (the same item again changes nothing and sends nothing); a
 * capture or refund Adyen undoes after it was `success` stays `success` and says so (docs/decisions.md
 * "An acquirer undoing a final outcome"); what changes nothing is kept on the payment's timeline
 * (disputes have their own transaction: disputes.test.ts); an event code Adyen may add later is
 * accepted and logged.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { deliveriesFor } from '../events/support.ts';
import { connectToFake, startFakeAdyen, ADYEN_CONTRACT, type FakeAdyen } from './adyen-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { ConsoleClient, makeAccount } from '../console/support.ts';
import { adyenEvents, readAdyenNotification } from '../../src/acquirer/adyen-notifications.ts';
import { signedNotification } from './signed-notification.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { buildServer } from '../../src/server.ts';

const skip = needs(adyenContractMissing);
const HMAC_KEY = randomBytes(32).toString('hex');

/** Every event code Adyen's document names: the items' `eventCode` values and the webhooks sent as notification items. */
function documentedEventCodes(): string[] {
  const document = JSON.parse(readFileSync(path.join(path.dirname(ADYEN_CONTRACT), 'Webhooks-v1.json'), 'utf8')) as {
    webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
    components: { schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }> };
  };
  const codes = new Set<string>();
  for (const schema of Object.values(document.components.schemas)) for (const code of schema.properties?.eventCode?.enum ?? []) codes.add(code);
  for (const [name, webhook] of Object.entries(document.webhooks)) {
    const request = document.components.schemas[webhook.post.requestBody.content['application/json'].schema.$ref.split('/').pop()!];
    // ACH_NOTIFICATION_OF_CHANGE and DIRECT_DEBIT_NOTICE_OF_CHANGE_NOTIFICATION are no notification items (`type`, `data`): not read.
    if (request.properties?.notificationItems) codes.add(name.slice(1));
  }
  return [...codes].sort();
}

describe("Adyen's event codes in Kassa's words", { skip }, () => {
  test('every event code of Webhooks-v1.json has its word in the table', () => {
    const codes = documentedEventCodes();
    assert.ok(codes.length >= 40, `${codes.length} codes read`);
    assert.deepEqual(
      codes.filter((code) => !Object.hasOwn(adyenEvents, code)),
      [],
    );
  });

  const cases: [string, string][] = [
    ['CAPTURE_FAILED', 'captureFailed'],
    ['REFUND_FAILED', 'refundFailed'],
    ['REFUNDED_REVERSED', 'refundReversed'],
    ['EXPIRE', 'authorisationExpired'],
    ['TECHNICAL_CANCEL', 'cancelled'],
    ['CANCEL_OR_REFUND', 'cancelled'],
    ['OFFER_CLOSED', 'offerClosed'],
    ['NOTIFICATION_OF_CHARGEBACK', 'dispute'],
    ['CHARGEBACK', 'dispute'],
    ['SECOND_CHARGEBACK', 'dispute'],
    ['CHARGEBACK_REVERSED', 'dispute'],
    ['PREARBITRATION_WON', 'dispute'],
    ['REQUEST_FOR_INFORMATION', 'dispute'],
    ['NOTIFICATION_OF_FRAUD', 'notice'],
    ['REPORT_AVAILABLE', 'notice'],
    ['PAIDOUT_REVERSED', 'notice'],
    ['SOMETHING_ADYEN_ADDS_LATER', 'unknown'],
    ['constructor', 'unknown'],
  ];
  /** What the reader says of one item, signed with the key of the one connection it may belong to. */
  async function readSigned(amount: { value: number; currency: string }, eventCode: string) {
    const item = { pspReference: 'PSP1', merchantAccountCode: 'ShopNL', merchantReference: 'r', amount, eventCode, success: 'true' };
    const json = {
      live: 'false',
      notificationItems: [signedNotification(item, HMAC_KEY)],
    };
    const connection = {
      merchantId: 'm',
      mode: 'test' as const,
      connector: 'adyen',
      endpoint: 'https://x',
      endpoints: {},
      account: 'ShopNL',
      secrets: { hmacKey: HMAC_KEY },
      updated: 0,
    };
    return readAdyenNotification({ raw: Buffer.alloc(0), json, headers: {} }, async () => [connection]);
  }

  test("an item's amount in Adyen's own units is read in Kassa's (ISK: Adyen counts 2 decimals, ISO 4217 none)", async () => {
    const read = await readSigned({ value: 150000, currency: 'ISK' }, 'CHARGEBACK');
    assert.deepEqual(read.words[0].amount, { minor: 1500, currency: 'ISK', asSent: 150000 });
  });

  for (const [code, event] of cases) {
    test(`${code} is read as ${event}`, async () => {
      const read = await readSigned({ value: 1000, currency: 'EUR' }, code);
      assert.equal(read.words[0].event, event);
      assert.deepEqual(read.words[0].amount, { minor: 1000, currency: 'EUR', asSent: 1000 });
    });
  }
});

for (const backend of backends) {
  describe(`Adyen's later notifications acted on (${backend})`, { skip }, () => {
    const t = suiteApp(backend, { ACQUIRER_TIMEOUT: 'PT1S', ACQUIRER_RECOVERY_AFTER: 'PT5M' });
    let adyen: FakeAdyen;
    /** A second app on the same database whose log lines are kept, for what the route logs. */
    let logged: FastifyInstance;
    const lines: string[] = [];
    before(async () => {
      adyen = await startFakeAdyen();
      adyen.slowMs = 1500;
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'test', hmacKey: HMAC_KEY });
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
      logged = await buildServer(t.config, t.store, { logStream: { write: (line) => void lines.push(line) } });
    });
    after(async () => {
      await logged.close();
      await adyen.close();
    });

    let psps = 0;
    /** One signed item, sent as Adyen sends it; `via` the app whose logs are kept. */
    function notify(item: Record<string, unknown>, via?: FastifyInstance) {
      const signed = {
        merchantAccountCode: 'ShopNL',
        pspReference: `PSPN${String(++psps).padStart(12, '0')}`,
        eventDate: new Date().toISOString(),
        success: 'true',
        amount: { value: 1000, currency: 'EUR' },
        ...item,
      };
      const notificationItems = [signedNotification(signed, HMAC_KEY)];
      return (via ?? t.app).inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload: { live: 'false', notificationItems } });
    }
    /** The item sent, then the very same item again: the second must change nothing. */
    async function notifyTwice(item: Record<string, unknown>, check: () => Promise<void>) {
      const once = { pspReference: `PSPT${String(++psps).padStart(12, '0')}`, ...item };
      assert.equal((await notify(once)).body, '[accepted]');
      await check();
      const before = await snapshot(item.merchantReference as string);
      assert.equal((await notify(once)).body, '[accepted]');
      assert.deepEqual(await snapshot(item.merchantReference as string), before, 'the same item again changes nothing and sends no webhook');
    }

    const transaction = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();
    const causes = async (reference: string) => (await eventsOf(t.store.read, reference)).map((e) => e.cause);
    const webhooks = async (reference: string) => (await deliveriesFor(t.store, reference)).map((d) => d.event).sort();
    /** Everything a notification may change of a payment and its family. */
    async function snapshot(reference: string) {
      const row = await t.store.read.selectFrom('transactions').select(['parent_reference']).where('reference', '=', reference).executeTakeFirst();
      const family = [reference, ...(row?.parent_reference ? [row.parent_reference] : [])];
      return Promise.all(family.map(async (r) => ({ r, row: await transaction(r), events: (await eventsOf(t.store.read, r)).length, webhooks: await webhooks(r) })));
    }

    async function paid(overrides: Record<string, unknown>) {
      const payment = (await t.client.post('/payment', cardPayment(overrides))).json() as { reference: string; payUrl: string };
      const { path: page, csrf } = await openPage(t.app, payment.payUrl);
      assert.equal((await postForm(t.app, `${page}/card`, { csrf, ...card() })).statusCode, 303);
      return { reference: payment.reference, psp: adyen.authorisations.get(payment.reference)!.pspReference };
    }
    /** An authorisation of 40.00 captured for 25.00 (Adyen took it: `pending` until its notification). */
    async function captured() {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      const capture = (await t.client.post('/capture', { reference, amount: '25.00' })).json() as { reference: string; status: string };
      assert.equal(capture.status, 'pending');
      return { reference, psp, capture: capture.reference };
    }
    /** A sale of 40.00 refunded 15.00, Adyen's REFUND notification come (`success`). */
    async function refunded() {
      const { reference, psp } = await paid({ amount: '40.00' });
      const refund = (await t.client.post('/refund', { reference, amount: '15.00' })).json() as { reference: string };
      assert.equal(
        (await notify({ eventCode: 'REFUND', originalReference: psp, merchantReference: refund.reference, amount: { value: 1500, currency: 'EUR' } })).body,
        '[accepted]',
      );
      assert.equal((await transaction(refund.reference)).status, 'success');
      assert.equal((await transaction(reference)).details.refundedAmount, 15);
      return { reference, psp, refund: refund.reference };
    }

    test('CAPTURE_FAILED after CAPTURE: the capture stays success but says it was undone, the authorisation is authorised again, both webhooks, nothing refundable', async () => {
      const { reference, psp, capture } = await captured();
      await notify({ eventCode: 'CAPTURE', originalReference: psp, merchantReference: capture, amount: { value: 2500, currency: 'EUR' } });
      assert.equal((await transaction(capture)).status, 'success');
      const [captureHooks, authorisationHooks] = [(await webhooks(capture)).length, (await webhooks(reference)).length];

      await notifyTwice(
        { eventCode: 'CAPTURE_FAILED', originalReference: psp, merchantReference: capture, amount: { value: 2500, currency: 'EUR' }, reason: 'Capture Failed' },
        async () => {
          const failed = await transaction(capture);
          assert.deepEqual([failed.status, failed.details.undoneByAcquirer], ['success', 'capture_failed']);
          const authorisation = await transaction(reference);
          assert.equal(authorisation.details.captureStatus, 'authorised');
          assert.equal(authorisation.details.captureReference, undefined);
          assert.equal(authorisation.details.capturedAmount, undefined);
          assert.equal((await webhooks(capture)).length, captureHooks + 1);
          assert.equal((await webhooks(reference)).length, authorisationHooks + 1);
          const [captureEvent] = (await eventsOf(t.store.read, capture)).slice(-1);
          assert.deepEqual([captureEvent.from_status, captureEvent.to_status, captureEvent.cause], ['success', 'success', 'acquirer_capture_failed']);
          assert.equal(captureEvent.detail, 'CAPTURE_FAILED, 25 EUR: Capture Failed');
          assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_capture_failed']);
        },
      );
      const refundingAuthorisation = await t.client.post('/refund', { reference });
      assert.equal(refundingAuthorisation.json().errors?.[0].code, 'not_captured', 'nothing was taken to give back');
      const refundingCapture = await t.client.post('/refund', { reference: capture });
      assert.equal(refundingCapture.json().errors?.[0].code, 'not_paid');
      const again = await t.client.post('/capture', { reference, amount: '25.00' });
      assert.equal(again.statusCode, 200, 'the authorisation can be captured anew');
      assert.notEqual(again.json().reference, capture);
      assert.deepEqual(adyen.violations, []);
    });

    test('a capture Adyen makes after all after CAPTURE_FAILED, its CAPTURE under the first one’s pspReference: redone once, the authorisation captured again, both webhooks, refundable', async () => {
      const { reference, psp, capture } = await captured();
      const pspReference = `PSPR${String(++psps).padStart(12, '0')}`;
      const item = { pspReference, originalReference: psp, merchantReference: capture, amount: { value: 2500, currency: 'EUR' } };
      assert.equal((await notify({ ...item, eventCode: 'CAPTURE' })).body, '[accepted]');
      assert.equal((await notify({ ...item, eventCode: 'CAPTURE_FAILED', reason: 'Capture Failed' })).body, '[accepted]');
      assert.equal((await transaction(capture)).details.undoneByAcquirer, 'capture_failed');
      assert.equal((await transaction(reference)).details.captureStatus, 'authorised');
      const [captureHooks, authorisationHooks] = [(await webhooks(capture)).length, (await webhooks(reference)).length];

      // Adyen re-captures and says so under the capture's own pspReference: the money is taken after all.
      const recaptured = { ...item, eventCode: 'CAPTURE', reason: 'Transaction Recaptured' };
      assert.equal((await notify(recaptured)).body, '[accepted]');
      const redone = await transaction(capture);
      assert.deepEqual([redone.status, redone.details.undoneByAcquirer], ['success', undefined]);
      const [event] = (await eventsOf(t.store.read, capture)).slice(-1);
      assert.deepEqual([event.cause, event.detail], ['acquirer_recaptured', 'CAPTURE, 25 EUR: Transaction Recaptured']);
      const authorisation = await transaction(reference);
      assert.deepEqual([authorisation.details.captureStatus, authorisation.details.captureReference, authorisation.details.capturedAmount], ['captured', capture, 25]);
      assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_recaptured']);
      assert.equal((await webhooks(capture)).length, captureHooks + 1);
      assert.equal((await webhooks(reference)).length, authorisationHooks + 1);

      // The re-capture's item sent again, also twice at once: changes nothing.
      const before = await snapshot(capture);
      const again = await Promise.all([notify(recaptured), notify(recaptured)]);
      assert.deepEqual(
        again.map((answer) => answer.body),
        ['[accepted]', '[accepted]'],
      );
      assert.deepEqual(await snapshot(capture), before, 'applied once');
      const refunded = await t.client.post('/refund', { reference: capture, amount: '10.00' });
      assert.equal(refunded.statusCode, 200, 'the capture is paid, and refundable');
      assert.deepEqual(adyen.violations, []);
    });

    test('a capture made after all once its authorisation was captured anew changes only the timelines, for an operator to look at', async () => {
      const { reference, psp, capture } = await captured();
      const item = {
        pspReference: `PSPR${String(++psps).padStart(12, '0')}`,
        originalReference: psp,
        merchantReference: capture,
        amount: { value: 2500, currency: 'EUR' },
      };
      await notify({ ...item, eventCode: 'CAPTURE' });
      await notify({ ...item, eventCode: 'CAPTURE_FAILED' });
      const anew = (await t.client.post('/capture', { reference, amount: '25.00' })).json() as { reference: string };
      lines.length = 0;
      assert.equal((await notify({ ...item, eventCode: 'CAPTURE', reason: 'Transaction Recaptured' }, logged)).body, '[accepted]');
      assert.equal((await transaction(capture)).details.undoneByAcquirer, undefined, 'the money of the first capture was taken');
      const authorisation = await transaction(reference);
      assert.deepEqual([authorisation.details.captureStatus, authorisation.details.captureReference], ['captured', anew.reference]);
      assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_recaptured']);
      assert.ok(
        lines.some((line) => line.includes('the money may be taken twice')),
        lines.join('\n'),
      );
    });

    test('CAPTURE_FAILED of a sale captured with its authorisation: it stays success but says it was undone, with its webhook; it cannot be refunded', async () => {
      const { reference, psp } = await paid({ amount: '40.00' });
      const hooks = (await webhooks(reference)).length;
      await notifyTwice({ eventCode: 'CAPTURE_FAILED', originalReference: psp, merchantReference: reference, amount: { value: 4000, currency: 'EUR' } }, async () => {
        const sale = await transaction(reference);
        assert.deepEqual([sale.status, sale.details.undoneByAcquirer], ['success', 'capture_failed']);
        assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_capture_failed']);
        assert.equal((await webhooks(reference)).length, hooks + 1);
      });
      assert.equal((await t.client.post('/refund', { reference })).json().errors?.[0].code, 'not_paid');
      // Adyen makes it after all: paid, and refundable again.
      await notify({
        eventCode: 'CAPTURE',
        originalReference: psp,
        merchantReference: reference,
        amount: { value: 4000, currency: 'EUR' },
        reason: 'Transaction Recaptured',
      });
      assert.deepEqual([(await transaction(reference)).details.undoneByAcquirer, (await causes(reference)).at(-1)], [undefined, 'acquirer_recaptured']);
      assert.equal((await t.client.post('/refund', { reference })).statusCode, 200);
    });

    test('CAPTURE_FAILED before CAPTURE: the pending capture fails, the authorisation is authorised again with its webhook', async () => {
      const { reference, psp, capture } = await captured();
      assert.equal((await transaction(reference)).details.captureStatus, 'captured', 'as Kassa shows a capture Adyen took');
      const authorisationHooks = (await webhooks(reference)).length;
      await notifyTwice({ eventCode: 'CAPTURE_FAILED', originalReference: psp, merchantReference: capture, amount: { value: 2500, currency: 'EUR' } }, async () => {
        const failed = await transaction(capture);
        assert.deepEqual([failed.status, failed.failureCode], ['failed', 'processing_error']);
        assert.ok((await webhooks(capture)).includes('failed/processing_error'));
        assert.equal((await transaction(reference)).details.captureStatus, 'authorised');
        assert.equal((await webhooks(reference)).length, authorisationHooks + 1);
      });
    });

    test('CAPTURE with success false after Adyen took the capture makes the authorisation authorised again too', async () => {
      const { reference, psp, capture } = await captured();
      await notify({ eventCode: 'CAPTURE', success: 'false', originalReference: psp, merchantReference: capture, amount: { value: 2500, currency: 'EUR' } });
      assert.equal((await transaction(capture)).status, 'failed');
      assert.equal((await transaction(reference)).details.captureStatus, 'authorised');
    });

    test('REFUND_FAILED of a pending refund: failed, its amount free again, refundedAmount unchanged', async () => {
      const { reference, psp } = await paid({ amount: '40.00' });
      const refund = (await t.client.post('/refund', { reference, amount: '15.00' })).json() as { reference: string };
      await notifyTwice(
        { eventCode: 'REFUND_FAILED', originalReference: psp, merchantReference: refund.reference, amount: { value: 1500, currency: 'EUR' } },
        async () => {
          assert.equal((await transaction(refund.reference)).status, 'failed');
          assert.ok((await webhooks(refund.reference)).includes('failed/rejected'));
          assert.equal((await transaction(reference)).details.refundedAmount, undefined);
        },
      );
      assert.equal((await t.client.post('/refund', { reference, amount: '40.00' })).statusCode, 200, 'the whole sale is refundable again');
    });

    for (const [eventCode, undone, cause] of [
      ['REFUND_FAILED', 'refund_failed', 'acquirer_refund_failed'],
      ['REFUNDED_REVERSED', 'refund_reversed', 'acquirer_refund_reversed'],
    ]) {
      test(`${eventCode} of a successful refund: it stays success and says so, the sale's refundedAmount goes back, both webhooks, its amount refundable again`, async () => {
        const { reference, psp, refund } = await refunded();
        const [refundHooks, saleHooks] = [(await webhooks(refund)).length, (await webhooks(reference)).length];
        await notifyTwice({ eventCode, originalReference: psp, merchantReference: refund, amount: { value: 1500, currency: 'EUR' } }, async () => {
          const undoneRefund = await transaction(refund);
          assert.deepEqual([undoneRefund.status, undoneRefund.details.undoneByAcquirer], ['success', undone]);
          assert.equal((await transaction(reference)).details.refundedAmount, 0);
          assert.equal((await webhooks(refund)).length, refundHooks + 1);
          assert.equal((await webhooks(reference)).length, saleHooks + 1);
          assert.deepEqual((await causes(refund)).slice(-1), [cause]);
        });
        const again = await t.client.post('/refund', { reference, amount: '40.00' });
        assert.equal(again.statusCode, 200, again.body);
      });
    }

    test('REFUND_FAILED, then REFUNDED_REVERSED of the same refund: undone once, both on its timeline', async () => {
      const { reference, psp, refund } = await refunded();
      await t.client.post('/refund', { reference, amount: '5.00' }).then(async (r) => {
        const other = r.json().reference as string;
        await notify({ eventCode: 'REFUND', originalReference: psp, merchantReference: other, amount: { value: 500, currency: 'EUR' } });
      });
      assert.equal((await transaction(reference)).details.refundedAmount, 20);
      await notify({ eventCode: 'REFUND_FAILED', originalReference: psp, merchantReference: refund, amount: { value: 1500, currency: 'EUR' } });
      const saleHooks = (await webhooks(reference)).length;
      await notify({ eventCode: 'REFUNDED_REVERSED', originalReference: psp, merchantReference: refund, amount: { value: 1500, currency: 'EUR' } });
      assert.equal((await transaction(reference)).details.refundedAmount, 5, 'the other refund still counts');
      assert.equal((await webhooks(reference)).length, saleHooks, 'nothing changed the second time');
      assert.deepEqual((await causes(refund)).slice(-2), ['acquirer_refund_failed', 'acquirer_refund_reversed']);
    });

    test('EXPIRE of an authorisation held: reversed, on its timeline, with its webhook; it can no longer be captured', async () => {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      const hooks = (await webhooks(reference)).length;
      await notifyTwice({ eventCode: 'EXPIRE', merchantReference: reference, originalReference: psp, amount: { value: 4000, currency: 'EUR' } }, async () => {
        const expired = await transaction(reference);
        assert.deepEqual([expired.status, expired.details.captureStatus], ['success', 'reversed']);
        assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_authorisation_expired']);
        assert.equal((await webhooks(reference)).length, hooks + 1);
      });
      assert.equal((await t.client.post('/capture', { reference })).json().errors?.[0].code, 'already_reversed');
    });

    test('EXPIRE of an authorisation captured already changes nothing but its timeline', async () => {
      const { reference, psp, capture } = await captured();
      const hooks = (await webhooks(reference)).length;
      await notify({ eventCode: 'EXPIRE', merchantReference: reference, originalReference: psp, amount: { value: 4000, currency: 'EUR' } });
      const authorisation = await transaction(reference);
      assert.deepEqual([authorisation.details.captureStatus, authorisation.details.captureReference], ['captured', capture]);
      assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_notice']);
      assert.equal((await webhooks(reference)).length, hooks);
    });

    /** A payment whose authorisation had no answer, its technical cancel sent by the recovery job and not answered (yet). */
    async function cancelSent() {
      const payment = (await t.client.post('/payment', cardPayment({ amount: '10.31' }))).json() as { reference: string; payUrl: string };
      const { path: page, csrf } = await openPage(t.app, payment.payUrl);
      await postForm(t.app, `${page}/card`, { csrf, ...card() });
      assert.equal((await transaction(payment.reference)).status, 'manualintervention');
      // What the job's claim records before it calls Adyen (payment-pages.ts claimAuthorisationRecovery).
      await t.store.transact((db) => db.updateTable('payment_pages').set({ technical_cancel_sent_at: Date.now() }).where('reference', '=', payment.reference).execute());
      return payment.reference;
    }

    for (const eventCode of ['TECHNICAL_CANCEL', 'CANCEL_OR_REFUND']) {
      test(`${eventCode} done finishes the technical cancel of a payment waiting for it: failed/processing_error with its webhook`, async () => {
        const reference = await cancelSent();
        await notifyTwice({ eventCode, merchantReference: reference, originalReference: 'PSPAUTH', amount: { value: 1031, currency: 'EUR' } }, async () => {
          const failed = await transaction(reference);
          assert.deepEqual([failed.status, failed.failureCode], ['failed', 'processing_error']);
          assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_technical_cancel']);
          assert.ok((await webhooks(reference)).includes('failed/processing_error'));
          const page = await t.store.read.selectFrom('payment_pages').select('authorisation_in_flight').where('reference', '=', reference).executeTakeFirst();
          assert.equal(page?.authorisation_in_flight, null);
        });
      });
    }

    test('TECHNICAL_CANCEL not done after Kassa recorded the payment failed: on its timeline, a webhook, logged for an operator', async () => {
      const reference = await cancelSent();
      await notify({ eventCode: 'TECHNICAL_CANCEL', merchantReference: reference, amount: { value: 1031, currency: 'EUR' } });
      assert.equal((await transaction(reference)).status, 'failed');
      const hooks = (await webhooks(reference)).length;
      lines.length = 0;
      const answer = await notify({ eventCode: 'TECHNICAL_CANCEL', success: 'false', merchantReference: reference, amount: { value: 1031, currency: 'EUR' } }, logged);
      assert.equal(answer.body, '[accepted]');
      assert.equal((await transaction(reference)).status, 'failed', 'a final state never changes');
      assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_cancel_refused']);
      assert.equal((await webhooks(reference)).length, hooks + 1);
      const warning = lines
        .map((line) => JSON.parse(line) as { level: number; msg: string; reference?: string })
        .find((l) => l.reference === reference && l.level === 40);
      assert.match(warning?.msg ?? '', /could not cancel/);
    });

    test('TECHNICAL_CANCEL not done while the payment waits for it: left to an operator, still manualintervention', async () => {
      const reference = await cancelSent();
      await notify({ eventCode: 'TECHNICAL_CANCEL', success: 'false', merchantReference: reference, amount: { value: 1031, currency: 'EUR' } });
      assert.equal((await transaction(reference)).status, 'manualintervention');
      const page = await t.store.read
        .selectFrom('payment_pages')
        .select(['technical_cancel_sent_at', 'recovery_due_at'])
        .where('reference', '=', reference)
        .executeTakeFirst();
      assert.deepEqual(page, { technical_cancel_sent_at: null, recovery_due_at: null });
    });

    test('OFFER_CLOSED of a payment the customer never finished: failed/expired with its webhook; of a paid one, its timeline only', async () => {
      const open = (await t.client.post('/payment', cardPayment({ amount: '12.00' }))).json() as { reference: string };
      await notifyTwice({ eventCode: 'OFFER_CLOSED', merchantReference: open.reference, amount: { value: 1200, currency: 'EUR' } }, async () => {
        const closed = await transaction(open.reference);
        assert.deepEqual([closed.status, closed.failureCode], ['failed', 'expired']);
        assert.deepEqual((await causes(open.reference)).slice(-1), ['acquirer_offer_closed']);
        assert.deepEqual(await webhooks(open.reference), ['failed/expired']);
      });
      const { reference } = await paid({ amount: '12.00' });
      await notify({ eventCode: 'OFFER_CLOSED', merchantReference: reference, amount: { value: 1200, currency: 'EUR' } });
      assert.equal((await transaction(reference)).status, 'success');
      assert.deepEqual((await causes(reference)).slice(-1), ['acquirer_notice']);
    });

    test('what changes nothing is kept on the timeline with what Adyen said, no webhook; the console shows it', async () => {
      const { reference, psp } = await paid({ amount: '40.00' });
      const before = await snapshot(reference);
      for (const eventCode of ['NOTIFICATION_OF_FRAUD', 'AUTHORISATION_ADJUSTMENT', 'REPORT_AVAILABLE']) {
        const reason = eventCode === 'REPORT_AVAILABLE' ? undefined : 'Fraudulent Processing of Transactions';
        await notifyTwice({ eventCode, merchantReference: reference, originalReference: psp, amount: { value: 4000, currency: 'EUR' }, reason }, async () => {});
      }
      const entries = (await eventsOf(t.store.read, reference)).slice(-3).map((e) => [e.from_status, e.to_status, e.cause, e.detail]);
      assert.deepEqual(entries, [
        ['success', 'success', 'acquirer_notice', 'NOTIFICATION_OF_FRAUD, 40 EUR: Fraudulent Processing of Transactions'],
        ['success', 'success', 'acquirer_notice', 'AUTHORISATION_ADJUSTMENT, 40 EUR: Fraudulent Processing of Transactions'],
        ['success', 'success', 'acquirer_notice', 'REPORT_AVAILABLE, 40 EUR'],
      ]);
      const after = await snapshot(reference);
      assert.deepEqual([after[0].row, after[0].webhooks], [before[0].row, before[0].webhooks], 'the payment and its webhooks as they were');

      await makeAccount(t.store, `events-${backend}@kassa.test`);
      const operator = new ConsoleClient(t.app);
      await operator.signIn(`events-${backend}@kassa.test`);
      const page = await operator.get(`/dashboard/payments/${reference}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /NOTIFICATION_OF_FRAUD, 40 EUR: Fraudulent Processing of Transactions/);
    });

    test('an event code Kassa does not know is accepted, changes nothing and is logged at warn with its code', async () => {
      const { reference } = await paid({ amount: '40.00' });
      const before = await snapshot(reference);
      lines.length = 0;
      const answer = await notify({ eventCode: 'SOMETHING_ADYEN_ADDS_LATER', merchantReference: reference }, logged);
      assert.deepEqual([answer.statusCode, answer.body], [200, '[accepted]']);
      assert.deepEqual(await snapshot(reference), before);
      const warning = lines
        .map((line) => JSON.parse(line) as { level: number; eventCode?: string; msg: string })
        .find((l) => l.eventCode === 'SOMETHING_ADYEN_ADDS_LATER');
      assert.equal(warning?.level, 40);
      assert.match(warning?.msg ?? '', /unknown event code/);
    });
  });
}
