/**
 * Unknown acquirer outcomes resolved in the background (docs/acquirers.md "Unknown outcomes"),
 * on SQLite and PostgreSQL, with a test-mode merchant whose test mode is connected to the Adyen
 * stand-in (adyen-fake.ts: every request checked against Adyen's document): an authorisation with
 * no answer in time is cancelled by Kassa's reference (`/technicalCancel`) once
 * ACQUIRER_RECOVERY_AFTER has passed; Adyen's AUTHORISATION notification and the job race and
 * exactly one wins; two workers call Adyen once; an authorisation whose process died before its
 * commit (its write-ahead record left in flight) is never paid, cancelled or expired again until
 * its outcome is known; the simulator, which cannot cancel, leaves the payment to an operator.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { api, backends, cardPayment, suiteApp, type Injector } from '../support/app.ts';
import { deliveriesFor, waitFor } from '../events/support.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { signedNotification } from './signed-notification.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { findPaymentPage, recordAuthorisationInFlight } from '../../src/store/payment-pages.ts';
import { paymentPorts } from '../../src/payments/ports.ts';
import { recoverUnknownAuthorisations } from '../../src/payments/acquirer-recovery.ts';
import { expireDuePayments } from '../../src/payments/expiry.ts';
import { run } from '../../src/payments/operations/run.ts';
import { resolve } from '../../src/payments/operations/resolve.ts';

const skip = needs(adyenContractMissing);
const HMAC_KEY = randomBytes(32).toString('hex');
const AFTER_MS = 5 * 60_000;

for (const backend of backends) {
  describe(`unknown acquirer outcomes resolved in the background (${backend})`, { skip }, () => {
    const t = suiteApp(backend, { ACQUIRER_TIMEOUT: 'PT1S', ACQUIRER_RECOVERY_AFTER: 'PT5M' });
    let adyen: FakeAdyen;
    before(async () => {
      adyen = await startFakeAdyen();
      // Slower than ACQUIRER_TIMEOUT: a .31 authorisation is made at "Adyen", but its answer never reaches Kassa.
      adyen.slowMs = 1500;
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'test', hmacKey: HMAC_KEY });
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
    });
    after(() => adyen.close());

    const errors: unknown[] = [];
    /** One run of the recovery job, `ahead` ms from now (ACQUIRER_RECOVERY_AFTER passed or not). */
    const recover = (ahead = AFTER_MS + 1000) => recoverUnknownAuthorisations(paymentPorts(t.config, t.store), (error) => errors.push(error), Date.now() + ahead);

    /** A card payment paid on its page (3-D Secure frictionless by the simulated directory, then Adyen). */
    async function paidOnPage(amount: string, app: Injector = t.app, key = t.merchant.testApiKey) {
      const payment = (await api(app, key).post('/payment', cardPayment({ amount }))).json() as { reference: string; payUrl: string };
      const { path, csrf } = await openPage(app, payment.payUrl);
      const paid = await postForm(app, `${path}/card`, { csrf, ...card() });
      return { ...payment, path, csrf, paid };
    }

    /** The payment's state changes: its timeline less the entries that keep what an acquirer said without changing anything. */
    const stateChanges = async (reference: string) => (await eventsOf(t.store.read, reference)).filter((e) => e.from_status !== e.to_status);
    const statusOf = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json() as { status: string; failureCode?: string };
    const cancelsFor = (reference: string) => adyen.requests.filter((r) => r.path === '/technicalCancel' && r.body.originalMerchantReference === reference);
    /** The merchant webhooks of the payment, as a set (deliveries have no order of their own). */
    const webhookEvents = async (reference: string) => (await deliveriesFor(t.store, reference)).map((d) => d.event).sort();

    /** Adyen's AUTHORISATION of the payment as it made it (its amount and pspReference: Kassa applies no other, docs/acquirers.md). */
    async function authorisationNotification(reference: string, success = true) {
      const held = await waitFor('the authorisation at Adyen', () => adyen.authorisations.get(reference));
      const item = {
        eventCode: 'AUTHORISATION',
        pspReference: held.pspReference,
        merchantReference: reference,
        merchantAccountCode: 'ShopNL',
        amount: held.amount,
        eventDate: new Date().toISOString(),
        success: String(success),
      };
      return t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload: { live: 'false', notificationItems: [signedNotification(item, HMAC_KEY)] } });
    }

    test('no answer in time: manualintervention, then past ACQUIRER_RECOVERY_AFTER a technical cancel by Kassa’s reference → failed/processing_error', async () => {
      const { reference } = await paidOnPage('10.31');
      assert.equal((await statusOf(reference)).status, 'manualintervention');
      // "Adyen" makes the authorisation whose answer comes too late for Kassa.
      assert.equal((await waitFor('the authorisation at Adyen', () => adyen.authorisations.get(reference))).state, 'authorised');

      assert.ok(!(await recover(60_000)).includes(reference), 'before ACQUIRER_RECOVERY_AFTER the notification may still come');
      assert.equal(cancelsFor(reference).length, 0);

      await recover();
      const failed = await statusOf(reference);
      assert.deepEqual([failed.status, failed.failureCode], ['failed', 'processing_error']);
      const [sent] = cancelsFor(reference);
      assert.deepEqual(sent.body, { merchantAccount: 'ShopNL', originalMerchantReference: reference, reference });
      assert.equal(sent.idempotencyKey, `${reference}:technical-cancel`);
      assert.equal(adyen.authorisations.get(reference)?.state, 'cancelled');
      const events = await eventsOf(t.store.read, reference);
      assert.deepEqual(
        events.map((e) => [e.to_status, e.cause]),
        [
          ['pending', 'created'],
          ['manualintervention', 'acquirer_timeout'],
          ['failed', 'acquirer_technical_cancel'],
        ],
      );
      assert.deepEqual(await webhookEvents(reference), ['failed/processing_error', 'manualintervention']);

      // Settled: the job never looks at it again, and a late notification changes nothing.
      assert.ok(!(await recover()).includes(reference));
      await authorisationNotification(reference);
      assert.equal((await statusOf(reference)).status, 'failed');
      assert.equal(cancelsFor(reference).length, 1);
      assert.deepEqual(adyen.violations, []);
      assert.deepEqual(errors, []);
    });

    test('the notification first: success, and the job then changes nothing and calls nobody', async () => {
      const { reference } = await paidOnPage('11.31');
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      assert.equal((await statusOf(reference)).status, 'success');
      await recover();
      assert.equal((await statusOf(reference)).status, 'success');
      assert.equal(cancelsFor(reference).length, 0);
      assert.deepEqual(await webhookEvents(reference), ['manualintervention', 'success']);
    });

    test('the job first: failed, and the notification then changes nothing', async () => {
      const { reference } = await paidOnPage('12.31');
      await recover();
      assert.equal((await statusOf(reference)).status, 'failed');
      const changes = (await stateChanges(reference)).length;
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      assert.equal((await statusOf(reference)).status, 'failed');
      assert.equal((await stateChanges(reference)).length, changes, 'no state change: what Adyen said is on the timeline only');
      assert.deepEqual(await webhookEvents(reference), ['failed/processing_error', 'manualintervention']);
    });

    test('the notification and the job at the same moment: exactly one wins, and Adyen is cancelled only when the job did', async () => {
      const payments = await Promise.all(['13.31', '14.31', '15.31', '16.31'].map((amount) => paidOnPage(amount)));
      for (const { reference } of payments) {
        await Promise.all([authorisationNotification(reference), recover()]);
        const final = (await statusOf(reference)).status;
        const finals = (await stateChanges(reference)).filter((e) => e.to_status === 'success' || e.to_status === 'failed');
        assert.equal(finals.length, 1, 'one final state');
        assert.equal(cancelsFor(reference).length, final === 'failed' ? 1 : 0, `${final}: a technical cancel exactly when the job won`);
        assert.equal((await webhookEvents(reference)).filter((event) => event !== 'manualintervention').length, 1);
      }
    });

    test('two workers at once: one claims the payment, Adyen gets one technical cancel', async () => {
      const { reference } = await paidOnPage('17.31');
      await Promise.all([recover(), recover(), recover()]);
      assert.equal((await statusOf(reference)).status, 'failed');
      assert.equal(cancelsFor(reference).length, 1);
      assert.equal((await eventsOf(t.store.read, reference)).filter((e) => e.to_status === 'failed').length, 1);
    });

    test('an authorisation cut off before its commit: never paid, cancelled or expired again; the notification settles it while pending', async () => {
      const { reference, payUrl, cancelUrl } = (await t.client.post('/payment', cardPayment({ amount: '18.00' }))).json() as {
        reference: string;
        payUrl: string;
        cancelUrl: string;
      };
      const { path, csrf } = await openPage(t.app, payUrl);
      // The write-ahead record as `authorise` commits it just before calling Adyen; the process then died.
      await t.store.transact((tx) => recordAuthorisationInFlight(tx, reference, { key: `${reference}:attempt-1`, recoveryDueAt: Date.now() + AFTER_MS }));

      const page = await t.app.inject({ method: 'GET', url: new URL(payUrl).pathname });
      assert.match(page.body, /Payment in progress/);
      assert.doesNotMatch(page.body, /name="cardNumber"/, 'no card form next to an authorisation in flight');
      const again = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(again.statusCode, 409, 'a second card is turned away');
      assert.ok(!adyen.requests.some((r) => r.path === '/authorise' && r.body.reference === reference), 'and never reaches Adyen');
      assert.equal((await t.app.inject({ method: 'POST', url: new URL(cancelUrl).pathname })).statusCode, 200);
      await expireDuePayments(paymentPorts(t.config, t.store), Date.now() + 3600_000);
      await t.store.transact((tx) => tx.updateTable('transactions').set({ expires_at: 1 }).where('reference', '=', reference).execute());
      assert.equal((await postForm(t.app, `${path}/card`, { csrf, ...card() })).statusCode, 409, 'a card tried past its expiry does not expire it');
      assert.equal((await statusOf(reference)).status, 'pending', 'neither a cancel nor the expiry ends it: its outcome does');

      adyen.authorisations.set(reference, { pspReference: 'PSPCUTOFF0000001', amount: { value: 1800, currency: 'EUR' }, state: 'authorised' });
      // While a request still holds the payment (its processing lease), that request records the answer: Adyen is asked to send it again.
      const lease = (until: number) =>
        t.store.transact((tx) => tx.updateTable('payment_pages').set({ processing_until: until }).where('reference', '=', reference).execute());
      await lease(Date.now() + 60_000);
      const early = await authorisationNotification(reference);
      assert.deepEqual([early.statusCode, early.headers['retry-after'], early.json().title], [503, '60', 'Authorisation being answered']);
      assert.equal((await statusOf(reference)).status, 'pending');
      await lease(0);
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      assert.equal((await statusOf(reference)).status, 'success');
      assert.equal((await findPaymentPage(t.store.read, reference))!.acquirer_reference, 'PSPCUTOFF0000001');
      assert.equal((await findPaymentPage(t.store.read, reference))!.authorisation_in_flight, null);
      await recover();
      assert.equal(cancelsFor(reference).length, 0);
      assert.deepEqual(await webhookEvents(reference), ['success']);
    });

    test('an authorisation cut off before its commit with no notification: manualintervention, then cancelled at Adyen → failed', async () => {
      const payment = (await t.client.post('/payment', cardPayment({ amount: '19.00' }))).json() as { reference: string; payUrl: string };
      await openPage(t.app, payment.payUrl);
      const { reference } = payment;
      await t.store.transact((tx) => recordAuthorisationInFlight(tx, reference, { key: `${reference}:attempt-1`, recoveryDueAt: Date.now() + AFTER_MS }));
      await recover();
      assert.deepEqual(
        (await eventsOf(t.store.read, reference)).map((e) => [e.to_status, e.cause]),
        [
          ['pending', 'created'],
          ['manualintervention', 'acquirer_outcome_unknown'],
          ['failed', 'acquirer_technical_cancel'],
        ],
      );
      assert.equal(cancelsFor(reference).length, 1);
      assert.deepEqual(await webhookEvents(reference), ['failed/processing_error', 'manualintervention']);
    });

    test('the simulator cannot cancel by reference: its unknown outcome is left to an operator', async () => {
      const other = await createMerchant(t.store, 'Simulated Shop');
      const { reference } = await paidOnPage('10.31', t.app, other.testApiKey);
      const own = api(t.app, other.testApiKey);
      assert.equal((await own.get(`/transaction?reference=${reference}`)).json().status, 'manualintervention');
      assert.ok((await recover()).includes(reference));
      assert.equal((await own.get(`/transaction?reference=${reference}`)).json().status, 'manualintervention');
      assert.equal((await findPaymentPage(t.store.read, reference))!.recovery_due_at, null, 'the job leaves it');
      assert.ok(!(await recover()).includes(reference), 'and never looks at it again');
      const resolved = await run(resolve, { reference, outcome: 'failed' }, { ports: paymentPorts(t.config, t.store), caller: undefined, now: Date.now(), log: console });
      assert.equal(resolved.status, 'failed');
    });
  });
}
