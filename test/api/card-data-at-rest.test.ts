/**
 * No card number or CVC at rest (docs/decisions.md#vault, docs/architecture.md#quality-bars), checked as the outside attack run
 * checked it: Kassa runs as a real process (logging at trace level), every flow is paid with
 * its own test cards — card form frictionless, with a challenge, with the 3DS1 redirect,
 * declined, after mistyped attempts, authorised then captured or reversed, from the landing
 * page, stored with storeInVault and by an enrollment and paid again from the vault with the
 * CVC, the wallet's hosted sheet, direct token and hybrid cardDataUrl, a cancel — and then the
 * bytes are searched: on SQLite the database file, its WAL and shared memory, while Kassa runs
 * and again after a kill -9; on PostgreSQL a pg_dump; and everything Kassa logged.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { api, backends, basic, cardPayment, createTestDatabase, type MerchantApi, type TestDatabase } from '../support/app.ts';
import { childPids, httpInjector, kassaCli, startKassaProcess, waitForExit, type KassaProcess } from '../support/process.ts';
import { card, openPage, play3ds1, playChallenge, postForm } from '../pages/flow.ts';
import { mintTestWalletToken } from '../../src/wallet/index.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';

/** The cards typed on the forms, each with its own four-digit CVC (American Express), and those inside wallet tokens. */
const cards = {
  frictionless: { pan: '378282246310005', cvc: '7391' },
  challenge: { pan: '371449635398431', cvc: '8462' },
  threeDS1: { pan: '378734493671000', cvc: '5937' },
  /** Not Luhn-valid: refused on the form, and no more kept than a valid one. */
  mistyped: { pan: '378282246310006', cvc: '6284' },
};
const walletPans = { direct: '4012888888881881', hybrid: '5105105105105100', hostedSheet: '4111111111111111' };
const VALIDATION_URL = 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession';
const { browserInfo } = exampleThreeDSRequest();

/** As a customer types it: groups of 4, 6 and 5 for American Express, of 4 for the others. */
const typed = (pan: string) => (pan.length === 15 ? `${pan.slice(0, 4)} ${pan.slice(4, 10)} ${pan.slice(10)}` : pan.replace(/(\d{4})(?=\d)/g, '$1 '));

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** What must never be found, and how to find it in bytes read as latin1 text. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const pan of [...Object.values(cards).map((c) => c.pan), ...Object.values(walletPans)]) {
    // The whole number, as typed, and without its first six digits (the masked number keeps those and the last four).
    for (const form of [pan, typed(pan)]) if (text.includes(form)) found.push(`card number ${form}`);
    if (new RegExp(`(?<![0-9])${pan.slice(6)}(?![0-9])`).test(text)) found.push(`card number ${pan} without its first six digits`);
  }
  // A CVC alone (not inside a longer number or a base62 token), or named as one. Not inside a UUID
  // (the request ids of the log): one of its four-hex-digit groups is a given CVC about once in
  // 65,536 ids, and a run logs hundreds.
  const withoutUuids = text.replace(UUID, 'uuid');
  for (const { cvc } of Object.values(cards)) {
    if (new RegExp(`(?<![0-9A-Za-z])${cvc}(?![0-9A-Za-z])`).test(withoutUuids)) found.push(`CVC ${cvc}`);
  }
  if (/\b(cvc|cvv|csc)\W{1,4}\d{3,4}\b/i.test(text)) found.push('a CVC named as one');
  return found;
}

for (const backend of backends) {
  describe(`no card number or CVC at rest or in the logs (${backend})`, () => {
    let database: TestDatabase;
    let kassa: KassaProcess;
    let client: MerchantApi;
    let key: string;

    before(async () => {
      database = await createTestDatabase(backend);
      const env = {
        ...database.env,
        ...(backend === 'postgres' ? { VAULT_KEY: randomBytes(32).toString('base64'), VAULT_KEY_ID: 'at-rest-1' } : {}),
        LOG_LEVEL: 'trace',
        RATE_LIMIT_PER_SECOND: '0',
      };
      key = JSON.parse(kassaCli(env, 'merchant', 'create', '--name', 'At Rest Shop', '--json')).testApiKey;
      kassa = await startKassaProcess(env);
      client = api(httpInjector(kassa.baseUrl), key);
    });
    after(async () => {
      if (kassa.child.exitCode === null && kassa.child.signalCode === null) {
        kassa.child.kill('SIGTERM');
        await waitForExit(kassa.child);
      }
      await database.drop();
    });

    const http = () => httpInjector(kassa.baseUrl);
    const created = async (body: Record<string, unknown>, route = '/payment') => {
      const response = await client.post(route, body);
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { reference: string; payUrl: string; cancelUrl?: string; cardDataUrl?: string };
    };
    const read = async (reference: string) => (await client.get(`/transaction?reference=${reference}`)).json();
    /** The card form of a new payment paid with `paid`; answers the page's path and Kassa's answer to the submit. */
    async function payByCard(body: Record<string, unknown>, paid: { pan: string; cvc: string }) {
      const payment = await created(body);
      const { path, csrf } = await openPage(http(), payment.payUrl);
      const submitted = await postForm(http(), `${path}/card`, { csrf, ...card({ cardNumber: typed(paid.pan), cvc: paid.cvc, expiry: '12/34' }) });
      return { payment, path, csrf, submitted };
    }
    async function settled(reference: string) {
      for (let i = 0; i < 200; i++) {
        const payment = await read(reference);
        if (payment.status !== 'pending') return payment;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${reference} stayed pending`);
    }

    test('every flow, then the database and the log searched for card numbers and CVCs', async () => {
      const outcomes: Record<string, string> = {};
      const done = async (what: string, reference: string) => void (outcomes[what] = (await settled(reference)).status);

      const frictionless = await payByCard(cardPayment({ amount: '10.00' }), cards.frictionless);
      await done('frictionless', frictionless.payment.reference);

      const challenge = await payByCard(cardPayment({ amount: '10.11' }), cards.challenge);
      await playChallenge(http(), challenge.path, challenge.submitted.body, '1234');
      await done('challenge', challenge.payment.reference);

      const threeDS1 = await payByCard(cardPayment({ amount: '10.13' }), cards.threeDS1);
      await play3ds1(http(), threeDS1.path, threeDS1.submitted.body, '1234');
      await done('3ds1', threeDS1.payment.reference);

      await done('declined', (await payByCard(cardPayment({ amount: '10.21' }), cards.frictionless)).payment.reference);

      const mistyped = await payByCard(cardPayment({ amount: '10.00' }), cards.mistyped);
      assert.equal(mistyped.submitted.statusCode, 422);
      await postForm(http(), `${mistyped.path}/card`, { csrf: mistyped.csrf, ...card({ cardNumber: typed(cards.frictionless.pan), cvc: cards.frictionless.cvc }) });
      await done('after a mistyped card', mistyped.payment.reference);

      for (const followUp of ['/capture', '/reversal']) {
        const authorised = await payByCard(cardPayment({ amount: '10.00', transactionType: 'authorise' }), cards.frictionless);
        assert.equal((await client.post(followUp, { reference: authorised.payment.reference })).statusCode, 200);
        await done(followUp, authorised.payment.reference);
      }

      const landing = await created(cardPayment({ method: 'landingpage' }));
      const landingPage = await openPage(http(), landing.payUrl);
      await postForm(http(), `${landingPage.path}/method`, { csrf: landingPage.csrf, method: 'card' });
      await postForm(http(), `${landingPage.path}/card`, { csrf: landingPage.csrf, ...card({ cardNumber: typed(cards.threeDS1.pan), cvc: cards.threeDS1.cvc }) });
      await done('landing page', landing.reference);

      // Stored twice (a payment with storeInVault, an enrollment), then paid from the vault with the CVC typed (the confirm path).
      const stored = await payByCard(cardPayment({ amount: '10.00', storeInVault: 'yes' }), cards.challenge);
      await done('storeInVault', stored.payment.reference);
      const enrollment = await created({ dataType: 'card', returnUrl: 'https://shop.example/back' }, '/token');
      const enrollmentPage = await openPage(http(), enrollment.payUrl);
      await postForm(http(), `${enrollmentPage.path}/card`, { csrf: enrollmentPage.csrf, ...card({ cardNumber: typed(cards.threeDS1.pan), cvc: cards.threeDS1.cvc }) });
      await done('enrollment', enrollment.reference);
      for (const [source, cvc] of [
        [stored.payment.reference, cards.challenge.cvc],
        [enrollment.reference, cards.threeDS1.cvc],
      ]) {
        const vaultAccessToken = (await read(source)).details.vaultAccessToken;
        assert.ok(vaultAccessToken, `${source} stored its card`);
        const payment = await created(cardPayment({ amount: '11.00', details: { vaultAccessToken } }));
        const page = await openPage(http(), payment.payUrl);
        await postForm(http(), `${page.path}/vault`, { csrf: page.csrf, cvc, js: '0' });
        await done(`vault payment from ${source}`, payment.reference);
      }

      const hosted = await created(cardPayment({ method: 'walletpay' }));
      const hostedPage = await openPage(http(), hosted.payUrl);
      await postForm(http(), `${hostedPage.path}/wallet`, { csrf: hostedPage.csrf });
      await done('wallet sheet', hosted.reference);
      const token = (pan: string, amountMinor: number) =>
        mintTestWalletToken({ pan, expiry: '301231', amountMinor, currencyNumeric: '978', network: pan.startsWith('5') ? 'MasterCard' : 'Visa', type: 'debit' });
      const direct = await created({
        amount: '12.00',
        currency: 'EUR',
        method: 'walletpay',
        details: { walletPayEncryptedToken: await token(walletPans.direct, 1200) },
        browserInfo,
      });
      await done('wallet direct', direct.reference);
      const hybrid = await created({
        amount: '25.00',
        currency: 'EUR',
        method: 'walletpay',
        details: { walletPayValidationUrl: VALIDATION_URL, walletPayDomainName: 'shop.example' },
        browserInfo,
      });
      const intake = await http().inject({
        method: 'POST',
        url: new URL(hybrid.cardDataUrl!).pathname,
        headers: { 'content-type': 'application/json', authorization: basic(key) },
        payload: JSON.stringify({ encryptedToken: await token(walletPans.hybrid, 2500) }),
      });
      assert.equal(intake.statusCode, 200, intake.body);
      await done('wallet hybrid', hybrid.reference);

      const cancelled = await created(cardPayment());
      assert.equal((await http().inject({ method: 'POST', url: new URL(cancelled.cancelUrl!).pathname })).statusCode, 200);
      await done('cancel', cancelled.reference);

      assert.deepEqual(outcomes, {
        frictionless: 'success',
        challenge: 'success',
        '3ds1': 'success',
        declined: 'failed',
        'after a mistyped card': 'success',
        '/capture': 'success',
        '/reversal': 'success',
        'landing page': 'success',
        storeInVault: 'success',
        enrollment: 'success',
        [`vault payment from ${stored.payment.reference}`]: 'success',
        [`vault payment from ${enrollment.reference}`]: 'success',
        'wallet sheet': 'success',
        'wallet direct': 'success',
        'wallet hybrid': 'success',
        cancel: 'failed',
      });

      const searched: Record<string, string[]> = {};
      const search = (what: string, bytes: Buffer) => (searched[what] = leaks(bytes.toString('latin1')));
      if (backend === 'sqlite') {
        const files = () => fs.readdirSync(database.env.DATA_DIR).filter((name) => name.startsWith('kassa.db'));
        assert.ok(files().includes('kassa.db-wal'), 'the WAL is there to search while Kassa runs');
        for (const name of files()) search(`${name} while running`, fs.readFileSync(path.join(database.env.DATA_DIR, name)));
        // Killed, nothing is checkpointed or cleaned up: the files as a crash leaves them.
        const pids = [kassa.child.pid!, ...childPids(kassa.child.pid!)];
        for (const pid of pids) process.kill(pid, 'SIGKILL');
        await waitForExit(kassa.child);
        for (const name of files()) search(`${name} after kill -9`, fs.readFileSync(path.join(database.env.DATA_DIR, name)));
      } else {
        search('pg_dump', execFileSync('pg_dump', ['--no-owner', database.env.DATABASE_URL], { maxBuffer: 256 * 1024 * 1024 }));
      }
      search('log', Buffer.from(kassa.output(), 'utf8'));
      // One line per request (LOG_REQUESTS) and what trace adds: the search above read every request's lines.
      assert.ok((kassa.output().match(/"request completed"/g) ?? []).length > 30, 'Kassa logged the requests (LOG_LEVEL trace)');
      assert.deepEqual(searched, Object.fromEntries(Object.keys(searched).map((what) => [what, []])), 'nothing found anywhere');
    });
  });
}
