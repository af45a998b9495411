/**
 * The test helper's disputes, `POST {base_url}/test/dispute` (docs/disputes.md "Test mode"), on
 * SQLite and PostgreSQL: a tester raises a dispute on a paid test payment and walks it along the
 * stage path it wants to test, each stage with its merchant webhook, through the same record as an
 * acquirer's notification; what a dispute cannot do, or a payment cannot have, is refused with
 * nothing changed; disputes and refunds, one after the other or at once, never claim more than
 * was paid (docs/disputes.md "What is left of a payment"); a live key finds nothing there.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { deliveriesFor } from '../events/support.ts';

for (const backend of backends) {
  describe(`POST /test/dispute (${backend})`, () => {
    const t = suiteApp(backend, { RATE_LIMIT_PER_SECOND: '0' });
    before(async () => setWebhookUrl(t.store, t.merchant.merchantId, 'https://shop.example/webhooks'));

    const transaction = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();
    const webhooks = async (reference: string) =>
      (await deliveriesFor(t.store, reference)).sort((a, b) => a.created - b.created || a.id.localeCompare(b.id)).map((d) => d.event);
    async function paid(amount = '30.00') {
      const { reference } = (await t.client.post('/payment', cardPayment({ amount }))).json() as { reference: string };
      assert.equal((await t.client.post('/test/complete', { reference, outcome: 'success' })).statusCode, 200);
      return reference;
    }
    const dispute = async (body: Record<string, unknown>) => {
      const answer = await t.client.post('/test/dispute', body);
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.json();
    };

    test('raised, charged back, reversed, charged back again: one dispute moved along the path, a webhook per stage, the payment listing it', async () => {
      const payment = await paid();
      const raised = await dispute({ reference: payment, reasonCode: '10.4', reason: 'Fraud, card absent' });
      assert.deepEqual(
        [raised.type, raised.status, raised.parentReference, raised.amount, raised.currency, raised.details],
        ['chargeback', 'pending', payment, 30, 'eur', { stage: 'notification', reasonCode: '10.4', reason: 'Fraud, card absent' }],
      );
      const path: [string, string][] = [
        ['chargeback', 'success'],
        ['reversed', 'failed'],
        ['second_chargeback', 'success'],
      ];
      for (const [stage, status] of path) {
        const moved = await dispute({ reference: raised.reference, stage });
        assert.deepEqual([moved.reference, moved.status, moved.details.stage, moved.details.reasonCode], [raised.reference, status, stage, '10.4']);
      }
      assert.deepEqual(await webhooks(raised.reference), ['chargeback/notification', 'chargeback/chargeback', 'chargeback/reversed', 'chargeback/second_chargeback']);
      assert.deepEqual(
        (await eventsOf(t.store.read, raised.reference)).map((e) => [e.to_status, e.cause]),
        [
          ['pending', 'test_helper'],
          ['success', 'test_helper'],
          ['failed', 'test_helper'],
          ['success', 'test_helper'],
        ],
      );
      const read = await transaction(payment);
      assert.equal(read.status, 'success');
      assert.deepEqual(read.details.disputes, [{ reference: raised.reference, stage: 'second_chargeback', status: 'success', amount: 30 }]);
    });

    test('raised at chargeback for part of the payment, then pre-arbitration lost', async () => {
      const payment = await paid('50.00');
      const raised = await dispute({ reference: payment, stage: 'chargeback', amount: '12.50' });
      assert.deepEqual([raised.status, raised.amount, raised.details.stage], ['success', 12.5, 'chargeback']);
      await dispute({ reference: raised.reference, stage: 'prearbitration' });
      const lost = await dispute({ reference: raised.reference, stage: 'prearbitration_lost' });
      assert.deepEqual([lost.status, lost.details.stage], ['success', 'prearbitration_lost']);
      assert.deepEqual(await webhooks(raised.reference), ['chargeback/chargeback', 'chargeback/prearbitration', 'chargeback/prearbitration_lost']);
    });

    test('a stage the dispute cannot move to is 409, with nothing changed', async () => {
      const raised = await dispute({ reference: await paid(), stage: 'chargeback' });
      await dispute({ reference: raised.reference, stage: 'reversed' });
      for (const stage of ['chargeback', 'notification', 'reversed']) {
        const refused = await t.client.post('/test/dispute', { reference: raised.reference, stage });
        assert.equal(refused.statusCode, 409, refused.body);
        assert.match(refused.json().detail, /is at reversed; it cannot move to/);
      }
      assert.deepEqual(await webhooks(raised.reference), ['chargeback/chargeback', 'chargeback/reversed']);
      assert.equal((await transaction(raised.reference)).details.stage, 'reversed');
    });

    const refused: [string, (payment: string) => Record<string, unknown>, string, string][] = [
      ['an amount more than was paid', (reference) => ({ reference, amount: '30.01' }), '/amount', 'range'],
      ['an amount of 0', (reference) => ({ reference, amount: '0' }), '/amount', 'range'],
      ['a stage a dispute does not start at', (reference) => ({ reference, stage: 'reversed' }), '/stage', 'enum'],
      ['a stage that does not exist', (reference) => ({ reference, stage: 'lost' }), '/stage', 'enum'],
    ];
    for (const [what, body, field, code] of refused) {
      test(`raising with ${what} is 422 at ${field} (${code})`, async () => {
        const payment = await paid();
        const answer = await t.client.post('/test/dispute', body(payment));
        assert.equal(answer.statusCode, 422, answer.body);
        assert.deepEqual([answer.json().errors[0].field, answer.json().errors[0].code], [field, code]);
        assert.equal((await transaction(payment)).details.disputes, undefined);
      });
    }

    test('a payment not paid cannot be disputed (422 not_paid); neither can a refund', async () => {
      const { reference } = (await t.client.post('/payment', cardPayment())).json() as { reference: string };
      const pending = await t.client.post('/test/dispute', { reference });
      assert.equal(pending.statusCode, 422);
      assert.equal(pending.json().errors[0].code, 'not_paid');
      const refund = (await t.client.post('/refund', { reference: await paid() })).json() as { reference: string };
      assert.equal((await t.client.post('/test/dispute', { reference: refund.reference })).json().errors[0].code, 'not_paid');
    });

    test('moving a dispute needs its stage; an unknown reference is 404; a dispute cannot be completed as a payment', async () => {
      const raised = await dispute({ reference: await paid() });
      const noStage = await t.client.post('/test/dispute', { reference: raised.reference });
      assert.deepEqual([noStage.statusCode, noStage.json().errors[0].field], [422, '/stage']);
      assert.equal((await t.client.post('/test/dispute', { reference: 'tr_nothing' })).statusCode, 404);
      const completed = await t.client.post('/test/complete', { reference: raised.reference, outcome: 'success' });
      assert.equal(completed.statusCode, 409);
      assert.equal((await transaction(raised.reference)).status, 'pending');
    });

    test('a test dispute is accepted or defended as asked (the simulator is its acquirer); a defense keeps its reason and moves no stage', async () => {
      const accepted = await dispute({ reference: await paid(), stage: 'chargeback' });
      const acceptance = await t.client.post('/dispute/accept', { reference: accepted.reference });
      assert.equal(acceptance.statusCode, 200, acceptance.body);
      assert.deepEqual([acceptance.json().status, acceptance.json().details.stage], ['success', 'accepted']);
      assert.deepEqual(await webhooks(accepted.reference), ['chargeback/chargeback', 'chargeback/accepted']);

      const defended = await dispute({ reference: await paid(), stage: 'chargeback' });
      const refused = await t.client.post('/dispute/defend', { reference: defended.reference, defenseReasonCode: 'GoodsOrServicesProvided' });
      assert.equal(refused.json().errors[0].message, 'is not a reason the acquirer takes for this dispute (it takes: SupplyDefenseMaterial)');
      const defense = await t.client.post('/dispute/defend', { reference: defended.reference, defenseReasonCode: 'SupplyDefenseMaterial' });
      assert.equal(defense.statusCode, 200, defense.body);
      assert.deepEqual([defense.json().details.stage, defense.json().details.defenseReasonCode], ['chargeback', 'SupplyDefenseMaterial']);
      assert.equal((await eventsOf(t.store.read, defended.reference)).at(-1)!.cause, 'merchant_defended');
      assert.equal((await dispute({ reference: defended.reference, stage: 'reversed' })).status, 'failed', 'the tester plays the issuer');
    });

    test('what a standing chargeback took back is not refundable: the rest is; charged back in full, nothing; reversed, all again', async () => {
      const payment = await paid('30.00');
      const partial = await dispute({ reference: payment, stage: 'chargeback', amount: '12.50' });
      const over = await t.client.post('/refund', { reference: payment, amount: '17.51' });
      assert.equal(over.statusCode, 422);
      assert.equal(over.json().errors[0].message, 'must not be more than the 17.5 paid and not held by disputes');
      await dispute({ reference: partial.reference, stage: 'reversed' });
      const refund = await t.client.post('/refund', { reference: payment, amount: '17.51' });
      assert.equal(refund.statusCode, 200, "reversed: the money is the merchant's again");

      const full = await paid('20.00');
      await dispute({ reference: full, stage: 'chargeback' });
      const refused = await t.client.post('/refund', { reference: full });
      assert.equal(refused.statusCode, 422);
      assert.deepEqual([refused.json().errors[0].field, refused.json().errors[0].code], ['/reference', 'charged_back']);
    });

    const exceeds = async (body: Record<string, unknown>, field: string) => {
      const answer = await t.client.post('/test/dispute', body);
      assert.equal(answer.statusCode, 422, answer.body);
      assert.deepEqual([answer.json().errors[0].field, answer.json().errors[0].code], [field, 'exceeds_disputable']);
      return answer.json().errors[0].message as string;
    };
    const disputedOf = async (payment: string) => ((await transaction(payment)).details.disputes ?? []) as { amount: number; status: string; stage: string }[];

    test('a dispute never holds more than is left: 50.00 charged back, then 1.00 more is 422 at /amount, nothing recorded', async () => {
      const payment = await paid('50.00');
      await dispute({ reference: payment, stage: 'chargeback', amount: '50.00' });
      const message = await exceeds({ reference: payment, stage: 'chargeback', amount: '1.00' }, '/amount');
      assert.equal(message, "the dispute's 1 is more than the 0 left of what was paid (50 paid, 0 refunded, 50 held by disputes)");
      await exceeds({ reference: payment }, '/amount');
      assert.deepEqual(
        (await disputedOf(payment)).map((d) => d.amount),
        [50],
      );
    });

    test('an open dispute holds its amount as a chargeback does: 30.00 raised (notification), then 30.00 more is refused; 20.00 is not', async () => {
      const payment = await paid('50.00');
      await dispute({ reference: payment, amount: '30.00' });
      await exceeds({ reference: payment, amount: '30.00' }, '/amount');
      const rest = await dispute({ reference: payment });
      assert.equal(rest.amount, 20, 'without an amount: all that is left');
      assert.deepEqual(
        (await disputedOf(payment)).map((d) => [d.stage, d.amount]),
        [
          ['notification', 30],
          ['notification', 20],
        ],
      );
    });

    test('a full refund, then a full chargeback: refused, what is refunded is no longer disputable; a partial refund leaves the rest', async () => {
      const payment = await paid('30.00');
      assert.equal((await t.client.post('/refund', { reference: payment })).statusCode, 200);
      const message = await exceeds({ reference: payment, stage: 'chargeback' }, '/amount');
      assert.match(message, /left of what was paid \(30 paid, 30 refunded, 0 held by disputes\)/);
      assert.deepEqual(await disputedOf(payment), []);

      const partly = await paid('30.00');
      assert.equal((await t.client.post('/refund', { reference: partly, amount: '10.00' })).statusCode, 200);
      await exceeds({ reference: partly, stage: 'chargeback', amount: '20.01' }, '/amount');
      assert.equal((await dispute({ reference: partly, stage: 'chargeback' })).amount, 20);
    });

    test('a refund after a full chargeback, or while a dispute of all of it is open, is refused (charged_back); a reversed one gives it back', async () => {
      for (const stage of ['chargeback', 'notification']) {
        const payment = await paid('20.00');
        const raised = await dispute({ reference: payment, stage });
        const refused = await t.client.post('/refund', { reference: payment, amount: '0.01' });
        assert.equal(refused.statusCode, 422, refused.body);
        assert.deepEqual([refused.json().errors[0].field, refused.json().errors[0].code], ['/reference', 'charged_back']);
        await dispute({ reference: raised.reference, stage: 'reversed' });
        assert.equal((await t.client.post('/refund', { reference: payment })).statusCode, 200, 'reversed: all of it refundable again');
      }
    });

    test('a reversed chargeback that comes back after the money was refunded is 422 at /stage and stays reversed', async () => {
      const payment = await paid('20.00');
      const raised = await dispute({ reference: payment, stage: 'chargeback' });
      await dispute({ reference: raised.reference, stage: 'reversed' });
      assert.equal((await t.client.post('/refund', { reference: payment, amount: '5.00' })).statusCode, 200);
      for (const stage of ['second_chargeback', 'prearbitration']) {
        const message = await exceeds({ reference: raised.reference, stage }, '/stage');
        assert.equal(message, `its move to ${stage}: the dispute's 20 is more than the 15 left of what was paid (20 paid, 5 refunded, 0 held by disputes)`);
      }
      assert.deepEqual(
        [(await transaction(raised.reference)).details.stage, await webhooks(raised.reference)],
        ['reversed', ['chargeback/chargeback', 'chargeback/reversed']],
      );
      assert.equal((await dispute({ reference: raised.reference, stage: 'prearbitration_won' })).status, 'failed', 'a stage that holds nothing still moves');
    });

    test('disputes raised at once never add up to more than was paid: 40 payments, three 10.00 disputes each at once, one recorded', async () => {
      const payments = await Promise.all(Array.from({ length: 40 }, () => paid('10.00')));
      const answers = await Promise.all(
        payments.flatMap((reference) => [1, 2, 3].map(() => t.client.post('/test/dispute', { reference, stage: 'chargeback', amount: '10.00' }))),
      );
      assert.deepEqual([...new Set(answers.filter((a) => a.statusCode !== 200).map((a) => `${a.statusCode} ${a.json().errors?.[0]?.code}`))], ['422 exceeds_disputable']);
      const over = [];
      for (const payment of payments) {
        const disputed = (await disputedOf(payment)).reduce((sum, d) => sum + d.amount, 0);
        if (disputed !== 10) over.push(`${payment}: ${disputed}`);
      }
      assert.deepEqual(over, [], 'each payment charged back 10.00 once');
    });

    test('a refund and a dispute at once claim what is left once: 20 payments, a full refund and a full chargeback each at once, one of them made', async () => {
      const payments = await Promise.all(Array.from({ length: 20 }, () => paid('10.00')));
      const answers = await Promise.all(
        payments.map((reference) =>
          Promise.all([t.client.post('/refund', { reference, amount: '10.00' }), t.client.post('/test/dispute', { reference, stage: 'chargeback', amount: '10.00' })]),
        ),
      );
      const made = answers.map(([refund, disputed]) => [refund.statusCode, disputed.statusCode].filter((code) => code === 200).length);
      assert.deepEqual(
        made,
        payments.map(() => 1),
        'one of the two made for every payment',
      );
      for (const payment of payments) {
        const read = await transaction(payment);
        const disputed = ((read.details.disputes ?? []) as { amount: number }[]).reduce((sum, d) => sum + d.amount, 0);
        assert.equal(disputed + (read.details.refundedAmount ?? 0), 10, payment);
      }
    });

    test('a live key finds nothing at /test/dispute', async () => {
      const answer = await t.client.post('/test/dispute', { reference: await paid() }, { key: t.merchant.liveApiKey });
      assert.equal(answer.statusCode, 404);
    });

    test('the same Idempotency-Reference raises one dispute', async () => {
      const payment = await paid();
      const headers = { 'idempotency-reference': `dispute-${backend}` };
      const first = await t.client.post('/test/dispute', { reference: payment }, { headers });
      const again = await t.client.post('/test/dispute', { reference: payment }, { headers });
      assert.equal(again.json().reference, first.json().reference);
      assert.equal((await transaction(payment)).details.disputes.length, 1);
    });
  });
}
