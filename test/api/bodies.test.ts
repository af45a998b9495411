/**
 * JSON bodies (api/json-body.ts): nested at most 32 levels, checked before anything reads the
 * body (the Idempotency-Reference fingerprint included), and UTF-8 only. A refused body is a
 * 400 problem and leaves nothing behind: the same Idempotency-Reference then runs afresh.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, basic, cardPayment, suiteApp } from '../support/app.ts';
import { MAX_JSON_DEPTH } from '../../src/api/json-body.ts';

const PROBLEM = 'application/problem+json; charset=utf-8';

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

for (const backend of backends) {
  describe(`JSON bodies on ${backend}`, () => {
    const t = suiteApp(backend);
    const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url,
        payload,
        headers: { authorization: basic(t.merchant.testApiKey), 'content-type': 'application/json', ...headers },
      });

    test('6,000 levels of nesting with an Idempotency-Reference is a 400 problem naming the limit on every POST route, not a 500', async () => {
      const created = (await t.client.post('/payment', cardPayment())).json();
      const token = (url: string) => new URL(url).pathname.split('/').pop()!;
      const deep = nested(6000);
      assert.ok(deep.length > 35_000);
      const routes = [
        '/api/v1/payment',
        '/api/v1/token',
        '/api/v1/capture',
        '/api/v1/reversal',
        '/api/v1/test/complete',
        `/api/v1/cancel/${token(created.cancelUrl)}`,
        `/api/v1/card-data/${token(created.payUrl)}`,
      ];
      for (const [i, url] of routes.entries()) {
        const res = await post(url, deep, { 'idempotency-reference': `deep-${i}` });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.equal(res.json().status, 400);
        assert.match(res.json().detail, new RegExp(`\\b${MAX_JSON_DEPTH} levels\\b`), url);
      }
      assert.equal((await t.client.get(`/transaction?reference=${created.reference}`)).json().status, 'pending', 'the deep cancel changed nothing');
    });

    test('32 levels are read as any body; 33 are refused', async () => {
      // The body itself is the first level: an unknown field nesting 31 more is ignored (docs/api.md#existing-clients).
      const within = `{"ignored":${nested(MAX_JSON_DEPTH - 1)},${JSON.stringify(cardPayment()).slice(1)}`;
      const accepted = await post('/api/v1/payment', within);
      assert.equal(accepted.statusCode, 200, accepted.body);
      const beyond = `{"ignored":${nested(MAX_JSON_DEPTH)},${JSON.stringify(cardPayment()).slice(1)}`;
      assert.equal((await post('/api/v1/payment', beyond)).statusCode, 400);
      const arrays = `{"ignored":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)},${JSON.stringify(cardPayment()).slice(1)}`;
      assert.equal((await post('/api/v1/payment', arrays)).statusCode, 400, 'arrays count as levels too');
    });

    test('a body that is not valid UTF-8 is a 400 problem; the Idempotency-Reference stays free for the corrected body', async () => {
      const [head, tail] = JSON.stringify(cardPayment({ description: 'café' })).split('café');
      const bytes = (...middle: number[]) => Buffer.concat([Buffer.from(head!), Buffer.from(middle), Buffer.from(tail!)]);
      const cases = {
        'a Latin-1 é': bytes(0x63, 0x61, 0x66, 0xe9),
        'a stray continuation byte': bytes(0x80),
        'an overlong encoding of "/"': bytes(0xc0, 0xaf),
        'an encoded UTF-16 surrogate': bytes(0xed, 0xa0, 0x80),
        'a sequence cut short': bytes(0x63, 0x61, 0x66, 0xc3),
      };
      for (const [name, payload] of Object.entries(cases)) {
        const res = await post('/api/v1/payment', payload, { 'idempotency-reference': 'utf8-order' });
        assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.match(res.json().detail, /UTF-8/, name);
      }
      const fixed = await post('/api/v1/payment', bytes(0x63, 0x61, 0x66, 0xc3, 0xa9), { 'idempotency-reference': 'utf8-order' });
      assert.equal(fixed.statusCode, 200, fixed.body);
      assert.equal(fixed.headers['idempotent-replayed'], undefined);
      assert.equal(fixed.json().description, 'café');
    });
  });
}
