/**
 * Money a shopper paid after Kassa ended the payment (docs/acquirers.md "Money paid after Kassa
 * gave up"), on SQLite and PostgreSQL: in test mode the test helper plays the bank's late word
 * (`POST /test/complete` with `success` on an ended payment) and the simulated acquirer gives the
 * money back; live, a card payment the customer cancelled whose AUTHORISATION comes after is given
 * back through Adyen's Classic `/cancelOrRefund` (the stand-in checks it against Adyen's document),
 * finished by Adyen's CANCEL_OR_REFUND. The test helper completes only payments of the simulator.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { api, backends, cardPayment, suiteApp, type MerchantApi } from '../support/app.ts';
import { deliveriesFor, waitFor } from '../events/support.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { adyenWordsOf, signedNotification } from './signed-notification.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { ensurePaymentPage } from '../../src/store/payment-pages.ts';
import { randomBase62 } from '../../src/lib/tokens.ts';
import { findAcquirerClaim } from '../../src/store/acquirer-claims.ts';
import { expireDuePayments } from '../../src/payments/jobs/expiry.ts';
import { recoverAcquirerClaims } from '../../src/payments/jobs/acquirer-recovery.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { settleByAcquirer } from '../../src/payments/operations/settle-by-acquirer.ts';
import type { Context } from '../../src/payments/runner/operation.ts';
import { run } from '../../src/payments/runner/run.ts';

const skip = needs(adyenContractMissing);
const HMAC_KEY = randomBytes(32).toString('hex');

for (const backend of backends) {
  describe(`money paid after Kassa ended the payment (${backend})`, { skip }, () => {
    const t = suiteApp(backend, { ACQUIRER_TIMEOUT: 'PT1S', ACQUIRER_RECOVERY_AFTER: 'PT5M' });
    let adyen: FakeAdyen;
    let live: MerchantApi;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'live', hmacKey: HMAC_KEY });
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
      live = api(t.app, t.merchant.liveApiKey);
    });
    after(async () => {
      assert.deepEqual(adyen?.violations ?? [], [], "no request breaks Adyen's contract");
      await adyen?.close();
    });

    /** A signed Adyen item for a live payment of the suite's merchant. */
    async function notify(item: Record<string, unknown>) {
      const full = { merchantAccountCode: 'ShopNL', success: 'true', ...item };
      const answer = await t.app.inject({
        method: 'POST',
        url: '/acquirer/adyen/notifications',
        payload: { live: 'true', notificationItems: [signedNotification(full, HMAC_KEY)] },
      });
      assert.equal(answer.body, '[accepted]');
    }
    const newPsp = () => `PSP${randomBytes(6).toString('hex').toUpperCase()}`;
    const asks = (reference: string) => adyen.requests.filter((r) => r.path === '/cancelOrRefund' && r.body.reference === reference);
    const read = async (client: MerchantApi, reference: string) => (await client.get(`/transaction?reference=${reference}`)).json();
    const causes = async (reference: string) => (await eventsOf(t.store.read, reference)).map((e) => e.cause);
    const webhooks = async (reference: string) => (await deliveriesFor(t.store, reference)).map((d) => d.event);

    test('test mode: /test/complete success on an expired iDEAL payment plays the late payment; the simulator gives it back; once only', async () => {
      const created = (await t.client.post('/payment', { amount: '25.00', currency: 'EUR', method: 'ideal', returnUrl: 'https://shop.example/r' })).json();
      await expireDuePayments(t.app.ports, Date.now() + 3600_000);
      assert.equal((await read(t.client, created.reference)).failureCode, 'expired');

      const played = await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      assert.equal(played.statusCode, 200, played.body);
      assert.equal(played.json().status, 'failed', 'a final state never changes');
      assert.ok(['returning', 'returned'].includes(played.json().details.latePayment.status));
      const returned = await waitFor('the money given back', async () => {
        const now = await read(t.client, created.reference);
        return now.details.latePayment.status === 'returned' && now;
      });
      assert.equal(returned.details.latePayment.amount, 25);
      assert.deepEqual((await causes(created.reference)).slice(-2), ['acquirer_paid_late', 'late_payment_returned']);
      assert.deepEqual(await webhooks(created.reference), ['failed/expired', 'failed/expired', 'failed/expired']);
      assert.equal(await findAcquirerClaim(t.store.read, created.reference), undefined, 'the claim ended with the answer');

      const again = await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      assert.equal(again.statusCode, 409, 'paid late once');
      const failedAgain = await t.client.post('/test/complete', { reference: created.reference, outcome: 'failed' });
      assert.equal(failedAgain.statusCode, 409);
    });

    test('test mode: a card payment the customer cancelled, authorised after all, is given back too', async () => {
      const created = (await t.client.post('/payment', cardPayment({ amount: '12.00', transactionType: 'authorise' }))).json();
      assert.equal((await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname })).statusCode, 200);
      const played = await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      assert.equal(played.statusCode, 200, played.body);
      await waitFor('the money given back', async () => (await read(t.client, created.reference)).details.latePayment?.status === 'returned');
      assert.equal((await t.client.post('/capture', { reference: created.reference })).statusCode, 422, 'nothing to capture on a failed payment');
    });

    test('live: a card AUTHORISATION after the customer cancelled is cancelled-or-refunded at Adyen at once; CANCEL_OR_REFUND finishes it', async () => {
      const created = (await live.post('/payment', cardPayment({ amount: '40.00' }))).json();
      assert.equal((await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname })).statusCode, 200);
      const psp = newPsp();
      const word = { merchantReference: created.reference, amount: { value: 4000, currency: 'EUR' } };
      await notify({ ...word, eventCode: 'AUTHORISATION', pspReference: psp });
      const sent = await waitFor('the cancel-or-refund', () => adyen.requests.find((r) => r.path === '/cancelOrRefund' && r.body.reference === created.reference));
      assert.deepEqual(sent.body, { merchantAccount: 'ShopNL', originalReference: psp, reference: created.reference });
      assert.equal(sent.idempotencyKey, `${created.reference}:cancelOrRefund`);
      await waitFor('the claim answered', async () => (await findAcquirerClaim(t.store.read, created.reference)) === undefined);
      assert.equal((await read(live, created.reference)).details.latePayment.status, 'returning', 'Adyen took it: done once its notification says so');

      await notify({ ...word, eventCode: 'CANCEL_OR_REFUND', pspReference: newPsp(), originalReference: psp });
      const done = await read(live, created.reference);
      assert.deepEqual([done.status, done.failureCode, done.details.latePayment], ['failed', 'cancelled', { status: 'returned', amount: 40 }]);
      assert.deepEqual(await webhooks(created.reference), ['failed/cancelled', 'failed/cancelled', 'failed/cancelled']);
    });

    test('live: a late AUTHORISATION of another amount is no late payment of this one: nothing is asked of Adyen', async () => {
      const created = (await live.post('/payment', cardPayment({ amount: '41.00' }))).json();
      assert.equal((await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname })).statusCode, 200);
      await notify({ eventCode: 'AUTHORISATION', pspReference: newPsp(), merchantReference: created.reference, amount: { value: 50, currency: 'EUR' } });
      assert.equal((await read(live, created.reference)).details.latePayment, undefined);
      assert.deepEqual((await causes(created.reference)).slice(-1), ['acquirer_word_mismatch']);
      assert.equal(await findAcquirerClaim(t.store.read, created.reference), undefined);
    });

    test('live: no answer to the cancel-or-refund: the claim stays, and the recovery job asks again with the same key', async () => {
      const created = (await live.post('/payment', cardPayment({ amount: '42.00' }))).json();
      await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname });
      adyen.beforeModification = () => sleep(1500);
      try {
        await notify({ eventCode: 'AUTHORISATION', pspReference: newPsp(), merchantReference: created.reference, amount: { value: 4200, currency: 'EUR' } });
        await waitFor('the first ask', () => asks(created.reference).length === 1);
        await sleep(1200);
      } finally {
        adyen.beforeModification = undefined;
      }
      assert.ok(await findAcquirerClaim(t.store.read, created.reference), 'no answer: the claim stays');
      assert.equal((await read(live, created.reference)).details.latePayment.status, 'returning');
      const errors: unknown[] = [];
      await recoverAcquirerClaims(t.app.ports, (error) => errors.push(error), Date.now() + 10 * 60_000);
      assert.deepEqual(errors, []);
      const [first, second] = asks(created.reference);
      assert.equal(second?.idempotencyKey, first!.idempotencyKey, 'asked again with the same key');
      assert.equal(await findAcquirerClaim(t.store.read, created.reference), undefined, 'answered: the claim ended');
    });

    test('live: two late AUTHORISATIONs of one ended payment at once: it is given back once', async () => {
      for (let i = 0; i < 5; i++) {
        const created = (await live.post('/payment', cardPayment({ amount: '43.00' }))).json();
        await t.app.inject({ method: 'POST', url: new URL(created.cancelUrl).pathname });
        const word = { eventCode: 'AUTHORISATION', merchantReference: created.reference, amount: { value: 4300, currency: 'EUR' } };
        await Promise.all([notify({ ...word, pspReference: newPsp() }), notify({ ...word, pspReference: newPsp() }), notify({ ...word, pspReference: newPsp() })]);
        await waitFor('the ask', () => asks(created.reference).length > 0);
        await sleep(50);
        assert.equal(asks(created.reference).length, 1);
        assert.equal((await causes(created.reference)).filter((cause) => cause === 'acquirer_paid_late').length, 1);
      }
    });

    test('live: a payment that expires between the AUTHORISATION being read and applied: nothing kept, and its resend gives the money back', async () => {
      const created = (await live.post('/payment', cardPayment({ amount: '44.00' }))).json();
      // Left pending at a method elsewhere is what waits for this word; a card payment whose authorisation is in flight does likewise (its page row made by its card post).
      await t.store.transact(async (tx) => {
        await ensurePaymentPage(tx, created.reference, randomBase62(32), Date.now());
        await tx
          .updateTable('payment_pages')
          .set({ authorisation_in_flight: `${created.reference}:attempt-1` })
          .where('reference', '=', created.reference)
          .execute();
      });
      const item = {
        eventCode: 'AUTHORISATION',
        pspReference: newPsp(),
        merchantReference: created.reference,
        merchantAccountCode: 'ShopNL',
        amount: { value: 4400, currency: 'EUR' },
        success: 'true',
      };
      const payload = { live: 'true', notificationItems: [signedNotification(item, HMAC_KEY)] };
      const words = await adyenWordsOf(t.store, payload);
      const ctx: Context<undefined> = { ports: t.app.ports, caller: undefined, now: Date.now(), log: { error: () => {} } };
      const word = words[0]!;
      // Read and decided while pending...
      const plan = settleByAcquirer.decide(await settleByAcquirer.load(word, ctx), word, ctx);
      // ...then the payment ends before the unit of work (its authorisation written off, then expired).
      await t.store.transact((tx) => tx.updateTable('payment_pages').set({ authorisation_in_flight: null }).where('reference', '=', created.reference).execute());
      await expireDuePayments(t.app.ports, Date.now() + 3600_000);
      assert.equal((await read(live, created.reference)).status, 'failed');
      await assert.rejects(
        t.store.transact((tx) => settleByAcquirer.commit(tx, plan, ctx)),
        (error: { status?: number }) => error.status === 409,
      );
      assert.equal((await read(live, created.reference)).details.latePayment, undefined, 'nothing kept of the item');
      // Adyen sends it again: now it is money paid late.
      await run(settleByAcquirer, word, ctx);
      await waitFor('the cancel-or-refund', () => asks(created.reference).length === 1);
    });

    test('the test helper completes only payments of the simulated acquirer: a test mode connected to Adyen is 409, the payment unchanged', async () => {
      const connected = await createMerchant(t.store, 'Adyen Test Shop');
      await connectToFake(t.store, adyen, { merchantId: connected.merchantId, mode: 'test', hmacKey: HMAC_KEY });
      const client = api(t.app, connected.testApiKey);
      const created = (await client.post('/payment', cardPayment({ amount: '500.00' }))).json();
      const answer = await client.post('/test/complete', { reference: created.reference, outcome: 'success' });
      assert.equal(answer.statusCode, 409, answer.body);
      assert.match(answer.json().detail, /the test helper completes only payments of the simulated acquirer/);
      assert.equal((await read(client, created.reference)).status, 'pending');
    });
  });
}
