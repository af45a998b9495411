/**
 * Unknown acquirer outcomes resolved in the background (docs/acquirers.md "Unknown outcomes"),
 * on SQLite and PostgreSQL, with a test-mode merchant whose test mode is connected to the Adyen
 * stand-in (adyen-fake.ts: every request checked against Adyen's document): an authorisation with
 * no answer in time is cancelled by Kassa's reference (`/technicalCancel`) once
 * ACQUIRER_RECOVERY_AFTER has passed; Adyen's AUTHORISATION notification and the job race and
 * exactly one wins, in every order, each forced (one side held at a stage of its run while the
 * other runs: `hold`); two workers call Adyen once; an authorisation whose process died before its
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
import { adyenWordsOf, signedNotification } from './signed-notification.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { ensurePaymentPage, findPaymentPage, recordAuthorisationInFlight } from '../../src/store/payment-pages.ts';
import type { Db, Store } from '../../src/store/store.ts';
import type { Ports } from '../../src/payments/ports.ts';
import { recoverUnknownAuthorisations } from '../../src/payments/jobs/acquirer-recovery.ts';
import { expireDuePayments } from '../../src/payments/jobs/expiry.ts';
import { run } from '../../src/payments/runner/run.ts';
import { resolve } from '../../src/payments/operations/resolve.ts';
import { cancelUnknownAuthorisation } from '../../src/payments/operations/cancel-unknown-authorisation.ts';
import { settleByAcquirer } from '../../src/payments/operations/settle-by-acquirer.ts';
import type { Log } from '../../src/payments/runner/operation.ts';
import type { Acquirers } from '../../src/acquirer/select.ts';
import type { AcquirerConnector, TechnicalCancelRequest } from '../../src/acquirer/connector.ts';
import { sql } from 'kysely';

const skip = needs(adyenContractMissing);
const HMAC_KEY = randomBytes(32).toString('hex');
const AFTER_MS = 5 * 60_000;

/**
 * A stage where one side of a race waits until the test lets it go on: `reached` once it is
 * there, so the other side runs while it is held (not left to the timing of the machine).
 */
interface Hold {
  reached: Promise<void>;
  release(): void;
  /** Called by the held side at its stage. */
  wait(): Promise<void>;
}

function hold(): Hold {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    reached,
    release,
    wait: () => {
      arrive();
      return released;
    },
  };
}

/** `store` whose units of work wait at the hold `before` gives for their number (from 0), and at `atEnd` after their writes, before their commit. */
function heldStore(store: Store, holds: { before?: (unit: number) => Hold | undefined; atEnd?: Hold }): Store {
  let units = 0;
  const transact = async <T>(unit: (db: Db) => Promise<T>): Promise<T> => {
    await holds.before?.(units++)?.wait();
    const { atEnd } = holds;
    if (!atEnd) return store.transact(unit);
    return store.transact(async (db) => {
      const out = await unit(db);
      await atEnd.wait();
      return out;
    });
  };
  return Object.assign(Object.create(store) as Store, { transact });
}

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
    const recover = (ahead = AFTER_MS + 1000) => recoverUnknownAuthorisations(t.app.ports, (error) => errors.push(error), Date.now() + ahead);

    /** A card payment paid on its page (3-D Secure frictionless by the simulated directory, then Adyen). */
    async function paidOnPage(amount: string, app: Injector = t.app, key = t.merchant.testApiKey) {
      const payment = (await api(app, key).post('/payment', cardPayment({ amount }))).json() as { reference: string; payUrl: string };
      const { path, csrf } = await openPage(app, payment.payUrl);
      const paid = await postForm(app, `${path}/card`, { csrf, ...card() });
      return { ...payment, path, csrf, paid };
    }

    const statusOf = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json() as { status: string; failureCode?: string };
    const cancelsFor = (reference: string) => adyen.requests.filter((r) => r.path === '/technicalCancel' && r.body.originalMerchantReference === reference);
    /** The merchant webhooks of the payment, as a set (deliveries have no order of their own). */
    const webhookEvents = async (reference: string) => (await deliveriesFor(t.store, reference)).map((d) => d.event).sort();

    /**
     * Adyen's AUTHORISATION notification of the authorisation "Adyen" holds for the payment, once it
     * holds it (the stand-in answers a .31 amount after ACQUIRER_TIMEOUT, so for a while after the
     * payment's answer it holds nothing): its own pspReference and amount, so that no two payments'
     * notifications are one item to Kassa (an item sent again changes nothing).
     */
    async function authorisationPayload(reference: string, success = true) {
      const held = await waitFor('the authorisation at "Adyen"', () => adyen.authorisations.get(reference));
      const item = {
        eventCode: 'AUTHORISATION',
        pspReference: held.pspReference,
        merchantReference: reference,
        merchantAccountCode: 'ShopNL',
        amount: held.amount,
        eventDate: new Date().toISOString(),
        success: String(success),
      };
      return { live: 'false', notificationItems: [signedNotification(item, HMAC_KEY)] };
    }

    async function authorisationNotification(reference: string, success = true) {
      const payload = await authorisationPayload(reference, success);
      return t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload });
    }

    const log: Log = { error: (data) => errors.push((data as { err?: unknown }).err ?? data) };

    /**
     * The notification as its route settles it (acquirer-notifications.ts: Adyen's reader, then
     * `settleByAcquirer`), through a store whose one unit of work — its commit, after it read the
     * payment — is held `before` it or at its end (its writes made, not committed).
     */
    async function heldNotification(reference: string, holds: { before?: Hold; atEnd?: Hold }) {
      const payload = await authorisationPayload(reference);
      const words = await adyenWordsOf(t.store, payload);
      const ports = t.app.ports;
      const store = heldStore(ports.store, { before: () => holds.before, atEnd: holds.atEnd });
      return run(settleByAcquirer, words[0], { ports: { ...ports, store }, caller: undefined, now: Date.now(), log });
    }

    /**
     * The recovery job's run for the one payment (what `recoverUnknownAuthorisations` runs for each
     * one due), past ACQUIRER_RECOVERY_AFTER, held where the test says: after it found the payment due
     * and before its reserve; after its reserve (the technical cancel recorded as sent) and before
     * Adyen is called; after Adyen took the cancel and before its commit.
     */
    async function heldJob(reference: string, holds: { beforeReserve?: Hold; beforeCancel?: Hold; beforeCommit?: Hold } = {}) {
      const ports = t.app.ports;
      const dueAt = (await findPaymentPage(t.store.read, reference))!.recovery_due_at!;
      const store = heldStore(ports.store, { before: (unit) => (unit === 0 ? holds.beforeReserve : undefined) });
      const held = (connector: AcquirerConnector): AcquirerConnector =>
        Object.assign(Object.create(connector) as AcquirerConnector, {
          technicalCancel: async (request: TechnicalCancelRequest, idempotencyKey: string) => {
            await holds.beforeCancel?.wait();
            const result = await connector.technicalCancel!(request, idempotencyKey);
            await holds.beforeCommit?.wait();
            return result;
          },
        });
      const acquirers = Object.assign(Object.create(ports.acquirers) as Acquirers, {
        for: async (owner: Parameters<Acquirers['for']>[0]) => held(await ports.acquirers.for(owner)),
      });
      const job: Ports = { ...ports, store, acquirers };
      return run(cancelUnknownAuthorisation, { reference, dueAt }, { ports: job, caller: undefined, now: Date.now() + AFTER_MS + 1000, log });
    }

    /** A payment whose authorisation "Adyen" made and whose answer never reached Kassa: manualintervention, due for the job. */
    async function unanswered(amount: string) {
      const { reference } = await paidOnPage(amount);
      assert.equal((await statusOf(reference)).status, 'manualintervention');
      await waitFor('the authorisation at "Adyen"', () => adyen.authorisations.get(reference));
      return reference;
    }

    /**
     * Exactly one final state, set by the winner, with its webhook, and a technical cancel exactly
     * when the job won. Counted are state changes (from one status to another): the timeline may
     * keep the loser's word too, as an entry that leaves the status as it is (recordTimelineEntry).
     */
    async function assertWonBy(reference: string, winner: 'the notification' | 'the job') {
      const final = winner === 'the job' ? 'failed' : 'success';
      assert.equal((await statusOf(reference)).status, final);
      const events = await eventsOf(t.store.read, reference);
      assert.deepEqual(
        events.filter((e) => e.from_status !== e.to_status).map((e) => [e.from_status, e.to_status, e.cause]),
        [
          [null, 'pending', 'created'],
          ['pending', 'manualintervention', 'acquirer_timeout'],
          ['manualintervention', final, winner === 'the job' ? 'acquirer_technical_cancel' : 'acquirer_notification'],
        ],
        'one final state',
      );
      assert.ok(
        events.filter((e) => e.from_status === e.to_status).every((e) => e.to_status === final),
        'a word kept on the timeline after the end leaves the final state as it is',
      );
      const { pspReference, state } = adyen.authorisations.get(reference)!;
      const asked = adyen.requests.filter((r) => r.path !== '/authorise' && [reference, pspReference].some((name) => JSON.stringify(r.body).includes(name)));
      // The technical cancel undid the authorisation the late word names: nothing is left to give back.
      assert.deepEqual(
        asked.map((r) => r.path),
        winner === 'the job' ? ['/technicalCancel'] : [],
        'a technical cancel exactly when the job won, and nothing else asked of Adyen',
      );
      assert.equal(state, winner === 'the job' ? 'cancelled' : 'authorised');
      assert.deepEqual(await webhookEvents(reference), winner === 'the job' ? ['failed/processing_error', 'manualintervention'] : ['manualintervention', 'success']);
      assert.equal((await findPaymentPage(t.store.read, reference))!.authorisation_in_flight, null, 'nothing left in flight');
      assert.deepEqual(adyen.violations, []);
      assert.deepEqual(errors, []);
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
      const reference = await unanswered('11.31');
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      assert.equal((await statusOf(reference)).status, 'success');
      assert.ok(!(await recover()).includes(reference), 'no longer due');
      await heldJob(reference);
      await assertWonBy(reference, 'the notification');
    });

    test('the job first: failed, and the notification then changes no state (its word kept on the timeline)', async () => {
      const reference = await unanswered('12.31');
      await heldJob(reference);
      assert.equal((await statusOf(reference)).status, 'failed');
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      await assertWonBy(reference, 'the job');
    });

    test('the notification while the job, having found the payment due, has not reserved it: the notification wins, Adyen is not called', async () => {
      const reference = await unanswered('13.31');
      const beforeReserve = hold();
      const job = heldJob(reference, { beforeReserve });
      await beforeReserve.reached;
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      beforeReserve.release();
      assert.equal(await job, undefined, 'the job claims nothing');
      await assertWonBy(reference, 'the notification');
    });

    test('the notification while the job has recorded its technical cancel as sent, before Adyen is called: the job wins', async () => {
      const reference = await unanswered('14.31');
      const beforeCancel = hold();
      const job = heldJob(reference, { beforeCancel });
      await beforeCancel.reached;
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      assert.equal((await statusOf(reference)).status, 'manualintervention', 'the cancel, once sent, decides');
      beforeCancel.release();
      assert.equal((await job)?.status, 'failed');
      await assertWonBy(reference, 'the job');
    });

    test('the notification while Adyen has taken the technical cancel and the job has not committed: the job wins', async () => {
      const reference = await unanswered('15.31');
      const beforeCommit = hold();
      const job = heldJob(reference, { beforeCommit });
      await beforeCommit.reached;
      assert.equal((await authorisationNotification(reference)).body, '[accepted]');
      assert.equal((await statusOf(reference)).status, 'manualintervention');
      beforeCommit.release();
      assert.equal((await job)?.status, 'failed');
      await assertWonBy(reference, 'the job');
    });

    test('the job while the notification, having read the payment, has not committed: the job wins, the notification changes nothing', async () => {
      const reference = await unanswered('16.31');
      const before = hold();
      const notification = heldNotification(reference, { before });
      await before.reached;
      assert.equal((await heldJob(reference))?.status, 'failed');
      before.release();
      const applied = await notification;
      assert.equal(applied.item === 'first' && applied.row?.status, 'failed');
      await assertWonBy(reference, 'the job');
    });

    test('the job’s reserve while the notification’s unit of work has made its writes, not committed: it waits, and the notification wins', async () => {
      const reference = await unanswered('17.31');
      const atEnd = hold();
      const notification = heldNotification(reference, { atEnd });
      await atEnd.reached;
      const beforeReserve = hold();
      const job = heldJob(reference, { beforeReserve });
      await beforeReserve.reached;
      beforeReserve.release();
      // PostgreSQL: the claim's compare-and-set waits for the notification's row lock; SQLite: its unit waits for the one writer.
      if (backend === 'postgres') {
        const waiting = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
        await waitFor('the claim waiting for the notification’s lock', async () => (await waiting.execute(t.store.read)).rows[0].n > 0);
      }
      atEnd.release();
      assert.equal((await notification).item, 'first');
      assert.equal(await job, undefined, 'the job claims nothing');
      await assertWonBy(reference, 'the notification');
    });

    test('the notification and the job at the same moment, unforced: exactly one wins', async () => {
      const references = await Promise.all(['18.31', '19.31'].map(unanswered));
      for (const reference of references) {
        await Promise.all([authorisationNotification(reference), heldJob(reference)]);
        await assertWonBy(reference, (await statusOf(reference)).status === 'failed' ? 'the job' : 'the notification');
      }
    });

    test('two workers at once: one claims the payment, Adyen gets one technical cancel', async () => {
      const { reference } = await paidOnPage('17.31');
      await Promise.all([recover(), recover(), recover()]);
      assert.equal((await statusOf(reference)).status, 'failed');
      assert.equal(cancelsFor(reference).length, 1);
      assert.equal((await eventsOf(t.store.read, reference)).filter((e) => e.to_status === 'failed').length, 1);
    });

    /** What a card post left when its process died right after committing the write-ahead record: its page row and the record. */
    const cutOff = (reference: string, csrf: string) =>
      t.store.transact(async (tx) => {
        await ensurePaymentPage(tx, reference, csrf, Date.now());
        await recordAuthorisationInFlight(tx, reference, { key: `${reference}:attempt-1`, recoveryDueAt: Date.now() + AFTER_MS });
      });

    test('an authorisation cut off before its commit: never paid, cancelled or expired again; the notification settles it while pending', async () => {
      const { reference, payUrl, cancelUrl } = (await t.client.post('/payment', cardPayment({ amount: '18.00' }))).json() as {
        reference: string;
        payUrl: string;
        cancelUrl: string;
      };
      const { path, csrf } = await openPage(t.app, payUrl);
      // The page row the card post made and the write-ahead record as `authorise` commits it just before calling Adyen; the process then died.
      await cutOff(reference, csrf);

      const page = await t.app.inject({ method: 'GET', url: new URL(payUrl).pathname });
      assert.match(page.body, /Payment in progress/);
      assert.doesNotMatch(page.body, /name="cardNumber"/, 'no card form next to an authorisation in flight');
      const again = await postForm(t.app, `${path}/card`, { csrf, ...card() });
      assert.equal(again.statusCode, 409, 'a second card is turned away');
      assert.ok(!adyen.requests.some((r) => r.path === '/authorise' && r.body.reference === reference), 'and never reaches Adyen');
      assert.equal((await t.app.inject({ method: 'POST', url: new URL(cancelUrl).pathname })).statusCode, 200);
      await expireDuePayments(t.app.ports, Date.now() + 3600_000);
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
      const { csrf } = await openPage(t.app, payment.payUrl);
      const { reference } = payment;
      await cutOff(reference, csrf);
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
      const resolved = await run(resolve, { reference, outcome: 'failed' }, { ports: t.app.ports, caller: undefined, now: Date.now(), log: console });
      assert.equal(resolved.status, 'failed');
    });
  });
}
