/** Authentication, problem details for malformed requests, idempotency, expiry: on every backend. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { backends, basic, cardPayment, suiteApp } from '../support/app.ts';
import { createMerchant, rotateApiKey } from '../../src/merchants/merchants.ts';
import { expireDuePayments } from '../../src/payments/jobs/expiry.ts';
import { eventsOf, findTransaction } from '../../src/store/transactions.ts';

const PROBLEM = 'application/problem+json; charset=utf-8';

for (const backend of backends) {
  describe(`API protocol on ${backend}`, () => {
    const t = suiteApp(backend);

    describe('authentication', () => {
      test('a missing key is 401 with a Basic challenge', async () => {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/method' });
        assert.equal(res.statusCode, 401);
        assert.match(String(res.headers['www-authenticate']), /^Basic /);
        assert.equal(res.headers['content-type'], PROBLEM);
      });

      test('an unknown, malformed or non-Basic key is 401', async () => {
        for (const authorization of [basic('test_unknownkeyunknownkeyunknownkey00'), basic('hello'), 'Bearer abc', 'Basic']) {
          const res = await t.app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization } });
          assert.equal(res.statusCode, 401, authorization);
        }
      });

      test('a rotated key stops working and the new one works', async () => {
        const m = await createMerchant(t.store, 'Rotating Shop');
        const fresh = await rotateApiKey(t.store, m.merchantId, 'test');
        assert.equal((await t.client.get('/method', { key: m.testApiKey })).statusCode, 401);
        assert.equal((await t.client.get('/method', { key: fresh })).statusCode, 200);
        assert.equal((await t.client.get('/method', { key: m.liveApiKey })).statusCode, 200, 'the other mode is untouched');
      });
    });

    describe('problem details', () => {
      test('malformed JSON is 400', async () => {
        const res = await t.client.post('/payment', undefined, { headers: { 'content-type': 'application/json' } });
        assert.equal(res.statusCode, 400);
        const broken = await t.app.inject({
          method: 'POST',
          url: '/api/v1/payment',
          payload: '{"amount": ',
          headers: { authorization: basic(t.merchant.testApiKey), 'content-type': 'application/json' },
        });
        assert.equal(broken.statusCode, 400);
        assert.equal(broken.headers['content-type'], PROBLEM);
        assert.equal(broken.json().status, 400);
      });

      test('a body with a __proto__ or constructor.prototype key is 400, also when written with \\u escapes', async () => {
        const send = (payload: string) =>
          t.app.inject({
            method: 'POST',
            url: '/api/v1/payment',
            payload,
            headers: { authorization: basic(t.merchant.testApiKey), 'content-type': 'application/json' },
          });
        const body = JSON.stringify(cardPayment()).slice(1);
        for (const poisoned of ['{"__proto__":{"x":1},', '{"\\u005f_proto__":{"x":1},', '{"constructor":{"prototype":{"x":1}},']) {
          const res = await send(poisoned + body);
          assert.equal(res.statusCode, 400, poisoned);
          assert.equal(res.headers['content-type'], PROBLEM);
        }
        const escaped = await send(`{"description":"caf\\u00e9",${body}`);
        assert.equal(escaped.statusCode, 200, escaped.body);
        assert.equal(escaped.json().description, 'café');
      });

      test('a wrong content type is 400', async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/payment',
          payload: 'amount=10',
          headers: { authorization: basic(t.merchant.testApiKey), 'content-type': 'application/x-www-form-urlencoded' },
        });
        assert.equal(res.statusCode, 400);
        assert.match(res.json().detail, /application\/json/);
      });

      test('a body that is not an object is 400', async () => {
        assert.equal((await t.client.post('/payment', [1, 2])).statusCode, 400);
        assert.equal((await t.client.post('/payment', 'text')).statusCode, 400);
      });

      test('a body over 64 KiB is 413', async () => {
        const res = await t.client.post('/payment', cardPayment({ description: 'x'.repeat(70_000) }));
        assert.equal(res.statusCode, 413);
        assert.equal(res.headers['content-type'], PROBLEM);
      });

      test('an unknown route is a 404 problem', async () => {
        const res = await t.client.get('/nothing-here');
        assert.equal(res.statusCode, 404);
        assert.equal(res.headers['content-type'], PROBLEM);
      });
    });

    describe('Idempotency-Reference', () => {
      test('the same reference and body replay the original answer', async () => {
        const headers = { 'idempotency-reference': 'order-42-attempt-1' };
        const first = await t.client.post('/payment', cardPayment(), { headers });
        const second = await t.client.post('/payment', cardPayment(), { headers });
        assert.equal(first.statusCode, 200);
        assert.equal(second.statusCode, 200);
        assert.equal(first.headers['idempotent-replayed'], undefined);
        assert.equal(second.headers['idempotent-replayed'], 'true');
        assert.deepEqual(second.json(), first.json());
      });

      test('a replayed create answers the same bytes as the first answer, also once the payment has changed', async () => {
        for (const [name, body] of [
          ['card', cardPayment({ billingCity: 'Amsterdam', billingCountry: 'NL', description: 'Two mugs' })],
          ['landingpage', { ...cardPayment(), method: 'landingpage', details: { expirationDuration: 'PT20M' } }],
        ] as const) {
          const headers = { 'idempotency-reference': `replay-bytes-${name}` };
          const first = await t.client.post('/payment', body, { headers });
          assert.equal(first.statusCode, 200, first.body);
          const completed = await t.client.post('/test/complete', { reference: first.json().reference, outcome: 'failed' });
          assert.equal(completed.json().status, 'failed');
          const second = await t.client.post('/payment', body, { headers });
          assert.equal(second.headers['idempotent-replayed'], 'true');
          assert.equal(second.body, first.body, name);
          assert.equal(second.headers['content-type'], first.headers['content-type']);
        }
      });

      test("a create's record names its transaction instead of keeping a copy of the answer", async () => {
        const headers = { 'idempotency-reference': 'record-by-reference' };
        const created = (await t.client.post('/payment', cardPayment({ description: 'kept once' }), { headers })).json();
        const record = await t.store.read
          .selectFrom('idempotency_records')
          .select(['transaction_reference', 'response_body'])
          .where('idempotency_reference', '=', 'record-by-reference')
          .executeTakeFirstOrThrow();
        assert.equal(record.transaction_reference, created.reference);
        assert.doesNotMatch(record.response_body!, /kept once|\/pay\//);
      });

      test('a reused Idempotency-Reference with another body is 422', async () => {
        const headers = { 'idempotency-reference': 'reused-ref' };
        await t.client.post('/payment', cardPayment(), { headers });
        const res = await t.client.post('/payment', cardPayment({ amount: '11.00' }), { headers });
        assert.equal(res.statusCode, 422);
        assert.match(res.json().detail, /different request body/);
      });

      test('key order does not change the fingerprint', async () => {
        const headers = { 'idempotency-reference': 'order-insensitive' };
        const first = await t.client.post('/payment', { amount: '5.00', currency: 'EUR', method: 'card', returnUrl: 'https://s.example/r' }, { headers });
        const second = await t.client.post('/payment', { returnUrl: 'https://s.example/r', method: 'card', currency: 'EUR', amount: '5.00' }, { headers });
        assert.equal(second.headers['idempotent-replayed'], 'true');
        assert.equal(second.json().reference, first.json().reference);
      });

      test('a validation failure is replayed too', async () => {
        const headers = { 'idempotency-reference': 'invalid-once' };
        const first = await t.client.post('/payment', cardPayment({ amount: 'x' }), { headers });
        const second = await t.client.post('/payment', cardPayment({ amount: 'x' }), { headers });
        assert.equal(first.statusCode, 422);
        assert.equal(second.statusCode, 422);
        assert.equal(second.headers['idempotent-replayed'], 'true');
        assert.equal(second.headers['content-type'], PROBLEM);
      });

      test('scope is merchant + mode: the same reference elsewhere creates its own payment', async () => {
        const headers = { 'idempotency-reference': 'shared-ref' };
        const test1 = await t.client.post('/payment', cardPayment(), { headers });
        const live = await t.client.post('/payment', cardPayment(), { headers, key: t.merchant.liveApiKey });
        const other = await createMerchant(t.store, 'Another');
        const otherTest = await t.client.post('/payment', cardPayment(), { headers, key: other.testApiKey });
        const refs = new Set([test1, live, otherTest].map((r) => r.json().reference));
        assert.equal(refs.size, 3);
      });

      test('a reference longer than 255 characters is 400', async () => {
        const res = await t.client.post('/payment', cardPayment(), { headers: { 'idempotency-reference': 'x'.repeat(256) } });
        assert.equal(res.statusCode, 400);
      });

      test('20 simultaneous identical requests over real connections create exactly one payment', async () => {
        const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
        const body = JSON.stringify(cardPayment({ merchantOrderReference: 'concurrent' }));
        const agent = new http.Agent({ keepAlive: false, maxSockets: 20 });
        const send = () =>
          new Promise<{ status: number; body: string }>((resolve, reject) => {
            const req = http.request(
              `${address}/api/v1/payment`,
              {
                method: 'POST',
                agent,
                headers: { authorization: basic(t.merchant.testApiKey), 'content-type': 'application/json', 'idempotency-reference': 'twenty-at-once' },
              },
              (res) => {
                let data = '';
                res.on('data', (c) => (data += c));
                res.on('end', () => resolve({ status: res.statusCode!, body: data }));
              },
            );
            req.on('error', reject);
            req.end(body);
          });
        const answers = await Promise.all(Array.from({ length: 20 }, send));
        agent.destroy();
        assert.deepEqual(
          answers.map((a) => a.status),
          Array(20).fill(200),
        );
        const references = new Set(answers.map((a) => JSON.parse(a.body).reference));
        assert.equal(references.size, 1);
        const stored = await t.store.read.selectFrom('transactions').select('reference').where('merchant_order_reference', '=', 'concurrent').execute();
        assert.equal(stored.length, 1);
      });
    });

    describe('expiry', () => {
      test('a pending payment past its expiration becomes failed/expired with its event', async () => {
        const p = (await t.client.post('/payment', cardPayment({ details: { expirationDuration: 'PT2M' } }))).json();
        assert.deepEqual(await expireDuePayments(t.app.ports, p.created + 60_000), []);
        const expired = await expireDuePayments(t.app.ports, p.created + 120_000);
        assert.ok(expired.includes(p.reference));
        const read = (await t.client.get(`/transaction?reference=${p.reference}`)).json();
        assert.equal(read.status, 'failed');
        assert.equal(read.failureCode, 'expired');
        const events = await eventsOf(t.store.read, p.reference);
        assert.deepEqual(
          events.map((e) => [e.from_status, e.to_status, e.cause]),
          [
            [null, 'pending', 'created'],
            ['pending', 'failed', 'expired'],
          ],
        );
      });

      test('a final payment never changes: a cancelled payment does not expire', async () => {
        const p = (await t.client.post('/payment', cardPayment())).json();
        await t.app.inject({ method: 'POST', url: new URL(p.cancelUrl).pathname });
        await expireDuePayments(t.app.ports, p.created + 3600_000);
        const row = await findTransaction(t.store.read, p.reference);
        assert.equal(row?.failure_code, 'cancelled');
        assert.equal((await eventsOf(t.store.read, p.reference)).length, 2);
      });

      test('two sweepers at once expire each payment exactly once', async () => {
        const created = await Promise.all(Array.from({ length: 30 }, () => t.client.post('/payment', cardPayment({ metadata: 'sweep' }))));
        const later = Date.now() + 3600_000;
        const [a, b] = await Promise.all([expireDuePayments(t.app.ports, later), expireDuePayments(t.app.ports, later)]);
        const all = [...a, ...b];
        assert.equal(new Set(all).size, all.length, 'no payment expired twice');
        for (const res of created) {
          const events = await eventsOf(t.store.read, res.json().reference);
          assert.equal(events.filter((e) => e.to_status === 'failed').length, 1);
        }
      });
    });

    test('the event table is append-only', async () => {
      const p = (await t.client.post('/payment', cardPayment())).json();
      await assert.rejects(() =>
        t.store.transact((db) => db.updateTable('transaction_events').set({ cause: 'rewritten' }).where('reference', '=', p.reference).execute()),
      );
      await assert.rejects(() => t.store.transact((db) => db.deleteFrom('transaction_events').where('reference', '=', p.reference).execute()));
      assert.equal((await eventsOf(t.store.read, p.reference))[0].cause, 'created');
    });
  });
}
