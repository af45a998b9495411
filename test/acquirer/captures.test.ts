/**
 * `transactionType: "authorise"` card payments end `success` as authorised; capture and
 * reversal complete them (DESIGN §2), idempotently. Live keys without a connector are
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

    test('capture takes the money once; a second capture is 422', async () => {
      const reference = await paid();
      const captured = await t.client.post('/capture', { reference, amount: '30.00' });
      assert.equal(captured.statusCode, 200, captured.body);
      assert.equal(captured.json().details.captureStatus, 'captured');
      assert.equal(captured.json().details.capturedAmount, 30);
      assert.equal(captured.json().status, 'success');
      const again = await t.client.post('/capture', { reference });
      assert.equal(again.statusCode, 422);
      assert.equal((await t.client.post('/reversal', { reference })).statusCode, 422);
      const events = await eventsOf(t.store.read, reference);
      assert.deepEqual(events.map((e) => e.cause).slice(-1), ['capture']);
    });

    test('capture with the same Idempotency-Reference replays the first answer', async () => {
      const reference = await paid();
      const headers = { 'idempotency-reference': `cap-${reference}` };
      const first = await t.client.post('/capture', { reference }, { headers });
      const second = await t.client.post('/capture', { reference }, { headers });
      assert.equal(first.statusCode, 200);
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
