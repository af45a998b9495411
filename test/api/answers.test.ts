/**
 * What every answer carries (api/answer-headers.ts, api/errors.ts): `Cache-Control: no-store`,
 * HSTS when PUBLIC_URL is https, and for every error a problem in Kassa's words, also where
 * Fastify or Node answer before any route (a header section too large, an address that does
 * not decode, a request while stopping).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { backends, basic, cardPayment, startTestApp, suiteApp } from '../support/app.ts';
import { HSTS_MAX_AGE_S } from '../../src/api/answer-headers.ts';
import { buildServer } from '../../src/server.ts';

const PROBLEM = 'application/problem+json; charset=utf-8';

/** Writes `request` on a fresh connection and reads until the server closes it. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const parseRaw = (answer: string) => {
  const [head = '', body = ''] = answer.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as Record<string, unknown> };
};

for (const backend of backends) {
  describe(`answers on ${backend}`, () => {
    const t = suiteApp(backend);

    test('every API answer is no-store: success, replay, validation, 401, 404, an address locked out', async () => {
      const headers = { 'idempotency-reference': 'no-store-1' };
      const answers = {
        created: await t.client.post('/payment', cardPayment(), { headers }),
        replayed: await t.client.post('/payment', cardPayment(), { headers }),
        invalid: await t.client.post('/payment', cardPayment({ amount: 'x' })),
        unauthorized: await t.app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(`test_${'N'.repeat(30)}`) } }),
        unknown: await t.app.inject({ method: 'GET', url: '/api/v1/nothing' }),
        lockedOut: await (async () => {
          const wrong = { method: 'GET', url: '/api/v1/method', headers: { authorization: basic(`test_${'L'.repeat(30)}`) }, remoteAddress: '10.9.9.9' } as const;
          for (let i = 0; i < t.config.authFailureLimit; i++) await t.app.inject(wrong);
          return t.app.inject(wrong);
        })(),
        health: await t.app.inject({ method: 'GET', url: '/health' }),
      };
      assert.deepEqual(Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.statusCode])), {
        created: 200,
        replayed: 200,
        invalid: 422,
        unauthorized: 401,
        unknown: 404,
        lockedOut: 401,
        health: 200,
      });
      for (const [name, res] of Object.entries(answers)) assert.equal(res.headers['cache-control'], 'no-store', name);
      assert.ok(answers.created.json().payUrl, 'the answer that must not be cached');
    });

    test('no Strict-Transport-Security with an http PUBLIC_URL', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing' });
      assert.equal(res.headers['strict-transport-security'], undefined);
    });

    test('a Fastify refusal is told in Kassa’s words', async () => {
      const wrongLength = await t.app.inject({
        method: 'POST',
        url: '/api/v1/payment',
        payload: JSON.stringify(cardPayment()),
        headers: { authorization: basic(t.merchant.testApiKey), 'content-type': 'application/json', 'content-length': '9' },
      });
      const query = await t.client.get(`/transaction?reference=${'r'.repeat(65)}`);
      const repeated = await t.client.get('/transaction?reference=a&reference=b');
      const badAddress = await t.app.inject({ method: 'GET', url: '/api/v1/transaction/%E0%A4%A' });
      const longSegment = await t.app.inject({ method: 'POST', url: `/api/v1/cancel/${'x'.repeat(200)}` });
      for (const res of [wrongLength, query, repeated, badAddress, longSegment]) {
        assert.equal(res.headers['content-type'], PROBLEM, res.body);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.doesNotMatch(res.body, /FST_|Fastify|did not match|must NOT|is not a valid url component|exceeding the max param/, res.body);
      }
      assert.deepEqual(
        [wrongLength, badAddress, longSegment].map((res) => res.statusCode),
        [400, 400, 414],
      );
      assert.deepEqual(query.json().errors, [{ field: '/reference', code: 'max_length', message: 'must be at most 64 characters' }]);
      assert.equal(repeated.statusCode, 422);
      assert.equal(repeated.json().errors[0].field, '/reference');
    });

    test('headers too large (431) and what is not HTTP (400) are answered as problems', async () => {
      const server = await buildServer({ ...t.config, publicUrl: 'https://pay.example' }, t.store, { logger: false });
      try {
        await server.listen({ port: 0, host: '127.0.0.1' });
        const { port } = server.server.address() as net.AddressInfo;
        const tooLarge = parseRaw(await rawExchange(port, `GET /api/v1/method HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(http.maxHeaderSize)}\r\n\r\n`));
        const notHttp = parseRaw(await rawExchange(port, 'HELLO KASSA\r\n\r\n'));
        assert.equal(tooLarge.status, 431);
        assert.equal(notHttp.status, 400);
        for (const answer of [tooLarge, notHttp]) {
          assert.equal(answer.headers['content-type'], PROBLEM);
          assert.equal(answer.headers['cache-control'], 'no-store');
          assert.equal(answer.headers['strict-transport-security'], `max-age=${HSTS_MAX_AGE_S}`);
          assert.equal(answer.body.status, answer.status);
          assert.equal(typeof answer.body.detail, 'string');
        }
      } finally {
        await server.close();
      }
    });

    test('a request arriving while the server stops is a 503 problem', async () => {
      const server = await buildServer(t.config, t.store, { logger: false });
      let during: { status?: number; type?: string; body?: string } = {};
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const get = () =>
        new Promise<{ status?: number; type?: string; body: string }>((resolve, reject) => {
          const { port } = server.server.address() as net.AddressInfo;
          http
            .get({ port, host: '127.0.0.1', path: '/health', agent }, (res) => {
              let body = '';
              res.on('data', (chunk) => (body += chunk));
              res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
            })
            .on('error', reject);
        });
      // Stopping has begun (Kassa's own preClose hook ran first) but the listener is still open: a kept-alive connection can still bring a request.
      server.addHook('preClose', async () => {
        during = await get();
      });
      await server.listen({ port: 0, host: '127.0.0.1' });
      assert.equal((await get()).status, 200);
      await server.close();
      agent.destroy();
      assert.equal(during.status, 503);
      assert.equal(during.type, PROBLEM);
      assert.equal(JSON.parse(during.body!).title, 'Service stopping');
    });
  });
}

describe('answers with an https PUBLIC_URL', () => {
  test('Strict-Transport-Security is on every answer: API, error and page', async () => {
    const t = await startTestApp('sqlite', { PUBLIC_URL: 'https://pay.example' });
    try {
      const created = await t.client.post('/payment', cardPayment());
      const answers = [
        created,
        await t.app.inject({ method: 'GET', url: '/api/v1/nothing' }),
        await t.app.inject({ method: 'GET', url: new URL(created.json().payUrl).pathname }),
        await t.app.inject({ method: 'GET', url: '/pay/%E0%A4%A' }),
      ];
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [200, 404, 200, 400],
      );
      for (const res of answers) assert.equal(res.headers['strict-transport-security'], `max-age=${HSTS_MAX_AGE_S}`, res.body);
    } finally {
      await t.close();
    }
  });
});
