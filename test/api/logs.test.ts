/**
 * Secrets never reach the log (DESIGN §4): run a server logging at trace level, pay by card
 * through the hosted page (with a 3-D Secure challenge), make failing calls, and look for
 * the API key, the card number, the CVC and the page token in every log line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { buildServer } from '../../src/server.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { card, openPage, playChallenge, postForm } from '../pages/flow.ts';
import type { FastifyInstance } from 'fastify';

describe('logs', () => {
  let database: TestDatabase;
  let store: Store;
  let app: FastifyInstance;
  const lines: string[] = [];
  before(async () => {
    database = await createTestDatabase('sqlite');
    const config = loadConfig({ ...database.env, PUBLIC_URL: 'http://kassa.test', LOG_LEVEL: 'trace' });
    store = await openStore(config);
    await store.migrate();
    app = await buildServer(config, store, { logStream: { write: (line) => void lines.push(line) } });
  });
  after(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });

  test('no API key, card number, CVC or page token appears in any log line', async () => {
    const merchant = await createMerchant(store, 'Log Shop');
    const client = api(app, merchant.testApiKey);
    const created = (await client.post('/payment', cardPayment({ amount: '20.11' }))).json();
    const { path, csrf } = await openPage(app, created.payUrl);
    const cardData = card({ cardNumber: '5555 5555 5555 4444', cvc: '987' });
    const challenge = await postForm(app, `${path}/card`, { csrf, ...cardData });
    const done = await playChallenge(app, path, challenge.body, '1234');
    assert.ok([200, 303].includes(done.statusCode), done.body);
    assert.equal((await client.get(`/transaction?reference=${created.reference}`)).json().status, 'success');
    await app.inject({ method: 'GET', url: '/api/v1/method', headers: { authorization: basic(`${merchant.testApiKey}x`) } });
    await client.post('/payment', { amount: 'oops', cardNumber: '5555555555554444' });

    const log = lines.join('');
    assert.ok(lines.length > 10, 'requests were logged');
    const token = new URL(created.payUrl).pathname.split('/').pop()!;
    for (const secret of [merchant.testApiKey, '5555555555554444', '5555 5555 5555 4444', token, basic(merchant.testApiKey).slice(6)]) {
      assert.ok(!log.includes(secret), `the log contains ${secret.slice(0, 6)}…`);
    }
    // A three-digit CVC (or the letters "cvc") could occur inside a timestamp or a random token by chance:
    // look for the value as a JSON string and for the field names as whole words.
    assert.ok(!log.includes('"987"') && !/\b(cvc|cardNumber)\b/i.test(log), 'the log mentions the CVC or card number field');
  });
});
