/**
 * A chargeback's whole life through Adyen's signed notifications (docs/disputes.md), on SQLite and
 * PostgreSQL, with a test-mode merchant connected to the Adyen stand-in (adyen-fake.ts): the first
 * stage opens a dispute transaction of its own (`type: chargeback`, its parent the payment), each
 * later stage moves the same one forward with its merchant webhook, a stage sent again or late
 * moves nothing and sends nothing, what only informs goes on the dispute's timeline, the payment
 * keeps its status and lists its disputes; a dispute the acquirer took beyond what is left of the
 * payment (its refunds and other disputes counted) is kept on the timeline for an operator, not
 * counted, one after the other or at once. The merchant accepts or defends a dispute through Adyen's
 * Disputes API (its stand-in: adyen-disputes-fake.ts, validating each request against DisputeService-v30.json).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backends, cardPayment, suiteApp, type TestApp } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { deliveriesFor } from '../events/support.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { adyenDisputeStages, adyenEvents } from '../../src/acquirer/adyen-notifications.ts';
import { signedNotification } from './signed-notification.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { canAdvance, disputeStages, stageHolds, stageStatus } from '../../src/ground/dispute-stages.ts';
import { claimsAgain, disputeRefusal, nextStage } from '../../src/payments/follow-ups/disputes.ts';
import { setAcquirerConnection } from '../../src/acquirer/connections.ts';
import { DISPUTES_CONTRACT, startFakeAdyenDisputes, type FakeAdyenDisputes } from './adyen-disputes-fake.ts';
import fs from 'node:fs';

const skip = needs(adyenContractMissing);
const HMAC_KEY = randomBytes(32).toString('hex');

describe('the stage table', () => {
  test("every dispute code of Adyen's table drives a stage or the dispute's timeline, and a fraud report is no dispute", () => {
    const disputeCodes = Object.entries(adyenEvents)
      .filter(([, event]) => event === 'dispute')
      .map(([code]) => code)
      .sort();
    assert.deepEqual(disputeCodes, Object.keys(adyenDisputeStages).sort());
    assert.equal(adyenEvents.NOTIFICATION_OF_FRAUD, 'notice');
  });

  const moves: [string, string, boolean][] = [
    ['notification', 'chargeback', true],
    ['chargeback', 'reversed', true],
    ['reversed', 'second_chargeback', true],
    ['reversed', 'prearbitration', true],
    ['prearbitration', 'prearbitration_won', true],
    ['prearbitration', 'prearbitration_lost', true],
    ['chargeback', 'accepted', true],
    ['chargeback', 'notification', false],
    ['reversed', 'chargeback', false],
    ['second_chargeback', 'reversed', false],
    ['prearbitration_won', 'prearbitration_lost', false],
    ['accepted', 'reversed', false],
    ['chargeback', 'chargeback', false],
  ];
  for (const [from, to, allowed] of moves) {
    test(`a dispute at ${from} ${allowed ? 'moves' : 'never moves'} to ${to}`, () => {
      assert.equal(canAdvance(from as never, to as never), allowed);
      assert.equal(nextStage(from as never, { stage: to as never }), allowed ? to : undefined);
    });
  }

  test('no stage can be reached again from a later one (the table has no cycle)', () => {
    const reachable = (from: string, seen = new Set<string>()): Set<string> => {
      for (const to of disputeStages.filter((stage) => canAdvance(from as never, stage))) if (!seen.has(to)) reachable(to, seen.add(to));
      return seen;
    };
    for (const stage of disputeStages) assert.ok(!reachable(stage).has(stage), stage);
  });

  test('the status says where the money is: pending undecided, success taken back, failed with the merchant', () => {
    assert.deepEqual(stageStatus, {
      notification: 'pending',
      chargeback: 'success',
      reversed: 'failed',
      second_chargeback: 'success',
      prearbitration: 'pending',
      prearbitration_won: 'failed',
      prearbitration_lost: 'success',
      accepted: 'success',
    });
  });

  test('open or standing holds the amount, reversed or won gives it back; only a dispute that gave it back claims it again', () => {
    assert.deepEqual(
      disputeStages.filter((stage) => !stageHolds[stage]),
      ['reversed', 'prearbitration_won'],
    );
    assert.deepEqual(
      disputeStages.flatMap((from) => disputeStages.filter((to) => canAdvance(from, to) && claimsAgain(from, to)).map((to) => `${from} → ${to}`)),
      ['reversed → second_chargeback', 'reversed → prearbitration', 'reversed → prearbitration_lost'],
    );
  });

  const refusals: [Record<string, unknown>, Record<string, unknown>, string | undefined][] = [
    [{ type: 'sale', amount_minor: 4000, currency: 'eur' }, { amountMinor: 4000, currency: 'EUR' }, undefined],
    [{ type: 'authorise', amount_minor: 4000, currency: 'eur' }, { amountMinor: 1000, currency: 'EUR' }, undefined],
    [{ type: 'sale', amount_minor: 4000, currency: 'eur' }, { amountMinor: 4001, currency: 'EUR' }, "the dispute's amount is more than the payment's"],
    [{ type: 'sale', amount_minor: 4000, currency: 'eur' }, { amountMinor: 4000, currency: 'USD' }, "the dispute's currency USD is not the payment's"],
    [{ type: 'sale', amount_minor: 4000, currency: 'eur' }, { amountMinor: undefined, currency: 'EUR' }, "the dispute's amount is not one Kassa can record"],
    [{ type: 'credit', amount_minor: 4000, currency: 'eur' }, { amountMinor: 100, currency: 'EUR' }, 'is a credit, not a payment'],
  ];
  for (const [payment, word, expected] of refusals) {
    test(`a dispute of ${JSON.stringify(word)} on ${JSON.stringify(payment)}: ${expected ?? 'recorded'}`, () => {
      assert.equal(disputeRefusal(payment as never, word as never), expected);
    });
  }
});

/** What each suite does with its app and the Adyen stand-in: signed dispute notifications, reads, the payment paid through Adyen. */
function helpers(t: TestApp, adyen: () => FakeAdyen) {
  let disputes = 0;
  const newDisputePsp = () => `PSPD${String(++disputes).padStart(12, '0')}`;

  /** One signed dispute item of `psp` (the dispute's own pspReference) on the payment, as Adyen sends it. */
  function notify(payment: { reference: string; psp: string }, item: { psp: string; eventCode: string; value?: number; currency?: string } & Record<string, unknown>) {
    const { psp, eventCode, value, currency, additionalData, ...rest } = item;
    const signed = {
      pspReference: psp,
      originalReference: payment.psp,
      merchantAccountCode: 'ShopNL',
      merchantReference: payment.reference,
      amount: { value: value ?? 4000, currency: currency ?? 'EUR' },
      eventCode,
      success: 'true',
      reason: 'Fraudulent Processing of Transactions',
      ...rest,
    };
    const data = { chargebackReasonCode: '10.4', chargebackSchemeCode: 'visa', ...(additionalData as object) };
    const notificationItems = [signedNotification(signed, HMAC_KEY, data)];
    return t.app.inject({ method: 'POST', url: '/acquirer/adyen/notifications', payload: { live: 'false', notificationItems } });
  }
  const accepted = async (sent: ReturnType<typeof notify>) => assert.equal((await sent).body, '[accepted]');

  const transaction = async (reference: string) => {
    const answer = await t.client.get(`/transaction?reference=${reference}`);
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json();
  };
  const webhooks = async (reference: string) =>
    (await deliveriesFor(t.store, reference)).sort((a, b) => a.created - b.created || a.id.localeCompare(b.id)).map((d) => d.event);
  const chargebacksOf = async (payment: string) =>
    (await t.store.read.selectFrom('transactions').select('reference').where('parent_reference', '=', payment).where('type', '=', 'chargeback').execute()).map(
      (r) => r.reference,
    );

  async function paid(amount = '40.00') {
    const payment = (await t.client.post('/payment', cardPayment({ amount }))).json() as { reference: string; payUrl: string };
    const { path: page, csrf } = await openPage(t.app, payment.payUrl);
    assert.equal((await postForm(t.app, `${page}/card`, { csrf, ...card() })).statusCode, 303);
    assert.equal((await transaction(payment.reference)).status, 'success');
    return { reference: payment.reference, psp: adyen().authorisations.get(payment.reference)!.pspReference };
  }
  return { notify, accepted, transaction, webhooks, chargebacksOf, newDisputePsp, paid };
}

for (const backend of backends) {
  describe(`a chargeback's life through Adyen's notifications (${backend})`, { skip }, () => {
    const t = suiteApp(backend);
    let adyen: FakeAdyen;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'test', hmacKey: HMAC_KEY });
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
    });
    after(async () => adyen.close());

    const { notify, accepted, transaction, webhooks, chargebacksOf, newDisputePsp, paid } = helpers(t, () => adyen);

    test('notification → chargeback → reversed: one dispute transaction moved forward, a webhook per stage, the payment untouched but listing it', async () => {
      const payment = await paid();
      const before = await transaction(payment.reference);
      const paymentHooks = await webhooks(payment.reference);
      const psp = newDisputePsp();

      await accepted(notify(payment, { psp, eventCode: 'NOTIFICATION_OF_CHARGEBACK', additionalData: { defensePeriodEndsAt: '2026-12-18T10:15:30+01:00' } }));
      const [reference] = await chargebacksOf(payment.reference);
      const opened = await transaction(reference);
      assert.deepEqual(
        [opened.type, opened.status, opened.parentReference, opened.amount, opened.currency, opened.method],
        ['chargeback', 'pending', payment.reference, 40, 'eur', before.method],
      );
      assert.deepEqual(opened.details, {
        stage: 'notification',
        reasonCode: '10.4',
        reason: 'Fraudulent Processing of Transactions',
        schemeCode: 'visa',
        defensePeriodEndsAt: '2026-12-18T10:15:30+01:00',
      });
      assert.equal(opened.payUrl, undefined, 'a dispute has no customer page');

      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK' }));
      const charged = await transaction(reference);
      assert.deepEqual([charged.status, charged.details.stage], ['success', 'chargeback']);
      assert.equal(charged.details.defensePeriodEndsAt, '2026-12-18T10:15:30+01:00', 'what an earlier stage said is kept');

      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK_REVERSED' }));
      const reversed = await transaction(reference);
      assert.deepEqual([reversed.status, reversed.details.stage], ['failed', 'reversed']);
      assert.equal(reversed.failureCode, undefined);

      assert.deepEqual(await chargebacksOf(payment.reference), [reference], 'still one dispute');
      assert.deepEqual(await webhooks(reference), ['chargeback/notification', 'chargeback/chargeback', 'chargeback/reversed']);
      const events = (await eventsOf(t.store.read, reference)).map((e) => [e.from_status, e.to_status, e.cause, e.detail]);
      assert.deepEqual(events, [
        [null, 'pending', 'acquirer_dispute', 'NOTIFICATION_OF_CHARGEBACK, 40 EUR: Fraudulent Processing of Transactions'],
        ['pending', 'success', 'acquirer_dispute', 'CHARGEBACK, 40 EUR: Fraudulent Processing of Transactions'],
        ['success', 'failed', 'acquirer_dispute', 'CHARGEBACK_REVERSED, 40 EUR: Fraudulent Processing of Transactions'],
      ]);

      const after = await transaction(payment.reference);
      assert.equal(after.status, 'success', 'the payment keeps its status');
      assert.deepEqual(after.details.disputes, [{ reference, stage: 'reversed', status: 'failed', amount: 40 }]);
      assert.deepEqual(await webhooks(payment.reference), paymentHooks, 'no webhook for the payment: its dispute has its own');
    });

    test('a reversed chargeback comes back as a second chargeback: success again, its webhook', async () => {
      const payment = await paid();
      const psp = newDisputePsp();
      for (const eventCode of ['CHARGEBACK', 'CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK']) await accepted(notify(payment, { psp, eventCode }));
      const [reference] = await chargebacksOf(payment.reference);
      const second = await transaction(reference);
      assert.deepEqual([second.status, second.details.stage], ['success', 'second_chargeback']);
      assert.deepEqual(await webhooks(reference), ['chargeback/chargeback', 'chargeback/reversed', 'chargeback/second_chargeback']);
    });

    for (const [end, stage, status] of [
      ['PREARBITRATION_WON', 'prearbitration_won', 'failed'],
      ['PREARBITRATION_LOST', 'prearbitration_lost', 'success'],
    ] as const) {
      test(`pre-arbitration after a reversal, ${end}: ${stage}, ${status}`, async () => {
        const payment = await paid('25.00');
        const psp = newDisputePsp();
        for (const eventCode of ['CHARGEBACK', 'CHARGEBACK_REVERSED', 'PREARBITRATION_OPEN']) await accepted(notify(payment, { psp, eventCode, value: 1500 }));
        const [reference] = await chargebacksOf(payment.reference);
        assert.deepEqual([(await transaction(reference)).status, (await transaction(reference)).details.stage], ['pending', 'prearbitration']);
        await accepted(notify(payment, { psp, eventCode: end, value: 1500 }));
        const ended = await transaction(reference);
        assert.deepEqual([ended.status, ended.details.stage, ended.amount], [status, stage, 15]);
        assert.deepEqual(await webhooks(reference), ['chargeback/chargeback', 'chargeback/reversed', 'chargeback/prearbitration', `chargeback/${stage}`]);
        assert.deepEqual((await transaction(payment.reference)).details.disputes, [{ reference, stage, status, amount: 15 }]);
      });
    }

    test('a stage sent again, or one that comes after a later one, moves nothing and sends nothing; it stays on the timeline', async () => {
      const payment = await paid();
      const psp = newDisputePsp();
      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK' }));
      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK' }));
      const [reference] = await chargebacksOf(payment.reference);
      assert.deepEqual(await webhooks(reference), ['chargeback/chargeback']);
      const eventCount = (await eventsOf(t.store.read, reference)).length;
      assert.equal(eventCount, 1, 'the same item again is not even kept');

      // The notification of the chargeback arrives after the chargeback itself.
      await accepted(notify(payment, { psp, eventCode: 'NOTIFICATION_OF_CHARGEBACK' }));
      const late = await transaction(reference);
      assert.deepEqual([late.status, late.details.stage], ['success', 'chargeback']);
      assert.deepEqual(await webhooks(reference), ['chargeback/chargeback']);
      const [entry] = (await eventsOf(t.store.read, reference)).slice(-1);
      assert.deepEqual(
        [entry.from_status, entry.to_status, entry.detail],
        ['success', 'success', 'NOTIFICATION_OF_CHARGEBACK, 40 EUR: Fraudulent Processing of Transactions'],
      );
      assert.deepEqual(await chargebacksOf(payment.reference), [reference]);
    });

    test("what only informs (defense period ended, issuer comments) goes on the dispute's timeline; a fraud report on the payment's, with no dispute", async () => {
      const payment = await paid();
      const psp = newDisputePsp();
      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK' }));
      const [reference] = await chargebacksOf(payment.reference);
      for (const eventCode of ['DISPUTE_DEFENSE_PERIOD_ENDED', 'ISSUER_COMMENTS', 'INFORMATION_SUPPLIED']) await accepted(notify(payment, { psp, eventCode }));
      const entries = (await eventsOf(t.store.read, reference)).slice(1).map((e) => [e.to_status, e.cause, e.detail!.split(',')[0]]);
      assert.deepEqual(entries, [
        ['success', 'acquirer_dispute', 'DISPUTE_DEFENSE_PERIOD_ENDED'],
        ['success', 'acquirer_dispute', 'ISSUER_COMMENTS'],
        ['success', 'acquirer_dispute', 'INFORMATION_SUPPLIED'],
      ]);
      assert.deepEqual(await webhooks(reference), ['chargeback/chargeback']);

      const reported = await paid();
      await accepted(notify(reported, { psp: newDisputePsp(), eventCode: 'NOTIFICATION_OF_FRAUD' }));
      assert.deepEqual(await chargebacksOf(reported.reference), []);
      const [fraud] = (await eventsOf(t.store.read, reported.reference)).slice(-1);
      assert.deepEqual([fraud.cause, fraud.detail!.split(',')[0]], ['acquirer_notice', 'NOTIFICATION_OF_FRAUD']);
      assert.equal((await transaction(reported.reference)).details.disputes, undefined);
    });

    test('two disputes of one payment are two transactions, both listed; one of more than was paid is not recorded', async () => {
      const payment = await paid();
      await accepted(notify(payment, { psp: newDisputePsp(), eventCode: 'CHARGEBACK', value: 1000 }));
      await accepted(notify(payment, { psp: newDisputePsp(), eventCode: 'REQUEST_FOR_INFORMATION', value: 2000 }));
      await accepted(notify(payment, { psp: newDisputePsp(), eventCode: 'CHARGEBACK', value: 4001 }));
      const references = await chargebacksOf(payment.reference);
      assert.equal(references.length, 2);
      const listed = (await transaction(payment.reference)).details.disputes as { reference: string; stage: string; amount: number }[];
      assert.deepEqual(
        listed.map((d) => [d.stage, d.amount]),
        [
          ['chargeback', 10],
          ['notification', 20],
        ],
      );
      assert.deepEqual(listed.map((d) => d.reference).sort(), [...references].sort());
    });

    /** The payment's timeline entries of disputes Kassa did not count, as [event code, its detail after the code]. */
    const notCounted = async (reference: string) => (await eventsOf(t.store.read, reference)).filter((e) => e.cause === 'dispute_not_counted').map((e) => e.detail!);

    test('two CHARGEBACKs of 30.00 on 50.00 (two disputes): the second is kept on the payment’s timeline for an operator, not counted', async () => {
      const payment = await paid('50.00');
      const [first, second] = [newDisputePsp(), newDisputePsp()];
      await accepted(notify(payment, { psp: first, eventCode: 'CHARGEBACK', value: 3000 }));
      await accepted(notify(payment, { psp: second, eventCode: 'CHARGEBACK', value: 3000 }));
      const [reference] = await chargebacksOf(payment.reference);
      assert.equal((await chargebacksOf(payment.reference)).length, 1);
      assert.deepEqual((await transaction(payment.reference)).details.disputes, [{ reference, stage: 'chargeback', status: 'success', amount: 30 }]);
      assert.deepEqual(await notCounted(payment.reference), [
        `CHARGEBACK, 30 EUR: Fraudulent Processing of Transactions (the acquirer's dispute ${second}), not counted: the dispute's 30 is more than the 20 left of what was paid (50 paid, 0 refunded, 30 held by disputes)`,
      ]);
      assert.equal((await transaction(payment.reference)).status, 'success');
      // Its later stages are not counted either while nothing is left; the first dispute's still move it.
      await accepted(notify(payment, { psp: second, eventCode: 'SECOND_CHARGEBACK', value: 3000 }));
      assert.equal((await notCounted(payment.reference)).length, 2);
      await accepted(notify(payment, { psp: first, eventCode: 'CHARGEBACK_REVERSED', value: 3000 }));
      assert.equal((await transaction(reference)).details.stage, 'reversed');
    });

    test('a full refund, then a full CHARGEBACK: kept for an operator, not counted; a refund after a full CHARGEBACK is refused', async () => {
      const refunded = await paid('50.00');
      const refund = await t.client.post('/refund', { reference: refunded.reference });
      assert.equal(refund.statusCode, 200, refund.body);
      await accepted(notify(refunded, { psp: newDisputePsp(), eventCode: 'CHARGEBACK', value: 5000 }));
      assert.deepEqual(await chargebacksOf(refunded.reference), []);
      assert.deepEqual(
        (await notCounted(refunded.reference)).map((detail) => detail.split('not counted: ')[1]),
        ["the dispute's 50 is more than the 0 left of what was paid (50 paid, 50 refunded, 0 held by disputes)"],
      );

      const charged = await paid('50.00');
      await accepted(notify(charged, { psp: newDisputePsp(), eventCode: 'CHARGEBACK', value: 5000 }));
      const refused = await t.client.post('/refund', { reference: charged.reference, amount: '1.00' });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual([refused.json().errors[0].field, refused.json().errors[0].code], ['/reference', 'charged_back']);
    });

    test('a reversed chargeback refunded meanwhile, then charged back again: the second chargeback stays on the dispute’s timeline, not counted', async () => {
      const payment = await paid('50.00');
      const psp = newDisputePsp();
      for (const eventCode of ['CHARGEBACK', 'CHARGEBACK_REVERSED']) await accepted(notify(payment, { psp, eventCode, value: 5000 }));
      assert.equal((await t.client.post('/refund', { reference: payment.reference, amount: '10.00' })).statusCode, 200);
      await accepted(notify(payment, { psp, eventCode: 'SECOND_CHARGEBACK', value: 5000 }));
      const [reference] = await chargebacksOf(payment.reference);
      assert.deepEqual([(await transaction(reference)).details.stage, await webhooks(reference)], ['reversed', ['chargeback/chargeback', 'chargeback/reversed']]);
      assert.deepEqual(
        (await notCounted(reference)).map((detail) => detail.split('not counted: ')[1]),
        ["its move to second_chargeback: the dispute's 50 is more than the 40 left of what was paid (50 paid, 10 refunded, 0 held by disputes)"],
      );
    });

    test('CHARGEBACKs of 30.00 on 50.00 arriving at once (two disputes each, 10 payments): one counted, the other kept for an operator', async () => {
      const payments = await Promise.all(Array.from({ length: 10 }, () => paid('50.00')));
      await Promise.all(payments.flatMap((payment) => [1, 2].map(() => accepted(notify(payment, { psp: newDisputePsp(), eventCode: 'CHARGEBACK', value: 3000 })))));
      for (const payment of payments) {
        assert.deepEqual([(await chargebacksOf(payment.reference)).length, (await notCounted(payment.reference)).length], [1, 1], payment.reference);
      }
    });

    test("without the connection's Disputes API, accepting or defending is 503 and changes nothing: it is done at Adyen", async () => {
      const payment = await paid();
      await accepted(notify(payment, { psp: newDisputePsp(), eventCode: 'CHARGEBACK' }));
      const [reference] = await chargebacksOf(payment.reference);
      for (const [route, body] of [
        ['/dispute/accept', { reference }],
        ['/dispute/defend', { reference, defenseReasonCode: 'GoodsOrServicesProvided' }],
      ] as const) {
        const answer = await t.client.post(route, body);
        assert.equal(answer.statusCode, 503, answer.body);
        assert.equal(answer.json().title, 'Disputes not connected');
      }
      assert.equal((await transaction(reference)).details.stage, 'chargeback');
      const moved = await t.client.post('/test/dispute', { reference, stage: 'reversed' });
      assert.equal(moved.statusCode, 409, "the test helper moves its own disputes only, never an acquirer's");
      assert.match(moved.json().detail, /only its acquirer's notifications move it/);
    });

    test('a dispute is no payment: it cannot be refunded, and the payment read by references lists it like any transaction', async () => {
      const payment = await paid();
      await accepted(notify(payment, { psp: newDisputePsp(), eventCode: 'CHARGEBACK' }));
      const [reference] = await chargebacksOf(payment.reference);
      const refund = await t.client.post('/refund', { reference });
      assert.equal(refund.statusCode, 422);
      assert.equal(refund.json().errors[0].code, 'not_payment');
      const listed = await t.client.get(`/transaction?references=${payment.reference},${reference}`);
      assert.deepEqual(
        (listed.json() as { type: string }[]).map((row) => row.type),
        ['sale', 'chargeback'],
      );
    });
  });
}

const disputesContractMissing = adyenContractMissing ?? (fs.existsSync(DISPUTES_CONTRACT) ? undefined : `Adyen's Disputes API document is not at ${DISPUTES_CONTRACT}`);

for (const backend of backends) {
  describe(`accepting and defending a dispute through Adyen's Disputes API (${backend})`, { skip: needs(disputesContractMissing) }, () => {
    const t = suiteApp(backend);
    let adyen: FakeAdyen;
    let api: FakeAdyenDisputes;
    before(async () => {
      adyen = await startFakeAdyen();
      api = await startFakeAdyenDisputes(adyen.apiKey);
      await setAcquirerConnection(
        t.store,
        {
          merchantId: t.merchant.merchantId,
          mode: 'test',
          connector: 'adyen',
          endpoint: adyen.url,
          endpoints: { disputes: api.url },
          account: 'ShopNL',
          secretsJson: JSON.stringify({ apiKey: adyen.apiKey, hmacKey: HMAC_KEY }),
        },
        Date.now(),
      );
      await setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks');
    });
    after(async () => {
      assert.deepEqual(api.violations, [], "requests that break Adyen's DisputeService-v30.json");
      await api.close();
      await adyen.close();
    });
    const { notify, accepted, transaction, webhooks, chargebacksOf, newDisputePsp, paid } = helpers(t, () => adyen);
    async function charged() {
      const payment = await paid();
      const psp = newDisputePsp();
      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK' }));
      const [reference] = await chargebacksOf(payment.reference);
      return { payment, psp, reference };
    }

    test('accepted: Adyen asked with the merchant account and the dispute’s pspReference, the dispute accepted with its webhook; accepting again is 409', async () => {
      const { psp, reference } = await charged();
      api.open(psp);
      const answer = await t.client.post('/dispute/accept', { reference });
      assert.equal(answer.statusCode, 200, answer.body);
      assert.deepEqual([answer.json().status, answer.json().details.stage], ['success', 'accepted']);
      assert.deepEqual(api.requests.at(-1), { path: '/acceptDispute', body: { merchantAccountCode: 'ShopNL', disputePspReference: psp } });
      assert.deepEqual(await webhooks(reference), ['chargeback/chargeback', 'chargeback/accepted']);
      assert.equal((await eventsOf(t.store.read, reference)).at(-1)!.cause, 'merchant_accepted');
      const again = await t.client.post('/dispute/accept', { reference });
      assert.equal(again.statusCode, 409);
      assert.match(again.json().detail, /is at accepted; it can no longer be accepted/);
    });

    test('defended: only with a reason Adyen takes for it (422 naming them), then its stage waits for the issuer, whose reversal comes as a notification', async () => {
      const { payment, psp, reference } = await charged();
      api.open(psp, ['GoodsOrServicesProvided']);
      const wrong = await t.client.post('/dispute/defend', { reference, defenseReasonCode: 'Whatever' });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual([wrong.json().errors[0].field, wrong.json().errors[0].code], ['/defenseReasonCode', 'not_applicable']);
      assert.match(wrong.json().errors[0].message, /it takes: GoodsOrServicesProvided/);

      const defended = await t.client.post('/dispute/defend', { reference, defenseReasonCode: 'GoodsOrServicesProvided' });
      assert.equal(defended.statusCode, 200, defended.body);
      assert.deepEqual([defended.json().details.stage, defended.json().details.defenseReasonCode], ['chargeback', 'GoodsOrServicesProvided']);
      assert.deepEqual(
        api.requests.slice(-2).map((r) => r.path),
        ['/retrieveApplicableDefenseReasons', '/defendDispute'],
      );
      assert.deepEqual(api.requests.at(-1)!.body, { merchantAccountCode: 'ShopNL', disputePspReference: psp, defenseReasonCode: 'GoodsOrServicesProvided' });
      assert.deepEqual(await webhooks(reference), ['chargeback/chargeback'], 'a defense moves no stage');

      await accepted(notify(payment, { psp, eventCode: 'CHARGEBACK_REVERSED' }));
      assert.deepEqual([(await transaction(reference)).details.stage, (await transaction(reference)).status], ['reversed', 'failed']);
    });

    test("Adyen's refusal is 422 in its words, no answer is 503: the dispute unchanged either way", async () => {
      const { reference } = await charged();
      const refused = await t.client.post('/dispute/accept', { reference });
      assert.equal(refused.statusCode, 422);
      assert.equal(refused.json().title, 'Refused by the acquirer');
      assert.match(refused.json().detail, /Dispute not found/);
      api.silent = true;
      try {
        const silent = await t.client.post('/dispute/accept', { reference });
        assert.equal(silent.statusCode, 503);
        assert.equal(silent.json().title, 'No answer from the acquirer');
      } finally {
        api.silent = false;
      }
      assert.deepEqual([(await transaction(reference)).details.stage, await webhooks(reference)], ['chargeback', ['chargeback/chargeback']]);
    });

    test('a payment is no dispute: accepting one is 404', async () => {
      const payment = await paid();
      assert.equal((await t.client.post('/dispute/accept', { reference: payment.reference })).statusCode, 404);
    });
  });
}
