/**
 * Acquirer claims (docs/acquirers.md "Claims and leases"), on SQLite and PostgreSQL, with a
 * test-mode merchant connected to the Adyen stand-in (adyen-fake.ts), whose received `/capture`
 * and `/cancel` calls are counted: captures and reversals sent together reach Adyen once per
 * authorisation (two-way and three-way races, captures of different amounts); a capture or refund
 * with no answer is asked again by the recovery job with the same key and amount, a retry with its
 * Idempotency-Reference gets 409 during the claim's lease and then the outcome; one still without
 * an answer is left to an operator, shown in the console and resolved there; a reversal without
 * one is asked again RECOVERY_ASKS times, then held for an operator likewise (or settled
 * by its CANCELLATION notification); an idempotency record whose operation is unfinished is not purged.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { ConsoleClient, makeAccount } from '../console/support.ts';
import { signedNotification } from './signed-notification.ts';
import { recoverAcquirerClaims } from '../../src/payments/jobs/acquirer-recovery.ts';
import { RECOVERY_ASKS } from '../../src/payments/follow-ups/claims.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { deliveriesFor } from '../events/support.ts';
import { run } from '../../src/payments/runner/run.ts';
import { resolve } from '../../src/payments/operations/resolve.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { deleteExpiredRecords } from '../../src/store/idempotency-records.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';

const HMAC_KEY = randomBytes(32).toString('hex');
const AFTER_MS = 5 * 60_000;
const TWO_WAY_RACES = 20;
const THREE_WAY_RACES = 12;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const skip = needs(adyenContractMissing);

for (const backend of backends) {
  describe(`acquirer claims: one action per authorisation, finished after a crash (${backend})`, { skip }, () => {
    const t = suiteApp(backend, { ACQUIRER_TIMEOUT: 'PT1S', ACQUIRER_RECOVERY_AFTER: 'PT5M' });
    let adyen: FakeAdyen;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'test', hmacKey: HMAC_KEY });
    });
    after(() => adyen.close());

    const errors: unknown[] = [];
    /** One run of the recovery job once the claims' lease (ACQUIRER_RECOVERY_AFTER) has run out. */
    const recover = () => recoverAcquirerClaims(t.app.ports, (error) => errors.push(error), Date.now() + AFTER_MS + 1000);
    const ports = () => t.app.ports;

    /** A card payment paid on its page through Adyen; returns its reference and Adyen's pspReference. */
    async function paid(overrides: Record<string, unknown>) {
      const payment = (await t.client.post('/payment', cardPayment(overrides))).json() as { reference: string; payUrl: string };
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      assert.equal((await postForm(t.app, `${path}/card`, { csrf, ...card() })).statusCode, 303);
      return { reference: payment.reference, psp: adyen.authorisations.get(payment.reference)!.pspReference };
    }
    /** The modifications Adyen received for the authorisation, by path. */
    const modificationsOf = (psp: string, paths = ['/capture', '/cancel']) => adyen.requests.filter((r) => paths.includes(r.path) && r.body.originalReference === psp);
    const transaction = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();

    function notify(item: Record<string, unknown>) {
      const notificationItems = [signedNotification({ merchantAccountCode: 'ShopNL', eventDate: new Date().toISOString(), success: 'true', ...item }, HMAC_KEY)];
      return t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload: { live: 'false', notificationItems } });
    }

    /** Sends the requests at once to an authorisation and checks that exactly one reached Adyen, and that the authorisation shows it. */
    async function race(requests: { path: '/capture' | '/reversal'; amount?: string }[]) {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      const answers = await Promise.all(requests.map(({ path, amount }) => t.client.post(path, amount === undefined ? { reference } : { reference, amount })));
      const sent = modificationsOf(psp);
      assert.equal(sent.length, 1, `one acquirer action for ${reference}: ${sent.map((r) => r.path).join(', ')}`);
      const won = answers.filter((answer) => answer.statusCode === 200);
      assert.equal(won.length, 1, answers.map((answer) => answer.body).join('\n'));
      for (const lost of answers.filter((answer) => answer.statusCode !== 200)) {
        assert.ok([409, 422].includes(lost.statusCode), lost.body);
        if (lost.statusCode === 409) assert.ok(lost.headers['retry-after'], 'a 409 says when to read again');
      }
      const authorisation = await transaction(reference);
      const [winner] = sent;
      if (winner.path === '/capture') {
        const capture = won[0].json();
        assert.equal(authorisation.details.captureStatus, 'captured');
        assert.equal(authorisation.details.captureReference, capture.reference);
        assert.equal(winner.idempotencyKey, `${capture.reference}:capture`);
        assert.equal(winner.body.modificationAmount && (winner.body.modificationAmount as { value: number }).value, Math.round(capture.amount * 100));
      } else assert.equal(authorisation.details.captureStatus, 'reversed');
      const children = await t.store.read.selectFrom('transactions').select('reference').where('parent_reference', '=', reference).execute();
      assert.equal(children.length, winner.path === '/capture' ? 1 : 0, 'a capture that lost the race made no transaction');
      return answers.filter((answer) => answer.statusCode === 409).length;
    }

    test(`${TWO_WAY_RACES} captures and reversals sent together: each authorisation reaches Adyen once`, async (context) => {
      // Adyen's answers take a while, as over a network: the requests overlap.
      adyen.beforeModification = () => sleep(30);
      let conflicts = 0;
      try {
        for (let i = 0; i < TWO_WAY_RACES; i++) conflicts += await race([{ path: '/capture', amount: '25.00' }, { path: '/reversal' }]);
      } finally {
        adyen.beforeModification = undefined;
      }
      assert.ok(conflicts > 0, 'some requests met a claim in flight (409)');
      context.diagnostic(`${TWO_WAY_RACES} races: ${conflicts} requests met a claim in flight (409)`);
      assert.deepEqual(adyen.violations, []);
    });

    test(`${THREE_WAY_RACES} three-way races, two captures of different amounts and a reversal: one acquirer action, one key for one amount`, async (context) => {
      adyen.beforeModification = () => sleep(30);
      let conflicts = 0;
      try {
        for (let i = 0; i < THREE_WAY_RACES; i++) {
          conflicts += await race([{ path: '/capture', amount: '10.00' }, { path: '/capture', amount: '20.00' }, { path: '/reversal' }]);
        }
        context.diagnostic(`${THREE_WAY_RACES} races: ${conflicts} requests met a claim in flight (409)`);
      } finally {
        adyen.beforeModification = undefined;
      }
      const keys = new Map<string, number>();
      for (const r of adyen.requests.filter((r) => r.path === '/capture')) {
        const amount = (r.body.modificationAmount as { value: number }).value;
        assert.equal(keys.get(r.idempotencyKey!) ?? amount, amount, `one Idempotency-Key, one amount: ${r.idempotencyKey}`);
        keys.set(r.idempotencyKey!, amount);
      }
    });

    test('a capture Adyen refuses gives the authorisation back: 422, its capture failed, and the next capture is made', async () => {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      adyen.beforeModification = () => ({ pspReference: 'REFUSED00000001', response: 'Refused' });
      let refused;
      try {
        refused = await t.client.post('/capture', { reference, amount: '25.00' });
      } finally {
        adyen.beforeModification = undefined;
      }
      assert.deepEqual([refused.statusCode, refused.json().title], [422, 'Refused by the acquirer'], refused.body);
      const failedCapture = modificationsOf(psp)[0]!.body.reference as string;
      assert.deepEqual([(await transaction(failedCapture)).status, (await transaction(reference)).details.captureStatus], ['failed', 'authorised']);
      const captured = await t.client.post('/capture', { reference, amount: '25.00' });
      assert.equal(captured.statusCode, 200, captured.body);
      assert.notEqual(captured.json().reference, failedCapture, 'a capture of its own, with its own key');
      assert.equal((await transaction(reference)).details.captureReference, captured.json().reference);
    });

    test('a capture with no answer: 503, 409 for its retry and for any other action meanwhile, then finished by the recovery job with the same key and amount', async () => {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      adyen.beforeModification = () => sleep(1500);
      const headers = { 'idempotency-reference': `slow-${reference}` };
      let first;
      try {
        first = await t.client.post('/capture', { reference, amount: '25.00' }, { headers });
      } finally {
        adyen.beforeModification = undefined;
      }
      assert.deepEqual([first.statusCode, first.json().title], [503, 'No answer from the acquirer'], first.body);
      const retry = await t.client.post('/capture', { reference, amount: '25.00' }, { headers });
      assert.deepEqual([retry.statusCode, retry.json().title], [409, 'Request in progress'], 'during the lease the retry waits');
      assert.equal((await t.client.post('/capture', { reference, amount: '30.00' })).statusCode, 409, 'another capture is refused');
      assert.equal((await t.client.post('/reversal', { reference })).statusCode, 409, 'and a reversal');
      assert.equal(modificationsOf(psp).length, 1, 'none of them reached Adyen');
      assert.equal((await transaction(reference)).details.captureStatus, 'authorised', 'a claim in flight is shown as authorised');

      assert.ok((await recover()).length > 0);
      const asked = modificationsOf(psp);
      assert.equal(asked.length, 2, 'the job asked again');
      assert.deepEqual(asked[1].idempotencyKey, asked[0].idempotencyKey);
      assert.deepEqual(asked[1].body, asked[0].body, 'the same capture, the same amount');
      const captureReference = asked[0].body.reference as string;
      const authorisation = await transaction(reference);
      assert.deepEqual([authorisation.details.captureStatus, authorisation.details.captureReference], ['captured', captureReference]);

      const answered = await t.client.post('/capture', { reference, amount: '25.00' }, { headers });
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal(answered.headers['idempotent-replayed'], 'true');
      assert.deepEqual([answered.json().reference, answered.json().status, answered.json().amount], [captureReference, 'pending', 25]);
      assert.equal(
        (
          await notify({
            eventCode: 'CAPTURE',
            pspReference: 'CAPSLOW',
            originalReference: psp,
            merchantReference: captureReference,
            amount: { value: 2500, currency: 'EUR' },
          })
        ).body,
        '[accepted]',
      );
      assert.equal((await t.client.post('/capture', { reference, amount: '25.00' }, { headers })).json().status, 'success');
      assert.ok(!(await recover()).includes(captureReference), 'the claim has ended');
      assert.equal(modificationsOf(psp).length, 2);
      assert.deepEqual(errors, []);
    });

    test('a refund the acquirer never answers is left to an operator: reserved meanwhile, shown in the console, resolved there with the sale’s refunded amount right', async () => {
      const { reference, psp } = await paid({ amount: '40.00' });
      adyen.beforeModification = () => sleep(1500);
      let pending;
      try {
        pending = (await t.client.post('/refund', { reference, amount: '15.00' })).json();
        assert.equal(pending.status, 'pending');
        await recover();
      } finally {
        adyen.beforeModification = undefined;
      }
      const asked = modificationsOf(psp, ['/refund']);
      assert.equal(asked.length, 2);
      assert.deepEqual([asked[1].idempotencyKey, asked[1].body], [`${pending.reference}:refund`, asked[0].body]);
      const held = await transaction(pending.reference);
      assert.equal(held.status, 'manualintervention');
      assert.deepEqual((await eventsOf(t.store.read, pending.reference)).map((e) => e.cause).slice(-1), ['acquirer_outcome_unknown']);
      const over = await t.client.post('/refund', { reference, amount: '25.01' });
      assert.equal(over.json().errors?.[0].code, 'exceeds_refundable', 'its amount stays reserved');

      await makeAccount(t.store, `claims-${backend}@kassa.test`);
      const operator = new ConsoleClient(t.app);
      await operator.signIn(`claims-${backend}@kassa.test`);
      const page = await operator.get(`/dashboard/payments/${pending.reference}`);
      assert.equal(page.statusCode, 200);
      // The status and the cause in the console's words (en): manualintervention, acquirer_outcome_unknown.
      assert.match(page.body, /Held for review/);
      assert.match(page.body, /No outcome from the acquirer/);
      assert.match(page.body, /resolve-outcome/, 'the console offers to resolve it');
      const csrf = await operator.csrf();
      const resolved = await operator.post(`/dashboard/payments/${pending.reference}/resolve`, {
        csrf,
        outcome: 'success',
        reason: 'Adyen says refunded',
        confirmed: 'yes',
      });
      assert.equal(resolved.statusCode, 303, resolved.body);
      assert.equal((await transaction(pending.reference)).status, 'success');
      assert.equal((await transaction(reference)).details.refundedAmount, 15);

      // One resolved failed gives its amount back.
      adyen.beforeModification = () => sleep(1500);
      let second;
      try {
        second = (await t.client.post('/refund', { reference, amount: '5.00' })).json();
        await recover();
      } finally {
        adyen.beforeModification = undefined;
      }
      assert.equal((await transaction(second.reference)).status, 'manualintervention');
      const failed = await run(resolve, { reference: second.reference, outcome: 'failed' }, { ports: ports(), caller: undefined, now: Date.now(), log: console });
      assert.equal(failed.status, 'failed');
      assert.equal((await t.client.post('/refund', { reference, amount: '25.00' })).statusCode, 200, 'the rest is refundable again');
      assert.equal((await transaction(reference)).details.refundedAmount, 15);
      assert.deepEqual(errors, []);
    });

    test('a refund left to an operator is settled by Adyen’s REFUND notification when it comes', async () => {
      const { reference, psp } = await paid({ amount: '40.00' });
      adyen.beforeModification = () => sleep(1500);
      let held;
      try {
        held = (await t.client.post('/refund', { reference, amount: '12.00' })).json();
        await recover();
      } finally {
        adyen.beforeModification = undefined;
      }
      assert.equal((await transaction(held.reference)).status, 'manualintervention');
      const item = { eventCode: 'REFUND', pspReference: 'REFHELD', originalReference: psp, merchantReference: held.reference, amount: { value: 1200, currency: 'EUR' } };
      assert.equal((await notify(item)).body, '[accepted]');
      assert.equal((await transaction(held.reference)).status, 'success');
      assert.equal((await transaction(reference)).details.refundedAmount, 12);
    });

    /** A reversal of a fresh authorisation that Adyen never answers (a 5xx every time), and the recovery job run until it gives up; returns how often Adyen was asked. */
    async function unansweredReversal() {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      adyen.beforeModification = () => {
        throw new Error('Adyen is down');
      };
      try {
        const first = await t.client.post('/reversal', { reference });
        assert.deepEqual([first.statusCode, first.json().title], [503, 'No answer from the acquirer'], first.body);
        // Each run once the claim is due again (ACQUIRER_RECOVERY_INTERVAL after the last), and one more than it takes.
        let at = Date.now() + AFTER_MS + 1000;
        for (let run = 0; run <= RECOVERY_ASKS; run++) {
          await recoverAcquirerClaims(ports(), (error) => errors.push(error), at);
          at += t.config.acquirerRecoveryIntervalMs + 1;
        }
      } finally {
        adyen.beforeModification = undefined;
      }
      return { reference, psp, asked: modificationsOf(psp, ['/cancel']) };
    }

    test(`a reversal Adyen never answers is asked again ${RECOVERY_ASKS} times with its key, then held for an operator: the merchant and the console see it, the operator resolves it`, async () => {
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
      const { reference, asked } = await unansweredReversal();
      assert.equal(asked.length, 1 + RECOVERY_ASKS, 'the request, then the recovery job, and then no more');
      assert.deepEqual(new Set(asked.map((r) => r.idempotencyKey)).size, 1, 'one key for every ask');
      const held = await transaction(reference);
      assert.deepEqual([held.status, held.details.captureStatus, held.details.acquirerOutcomeUnknown], ['success', 'authorised', 'reversal']);
      assert.deepEqual((await eventsOf(t.store.read, reference)).map((e) => e.cause).slice(-1), ['acquirer_outcome_unknown']);
      assert.equal((await deliveriesFor(t.store, reference)).length, 2, 'the merchant is told (the payment, then the hold)');
      assert.ok(!(await t.store.read.selectFrom('acquirer_claims').select('reference').where('reference', '=', reference).executeTakeFirst()), 'its claim ended');
      const capture = await t.client.post('/capture', { reference });
      assert.deepEqual(
        [capture.statusCode, capture.json().detail],
        [409, 'The acquirer never answered the reversal of this authorisation: it is held for an operator, who resolves it.'],
      );
      assert.equal((await t.client.post('/reversal', { reference })).statusCode, 409);

      await makeAccount(t.store, `reversal-${backend}@kassa.test`);
      const operator = new ConsoleClient(t.app);
      await operator.signIn(`reversal-${backend}@kassa.test`);
      const page = await operator.get(`/dashboard/payments/${reference}`);
      assert.match(page.body, /Reversal held for review/);
      assert.match(page.body, /No outcome from the acquirer/);
      assert.match(page.body, /resolve-outcome/, 'the console offers to resolve it');
      const csrf = await operator.csrf();
      const resolved = await operator.post(`/dashboard/payments/${reference}/resolve`, { csrf, outcome: 'failed', reason: 'Adyen still holds it', confirmed: 'yes' });
      assert.equal(resolved.statusCode, 303, resolved.body);
      const authorised = await transaction(reference);
      assert.deepEqual([authorised.status, authorised.details.captureStatus, authorised.details.acquirerOutcomeUnknown], ['success', 'authorised', undefined]);
      assert.deepEqual((await eventsOf(t.store.read, reference)).map((e) => e.cause).slice(-1), ['operator_resolved']);
      assert.equal((await t.client.post('/capture', { reference })).statusCode, 200, 'the held amount can be captured again');
      assert.deepEqual(errors, []);
    });

    test('a reversal held for an operator is settled by Adyen’s CANCELLATION notification when it comes; an operator resolves it as reversed', async () => {
      const done = await unansweredReversal();
      assert.equal((await transaction(done.reference)).details.acquirerOutcomeUnknown, 'reversal');
      const item = {
        eventCode: 'CANCELLATION',
        pspReference: `CAN${done.psp}`,
        originalReference: done.psp,
        merchantReference: done.reference,
        amount: { value: 4000, currency: 'EUR' },
      };
      assert.equal((await notify(item)).body, '[accepted]');
      const reversed = await transaction(done.reference);
      assert.deepEqual([reversed.details.captureStatus, reversed.details.acquirerOutcomeUnknown], ['reversed', undefined]);

      const resolved = await unansweredReversal();
      const answer = await run(resolve, { reference: resolved.reference, outcome: 'success' }, { ports: ports(), caller: undefined, now: Date.now(), log: console });
      assert.deepEqual([answer.status, JSON.parse(answer.details).captureStatus], ['success', 'reversed']);
      assert.deepEqual(errors, []);
    });

    test('an idempotency record whose capture is unfinished is not purged; once the capture is settled it is', async () => {
      const { reference, psp } = await paid({ transactionType: 'authorise', amount: '40.00' });
      const idempotencyReference = `purge-${reference}`;
      adyen.beforeModification = () => sleep(1500);
      try {
        assert.equal((await t.client.post('/capture', { reference }, { headers: { 'idempotency-reference': idempotencyReference } })).statusCode, 503);
      } finally {
        adyen.beforeModification = undefined;
      }
      const record = () =>
        t.store.read
          .selectFrom('idempotency_records')
          .select(['status_code', 'transaction_reference'])
          .where('idempotency_reference', '=', idempotencyReference)
          .executeTakeFirst();
      const held = await record();
      assert.equal(held?.status_code, null);
      const purge = () => t.store.transact((tx) => deleteExpiredRecords(tx, Date.now() + 48 * 3600_000, 1000));
      await purge();
      assert.ok(await record(), 'kept while its claim is open');
      await recover();
      await purge();
      assert.ok(await record(), 'kept while its capture is pending (Adyen took it, its notification is to come)');
      await notify({
        eventCode: 'CAPTURE',
        pspReference: 'CAPPURGE',
        originalReference: psp,
        merchantReference: held!.transaction_reference,
        amount: { value: 4000, currency: 'EUR' },
      });
      await purge();
      assert.equal(await record(), undefined, 'purged once settled');
    });
  });
}
