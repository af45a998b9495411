/**
 * What the fuzz (fuzz.test.ts) found, pinned on every backend: a NUL character in text
 * (PostgreSQL cannot store one, and answered 500), identifiers that can name nothing (sent to the
 * database, and a NUL in one answered 500), and JSON bodies on the forms, whose values need not
 * be text (a number where a form field is read answered 500).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';

const NUL = '\u0000';

for (const backend of backends) {
  describe(`hostile input on ${backend}`, () => {
    const t = suiteApp(backend);

    test('a NUL character in a text field of a payment or an enrollment is a 422 naming the field', async () => {
      for (const [field, value] of [
        ['description', `a${NUL}b`],
        ['metadata', NUL],
        ['merchantOrderReference', `order${NUL}`],
        ['returnUrl', `https://shop.example/${NUL}`],
        ['webhookUrl', `https://shop.example/${NUL}`],
      ]) {
        for (const [path, body] of [
          ['/payment', cardPayment({ [field]: value })],
          ['/token', { dataType: 'card', returnUrl: 'https://shop.example/back', [field]: value }],
        ] as const) {
          const response = await t.client.post(path, body);
          assert.equal(response.statusCode, 422, `${path} ${field}: ${response.body}`);
          assert.deepEqual(response.json().errors, [{ field: `/${field}`, code: 'format', message: 'must not contain the NUL character (U+0000)' }]);
        }
      }
    });

    test('a reference or capability token that no transaction can have is unknown, not an error', async () => {
      for (const path of ['/capture', '/reversal']) {
        const response = await t.client.post(path, { reference: `tr_${NUL}` });
        assert.equal(response.statusCode, 422, response.body);
        assert.deepEqual(response.json().errors, [{ field: '/reference', code: 'format', message: 'must be a transaction reference' }]);
        const unshaped = await t.client.post(path, { reference: 'tr_ x' });
        assert.deepEqual(unshaped.json().errors, [{ field: '/reference', code: 'format', message: 'must be a transaction reference' }]);
      }
      assert.equal((await t.client.post('/test/complete', { reference: `tr_${NUL}`, outcome: 'success' })).statusCode, 422);
      assert.equal((await t.client.get('/transaction?reference=tr_%00')).statusCode, 404);
      assert.deepEqual((await t.client.get('/transaction?references=tr_%00,tr_x')).json(), []);
      for (const url of ['/api/v1/cancel/a%00b', '/api/v1/card-data/a%00b']) {
        const response = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{}' });
        assert.equal(response.statusCode, 404, `${url}: ${response.body}`);
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/pay/a%00b' })).statusCode, 404);
    });

    test('3-D Secure ids that no session can have end the step as stale, not in an error', async () => {
      const payment = (await t.client.post('/payment', cardPayment({ amount: '10.11' }))).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      await postForm(t.app, `${path}/card`, { csrf, ...card() });
      const completion = await postForm(t.app, `${path}/3ds/complete`, { csrf, session: `a${NUL}b`, sealedCard: 'x' });
      assert.equal(completion.statusCode, 303, completion.body);
      const notify = await postForm(t.app, `${path}/3ds/notify`, { cres: Buffer.from(JSON.stringify({ threeDSServerTransID: `a${NUL}b` })).toString('base64url') });
      assert.equal(notify.statusCode, 403);
      const acs = await postForm(t.app, '/simulator/acs/challenge/answer', { acsTransID: `a${NUL}b`, token: 'x' });
      assert.equal(acs.statusCode, 404);
    });

    test('a JSON body on a form is read for its text fields only', async () => {
      const payment = (await t.client.post('/payment', cardPayment())).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const post = (url: string, body: unknown) => t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      for (const [url, body] of [
        ['/simulator/acs/challenge/answer', { acsTransID: true, token: 1 }],
        ['/simulator/acs/challenge', { creq: 5 }],
        ['/simulator/acs/3ds1', { PaReq: {}, TermUrl: [] }],
        [`${path}/card`, { csrf, cardNumber: 4111111111111111, expiry: { month: 12 }, cvc: 123 }],
        [`${path}/method`, { csrf, method: ['card'] }],
        [`${path}/3ds/notify`, { cres: false }],
      ] as const) {
        const response = await post(url, body);
        assert.ok(response.statusCode < 500, `${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
        if (response.statusCode !== 303) assert.match(String(response.headers['content-type']), /^text\/html/, url);
      }
      assert.equal((await post(`${path}/card`, { csrf: [csrf], ...card() })).statusCode, 303, 'a repeated field counts with its first value');
    });
  });
}
