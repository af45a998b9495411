/**
 * Refunds (docs/decisions.md#refunds), on SQLite and PostgreSQL: a refund is its own credit
 * transaction; partial refunds add up to at most what was paid (captured), also when they
 * arrive together; refused sales, refunds and references say why; the refund window; the
 * test scenarios; the test helper; the webhook; the same Idempotency-Reference never refunds twice.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, suiteApp } from '../support/app.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { deliveriesFor, pendingPaymentRow } from '../events/support.ts';
import { insertTransaction } from '../../src/store/transactions.ts';
import { card, openPage, postForm } from '../pages/flow.ts';

for (const backend of backends) {
  describe(`refunds (${backend})`, () => {
    const t = suiteApp(backend);

    before(async () => {
      // Nothing listens there: only the outbox rows are checked.
      await setWebhookUrl(t.store, t.merchant.merchantId, 'http://127.0.0.1:9/webhooks');
    });

    /** A card payment paid on its page (so the acquirer holds it), `success`. */
    async function paid(overrides: Record<string, unknown> = {}) {
      const created = (await t.client.post('/payment', cardPayment({ amount: '10.00', ...overrides }))).json();
      const { path, csrf } = await openPage(t.app, created.payUrl);
      assert.equal((await postForm(t.app, `${path}/card`, { csrf, ...card() })).statusCode, 303);
      return created.reference as string;
    }
    const read = async (reference: string) => (await t.client.get(`/transaction?reference=${reference}`)).json();

    test('a full refund is its own credit transaction; the sale stays success and shows what was refunded', async () => {
      const sale = await paid();
      const response = await t.client.post('/refund', { reference: sale, description: 'returned teapot' });
      assert.equal(response.statusCode, 200, response.body);
      const refund = response.json();
      assert.notEqual(refund.reference, sale);
      assert.equal(refund.type, 'credit');
      assert.equal(refund.method, 'card');
      assert.equal(refund.status, 'success');
      assert.equal(refund.amount, 10);
      assert.equal(refund.currency, 'eur');
      assert.equal(refund.parentReference, sale);
      assert.equal(refund.description, 'returned teapot');
      assert.equal(refund.payUrl, undefined);
      assert.equal(refund.cancelUrl, undefined);
      assert.deepEqual(await read(refund.reference), refund);
      const saleNow = await read(sale);
      assert.equal(saleNow.status, 'success');
      assert.equal(saleNow.details.refundedAmount, 10);
      assert.deepEqual(
        (await deliveriesFor(t.store, refund.reference)).map((d) => d.event),
        ['success'],
      );
      const again = await t.client.post('/refund', { reference: sale });
      assert.equal(again.statusCode, 422);
      assert.equal(again.json().errors[0].code, 'fully_refunded');
    });

    test("a description longer than 1,000 characters (the reason a shop's admin typed) is cut to 1,000 and kept, never a refusal", async () => {
      const sale = await paid();
      // 999 letters, then a character outside the BMP (two UTF-16 units) across the limit: cut before it, not in half.
      const reason = `${'r'.repeat(999)}😀${'x'.repeat(1000)}`;
      const response = await t.client.post('/refund', { reference: sale, amount: '1.00', description: reason });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().description, 'r'.repeat(999));
      assert.equal((await read(response.json().reference)).description, 'r'.repeat(999));
      const whole = await t.client.post('/refund', { reference: sale, amount: '1.00', description: `${'s'.repeat(2000)}` });
      assert.equal(whole.json().description, 's'.repeat(1000));
      // A payment's own description keeps its limit.
      assert.equal((await t.client.post('/payment', cardPayment({ description: 'p'.repeat(1001) }))).statusCode, 422);
    });

    test('partial refunds, as numbers or numeric strings, up to what remains; more is refused naming /amount', async () => {
      const sale = await paid();
      assert.equal((await t.client.post('/refund', { reference: sale, amount: 2.5 })).json().amount, 2.5);
      assert.equal((await t.client.post('/refund', { reference: sale, amount: '3.00' })).json().amount, 3);
      const over = await t.client.post('/refund', { reference: sale, amount: '4.51' });
      assert.equal(over.statusCode, 422);
      assert.deepEqual(
        over.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/amount', 'exceeds_refundable']],
      );
      const rest = await t.client.post('/refund', { reference: sale });
      assert.equal(rest.json().amount, 4.5);
      assert.equal((await read(sale)).details.refundedAmount, 10);
      const tooMuch = await t.client.post('/refund', { reference: sale, amount: '10.01' });
      assert.equal(tooMuch.json().errors[0].field, '/amount');
    });

    test('twenty simultaneous refunds of 1.00 on a 10.00 sale accept exactly ten', async () => {
      const sale = await paid();
      const responses = await Promise.all(Array.from({ length: 20 }, () => t.client.post('/refund', { reference: sale, amount: '1.00' })));
      const codes = responses.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c === 200).length, 10, codes.join());
      assert.equal(codes.filter((c) => c === 422).length, 10, codes.join());
      assert.equal((await read(sale)).details.refundedAmount, 10);
    });

    test('the same Idempotency-Reference refunds once, also when both requests arrive together', async () => {
      const sale = await paid();
      const headers = { 'idempotency-reference': `refund-${sale}` };
      const [a, b] = await Promise.all([0, 1].map(() => t.client.post('/refund', { reference: sale, amount: '1.00' }, { headers })));
      const later = await t.client.post('/refund', { reference: sale, amount: '1.00' }, { headers });
      assert.ok([a, b].some((r) => r.statusCode === 200));
      assert.ok(
        [a, b].every((r) => r.statusCode === 200 || r.statusCode === 409),
        `${a.statusCode} ${b.statusCode}`,
      );
      assert.equal(later.statusCode, 200);
      assert.equal(later.headers['idempotent-replayed'], 'true');
      assert.equal((await read(sale)).details.refundedAmount, 1);
    });

    test('a refund whose cents are .21 is refused by the acquirer: failed/rejected, and its amount is free again', async () => {
      const sale = await paid();
      const refused = (await t.client.post('/refund', { reference: sale, amount: '5.21' })).json();
      assert.equal(refused.status, 'failed');
      assert.equal(refused.failureCode, 'rejected');
      assert.deepEqual(
        (await deliveriesFor(t.store, refused.reference)).map((d) => d.event),
        ['failed/rejected'],
      );
      assert.equal((await t.client.post('/refund', { reference: sale })).json().amount, 10);
    });

    test('what cannot be refunded says why; what the key may not see is 404', async () => {
      const pending = (await t.client.post('/payment', cardPayment())).json().reference;
      const failed = (await t.client.post('/payment', cardPayment())).json().reference;
      await t.client.post('/test/complete', { reference: failed, outcome: 'failed' });
      const sale = await paid();
      const refund = (await t.client.post('/refund', { reference: sale, amount: '1.00' })).json().reference;
      const codeOf = async (body: Record<string, unknown>) => {
        const response = await t.client.post('/refund', body);
        return [
          response.statusCode,
          response
            .json()
            .errors?.map((e: { field: string; code: string }) => `${e.field} ${e.code}`)
            .join() ?? '',
        ];
      };
      assert.deepEqual(await codeOf({ reference: pending }), [422, '/reference not_paid']);
      assert.deepEqual(await codeOf({ reference: failed }), [422, '/reference not_paid']);
      assert.deepEqual(await codeOf({ reference: refund }), [422, '/reference is_refund']);
      assert.deepEqual(await codeOf({ reference: 'tr_unknown' }), [404, '']);
      assert.deepEqual(await codeOf({}), [422, '/reference required']);
      assert.deepEqual(await codeOf({ reference: sale, amount: '-1' }), [422, '/amount format']);
      const live = api(t.app, t.merchant.liveApiKey);
      assert.equal((await live.post('/refund', { reference: sale })).statusCode, 404);
    });

    test('an authorisation is refundable only once captured, and only up to the captured amount', async () => {
      const authorisation = await paid({ transactionType: 'authorise', amount: '40.00' });
      assert.equal((await t.client.post('/refund', { reference: authorisation })).json().errors[0].code, 'not_captured');
      assert.equal((await t.client.post('/capture', { reference: authorisation, amount: '30.00' })).statusCode, 200);
      const over = await t.client.post('/refund', { reference: authorisation, amount: '30.01' });
      assert.equal(over.json().errors[0].field, '/amount');
      assert.equal((await t.client.post('/refund', { reference: authorisation })).json().amount, 30);
    });

    test('past the refund window of its card network a payment is refused', async () => {
      const sale = await paid();
      await t.store.transact((db) =>
        db
          .updateTable('transactions')
          .set({ created: Date.now() - 181 * 86_400_000 })
          .where('reference', '=', sale)
          .execute(),
      );
      const response = await t.client.post('/refund', { reference: sale });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().errors[0].code, 'refund_window_passed');
    });

    test('the test helper completes a pending refund, and the sale shows it', async () => {
      const sale = await paid();
      // A refund the acquirer has not answered yet: reserved but not settled.
      const pending = { ...pendingPaymentRow(t.store.secrets, t.merchant.merchantId), type: 'credit', amount_minor: 200, parent_reference: sale, expires_at: null };
      await t.store.transact((db) => insertTransaction(db, pending, 'created'));
      const completed = await t.client.post('/test/complete', { reference: pending.reference, outcome: 'success' });
      assert.equal(completed.statusCode, 200, completed.body);
      assert.equal(completed.json().status, 'success');
      assert.equal((await read(sale)).details.refundedAmount, 2);
    });
  });
}
