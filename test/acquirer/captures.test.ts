/**
 * `transactionType: "authorise"` card payments end `success` as authorised; capture and
 * reversal complete them (docs/api.md#further-endpoints), idempotently; a capture is a transaction of its own,
 * refunded as one with its authorisation. Live keys without a connector are
 * refused. On SQLite and PostgreSQL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, suiteApp } from '../support/app.ts';
import { eventsOf } from '../../src/store/transactions.ts';
import { card, openPage, postForm } from '../pages/flow.ts';

for (const backend of backends) {
  describe(`capture and reversal (${backend})`, () => {
    const t = suiteApp(backend);

    async function paid(overrides: Record<string, unknown> = {}) {
      const created = (await t.client.post('/payment', cardPayment({ transactionType: 'authorise', amount: '40.00', ...overrides }))).json();
      const { path, csrf } = await openPage(t.app, created.payUrl);
      assert.equal((await postForm(t.app, `${path}/card`, { csrf, ...card() })).statusCode, 303);
      return created.reference as string;
    }

    test('an authorise payment ends success with captureStatus authorised', async () => {
      const reference = await paid();
      const transaction = (await t.client.get(`/transaction?reference=${reference}`)).json();
      assert.equal(transaction.type, 'authorise');
      assert.equal(transaction.status, 'success');
      assert.equal(transaction.details.captureStatus, 'authorised');
    });

    test('capture takes the money once, as a transaction of its own; a second capture is 422', async () => {
      const reference = await paid();
      const captured = await t.client.post('/capture', { reference, amount: '30.00' });
      assert.equal(captured.statusCode, 200, captured.body);
      const capture = captured.json();
      assert.notEqual(capture.reference, reference);
      assert.equal(capture.type, 'sale');
      assert.equal(capture.status, 'success');
      assert.equal(capture.amount, 30);
      assert.equal(capture.parentReference, reference);
      assert.equal(capture.payUrl, undefined);
      assert.deepEqual((await t.client.get(`/transaction?reference=${capture.reference}`)).json(), capture);
      const authorisation = (await t.client.get(`/transaction?reference=${reference}`)).json();
      assert.equal(authorisation.status, 'success');
      assert.deepEqual(
        {
          captureStatus: authorisation.details.captureStatus,
          capturedAmount: authorisation.details.capturedAmount,
          captureReference: authorisation.details.captureReference,
        },
        { captureStatus: 'captured', capturedAmount: 30, captureReference: capture.reference },
      );
      const again = await t.client.post('/capture', { reference });
      assert.equal(again.statusCode, 422);
      assert.equal(again.json().errors[0].code, 'already_captured');
      assert.equal((await t.client.post('/capture', { reference: capture.reference })).json().errors[0].code, 'not_authorisation');
      assert.equal((await t.client.post('/reversal', { reference })).statusCode, 422);
      assert.deepEqual((await eventsOf(t.store.read, reference)).map((e) => e.cause).slice(-1), ['capture']);
      assert.deepEqual(
        (await eventsOf(t.store.read, capture.reference)).map((e) => [e.to_status, e.cause]),
        [
          ['pending', 'created'],
          ['success', 'acquirer_captured'],
        ],
      );
    });

    test('the capture and its authorisation share one captured amount to refund', async () => {
      const reference = await paid();
      const capture = (await t.client.post('/capture', { reference, amount: '30.00' })).json();
      assert.equal((await t.client.post('/refund', { reference: capture.reference, amount: '20.00' })).json().status, 'success');
      const over = await t.client.post('/refund', { reference, amount: '10.01' });
      assert.equal(over.statusCode, 422);
      assert.equal(over.json().errors[0].code, 'exceeds_refundable');
      const rest = (await t.client.post('/refund', { reference })).json();
      assert.deepEqual([rest.amount, rest.parentReference], [10, capture.reference]);
      assert.equal((await t.client.get(`/transaction?reference=${capture.reference}`)).json().details.refundedAmount, 30);
      assert.equal((await t.client.post('/refund', { reference: capture.reference })).json().errors[0].code, 'fully_refunded');
    });

    test('an authorisation completed by the test helper is captured and reversed as one paid on the page', async () => {
      for (const followUp of ['/capture', '/reversal']) {
        const created = (await t.client.post('/payment', cardPayment({ transactionType: 'authorise', amount: '40.00' }))).json();
        const completed = await t.client.post('/test/complete', { reference: created.reference, outcome: 'success' });
        assert.equal(completed.json().details.captureStatus, 'authorised');
        const answer = await t.client.post(followUp, { reference: created.reference });
        assert.equal(answer.statusCode, 200, answer.body);
        const authorisation = (await t.client.get(`/transaction?reference=${created.reference}`)).json();
        assert.equal(authorisation.details.captureStatus, followUp === '/capture' ? 'captured' : 'reversed');
      }
    });

    test('capture with the same Idempotency-Reference replays the first answer', async () => {
      const reference = await paid();
      const headers = { 'idempotency-reference': `cap-${reference}` };
      const first = await t.client.post('/capture', { reference }, { headers });
      const second = await t.client.post('/capture', { reference }, { headers });
      assert.equal(first.statusCode, 200);
      assert.equal(first.json().amount, 40);
      assert.equal(second.statusCode, 200);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.deepEqual(second.json(), first.json());
      assert.equal((await eventsOf(t.store.read, reference)).filter((e) => e.cause === 'capture').length, 1);
    });

    test('reversal releases an authorisation', async () => {
      const reference = await paid();
      const reversed = await t.client.post('/reversal', { reference });
      assert.equal(reversed.statusCode, 200, reversed.body);
      assert.equal(reversed.json().details.captureStatus, 'reversed');
      assert.equal((await t.client.post('/capture', { reference })).statusCode, 422);
    });

    test('capture refuses sales, amounts above the authorisation and unknown references', async () => {
      const sale = await paid({ transactionType: 'sale' });
      assert.equal((await t.client.post('/capture', { reference: sale })).statusCode, 422);
      const reference = await paid();
      const tooMuch = await t.client.post('/capture', { reference, amount: '40.01' });
      assert.equal(tooMuch.statusCode, 422);
      assert.equal(tooMuch.json().errors[0].field, '/amount');
      assert.equal((await t.client.post('/capture', { reference, amount: '0.00' })).json().errors[0].code, 'range');
      const badLines = await t.client.post('/capture', { reference, orderLines: 'none' });
      assert.equal(badLines.json().errors[0].field, '/orderLines');
      assert.equal((await t.client.post('/capture', { reference: 'tr_unknown' })).statusCode, 404);
      assert.equal((await t.client.post('/capture', {})).statusCode, 422);
      assert.equal((await t.client.post('/capture', { reference }, { key: t.merchant.liveApiKey })).statusCode, 404);
    });

    test('a live card payment with no acquirer connector configured cannot be paid, and says so', async () => {
      const live = api(t.app, t.merchant.liveApiKey);
      const created = (await live.post('/payment', cardPayment())).json();
      const page = await t.app.inject({ method: 'GET', url: new URL(created.payUrl).pathname });
      assert.equal(page.statusCode, 503);
      assert.match(page.body, /Card payments are not available/);
      assert.doesNotMatch(page.body, /cc-number/);
    });
  });
}
