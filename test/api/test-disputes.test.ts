/**
 * The test helper's disputes, `POST {base_url}/test/dispute` (docs/disputes.md "Test mode"), on
 * SQLite and PostgreSQL: a tester raises a dispute on a paid test payment and walks it along the
 * stage path it wants to test, each stage with its merchant webhook, through the same record as an
 * acquirer's notification; what a dispute cannot do, or a payment cannot have, is refused with
 * nothing changed; a live key finds nothing there.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { deliveriesFor } from '../events/support.ts';

for (const backend of backends) {
  describe(`POST /test/dispute (${backend})`, () => {
    const t = suiteApp(backend);
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
      assert.equal(over.json().errors[0].message, 'must not be more than the 17.5 paid and not charged back');
      await dispute({ reference: partial.reference, stage: 'reversed' });
      const refund = await t.client.post('/refund', { reference: payment, amount: '17.51' });
      assert.equal(refund.statusCode, 200, "reversed: the money is the merchant's again");

      const full = await paid('20.00');
      await dispute({ reference: full, stage: 'chargeback' });
      const refused = await t.client.post('/refund', { reference: full });
      assert.equal(refused.statusCode, 422);
      assert.deepEqual([refused.json().errors[0].field, refused.json().errors[0].code], ['/reference', 'charged_back']);
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
