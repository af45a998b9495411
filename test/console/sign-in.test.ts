/**
 * Signing in to the console under attack, on SQLite and PostgreSQL (docs/console.md "Signing in and
 * sessions"): sign-ins for one account sent at once never get more than CONSOLE_LOCKOUT_ATTEMPTS
 * passwords checked, in one process and in two; a flood of sign-ins beyond the process's password
 * slots is answered 429 at once, counting and checking nothing, while payments go on; and the
 * pre-session forms accept only a cookie and token Kassa issued together.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { backends, cardPayment, createTestDatabase, suiteApp, type Injector, type TestDatabase } from '../support/app.ts';
import { childPids, httpInjector, kassaCli, kassaCliWithInput, startKassaProcess, type KassaProcess } from '../support/process.ts';
import { FORM, csrfOf } from '../pages/flow.ts';
import { makeAccount, PASSWORD } from './support.ts';
import { ADDRESS_WINDOW_MS } from '../../src/operators/sessions.ts';
import { loadConfig } from '../../src/config.ts';
import { countSignInAttempt } from '../../src/store/operators.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { formTokenOf, randomBase62 } from '../../src/lib/tokens.ts';
import { SecretBox } from '../../src/lib/secret-box.ts';
import { randomBytes } from 'node:crypto';

const BUSY = 'Kassa is busy checking other passwords.';
/** The lockout every suite here runs with: the defaults (10 failures, 30 minutes). */
const { lockoutAttempts, lockoutMs } = loadConfig({}).console;

interface PreSessionForm {
  cookie: string;
  csrf: string;
}

/** The cookies an answer sets, as a Cookie header's value; from the headers, which an answer over real HTTP has too. */
const cookieHeaderOf = (answer: LightMyRequestResponse) =>
  ([] as string[])
    .concat(answer.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');

/** A pre-session form as a browser gets it: the pre-session cookie and the form's token. */
async function formOf(app: Injector, url: string): Promise<PreSessionForm> {
  const page = await app.inject({ method: 'GET', url });
  return { cookie: cookieHeaderOf(page), csrf: csrfOf(page.body) };
}
const signInForm = (app: Injector) => formOf(app, '/dashboard/sign-in');

function postSignIn(
  app: Injector,
  form: PreSessionForm,
  fields: { email: string; password: string },
  options: { remoteAddress?: string; headers?: Record<string, string> } = {},
) {
  return app.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: { ...FORM, cookie: form.cookie, ...options.headers },
    payload: new URLSearchParams({ csrf: form.csrf, ...fields }).toString(),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

const busy = (answer: LightMyRequestResponse) => answer.statusCode === 429 && answer.body.includes(BUSY);
const throttled = (answer: LightMyRequestResponse) => answer.statusCode === 429 && answer.body.includes('Too many attempts');

/** A sign-in sent again while it is answered busy, as a client honouring Retry-After would: its first answer that was counted. */
async function counted(send: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  for (;;) {
    const answer = await send();
    if (!busy(answer)) return answer;
    assert.equal(answer.headers['retry-after'], '1');
    // Sooner than Retry-After asks, to keep the guesses concurrent; later than at once, to keep the suite light.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** 60 wrong guesses for one account at once, each sent until counted, then the right password: what each was answered. */
async function guessAtOnce(app: Injector, email: string, remoteAddress?: string) {
  const form = await signInForm(app);
  const guesses = await Promise.all(
    Array.from({ length: 60 }, (_, i) => counted(() => postSignIn(app, form, { email, password: `wrong guess ${i}` }, { remoteAddress }))),
  );
  const right = await counted(() => postSignIn(app, form, { email, password: PASSWORD }, { remoteAddress }));
  return { guesses, right };
}

function assertAtMostTheLimitChecked({ guesses, right }: Awaited<ReturnType<typeof guessAtOnce>>) {
  const checked = guesses.filter((a) => a.statusCode === 401).length;
  assert.ok(checked <= lockoutAttempts, `${checked} passwords checked`);
  assert.equal(guesses.filter(throttled).length, guesses.length - checked, guesses.map((a) => a.statusCode).join(' '));
  assert.ok(throttled(right), `the right password while throttled: ${right.statusCode}`);
  const retryAfter = Number(right.headers['retry-after']);
  assert.ok(retryAfter > 0 && retryAfter <= lockoutMs / 1000, `Retry-After ${retryAfter}`);
}

for (const backend of backends) {
  describe(`signing in under attack on ${backend}`, () => {
    const kassa = suiteApp(backend);

    test('sixty units counting one subject at once each get a count of their own', async () => {
      const now = Date.now();
      const windows = await Promise.all(
        Array.from({ length: 60 }, () => kassa.store.transact((db) => countSignInAttempt(db, 'account:race@kassa.test', now, lockoutMs))),
      );
      assert.deepEqual(
        windows.map((w) => w.attempts).sort((a, b) => a - b),
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
    });

    test('the purge of ended windows and a sign-in counting the same two rows never deadlock', async () => {
      const now = Date.now();
      const ended = now - Math.max(ADDRESS_WINDOW_MS, lockoutMs) - 1000;
      const account = `account:purge-${randomBase62(6)}@kassa.test`;
      const address = `address:purge-${randomBase62(6)}`;
      // Ended windows of both, the address's stored first: a purge scanning in storage order meets it first.
      await kassa.store.transact((db) => countSignInAttempt(db, address, ended, ADDRESS_WINDOW_MS));
      await kassa.store.transact((db) => countSignInAttempt(db, account, ended, lockoutMs));
      // A sign-in's unit (operators/sessions.ts) holds the account's row while the purge runs, then counts the address.
      let purgeStarted: () => void = () => {};
      const purgeHasStarted = new Promise<void>((resolve) => (purgeStarted = resolve));
      const signIn = kassa.store.transact(async (db) => {
        await countSignInAttempt(db, account, now, lockoutMs);
        await purgeHasStarted;
        // Long enough for the purge to reach the account's row and wait for it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return countSignInAttempt(db, address, now, ADDRESS_WINDOW_MS);
      });
      const purge = runHousekeeping(kassa.config, kassa.store, now);
      purgeStarted();
      const [signedIn, purged] = await Promise.allSettled([signIn, purge]);
      assert.equal(signedIn.status, 'fulfilled', String((signedIn as PromiseRejectedResult).reason));
      assert.equal(purged.status, 'fulfilled', String((purged as PromiseRejectedResult).reason));
      assert.equal(signedIn.value.attempts, 1, 'the address counted in a window of its own');
    });

    test('sixty wrong sign-ins for one account at once get at most ten passwords checked (the lockout), the rest 429; the right one is then refused', async () => {
      await makeAccount(kassa.store, 'burst@kassa.test');
      const answers = await guessAtOnce(kassa.app, 'burst@kassa.test', '192.0.2.1');
      assertAtMostTheLimitChecked(answers);
      assert.equal(answers.guesses.filter((a) => a.statusCode === 401).length, lockoutAttempts, 'every guess was counted, so the first ten were checked');
    });

    test('a successful sign-in does not count against its address', async () => {
      await makeAccount(kassa.store, 'office@kassa.test');
      const form = await signInForm(kassa.app);
      for (let i = 0; i < 30; i++)
        assert.equal((await postSignIn(kassa.app, form, { email: 'office@kassa.test', password: PASSWORD }, { remoteAddress: '192.0.2.2' })).statusCode, 303);
    });

    test('a flood of sign-ins beyond the password slots is answered 429 at once, counting nothing, while payments go on', async () => {
      const form = await signInForm(kassa.app);
      // Unknown accounts, each from an address of its own: no failed-sign-in limit stops any of them.
      const flood = Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          postSignIn(kassa.app, form, { email: `nobody-${i}@flood.test`, password: 'not a password' }, { remoteAddress: `198.51.100.${i}` }),
        ),
      );
      const payments: number[] = [];
      for (let i = 0; i < 5; i++) payments.push((await kassa.client.post('/payment', cardPayment())).statusCode);
      const answers = await flood;
      const refusedBusy = answers.filter(busy);
      assert.ok(refusedBusy.length > 0, 'some were refused busy');
      assert.ok(refusedBusy.every((a) => a.headers['retry-after'] === '1'));
      const checked = answers.filter((a) => a.statusCode === 401);
      assert.equal(checked.length + refusedBusy.length, answers.length, answers.map((a) => a.statusCode).join(' '));
      const countedAccounts = await kassa.store.read.selectFrom('sign_in_attempts').select('subject').where('subject', 'like', 'account:nobody-%@flood.test').execute();
      assert.equal(countedAccounts.length, checked.length, 'a busy answer counted nothing');
      assert.deepEqual(payments, [200, 200, 200, 200, 200]);
    });

    test('the sign-in form refuses a cookie and token Kassa did not issue together', async () => {
      await makeAccount(kassa.store, 'forged@kassa.test');
      const fields = { email: 'forged@kassa.test', password: PASSWORD };
      const preSession = randomBase62(32);
      const otherKey = new SecretBox(randomBytes(32));
      const issued = await signInForm(kassa.app);
      const forged: [string, PreSessionForm][] = [
        ['the cookie value as the token (a double-submit pair anyone can make)', { cookie: `kassa_console_form=${preSession}`, csrf: preSession }],
        ['a token derived with another key', { cookie: `kassa_console_form=${preSession}`, csrf: formTokenOf(otherKey, preSession) }],
        ['an issued token with another cookie', { cookie: `kassa_console_form=${preSession}`, csrf: issued.csrf }],
        ['an issued token without its cookie', { cookie: '', csrf: issued.csrf }],
      ];
      for (const [what, form] of forged) {
        const answer = await postSignIn(kassa.app, form, fields);
        assert.equal(answer.statusCode, 403, what);
        assert.equal(
          answer.cookies.find((c) => c.name === 'kassa_console'),
          undefined,
          what,
        );
      }
      const fromSibling = await postSignIn(kassa.app, issued, fields, { headers: { 'sec-fetch-site': 'same-site' } });
      assert.equal(fromSibling.statusCode, 403, 'posted from a sibling subdomain, which can set cookies for this host');
      assert.equal((await postSignIn(kassa.app, issued, fields, { headers: { 'sec-fetch-site': 'same-origin' } })).statusCode, 303, 'the pair Kassa issued');
    });

    test('the set-password form refuses a cookie and token Kassa did not issue together', async () => {
      const { createOperator } = await import('../../src/operators/accounts.ts');
      const invited = await createOperator(kassa.store, { email: 'invited-forged@kassa.test', publicUrl: 'http://kassa.test' });
      const path = new URL(invited.setPasswordUrl!).pathname;
      const preSession = randomBase62(32);
      const post = (cookie: string, csrf: string) =>
        kassa.app.inject({
          method: 'POST',
          url: path,
          headers: { ...FORM, cookie },
          payload: new URLSearchParams({ csrf, password: PASSWORD, repeat: PASSWORD }).toString(),
        });
      const forged = await post(`kassa_console_form=${preSession}`, preSession);
      assert.equal(forged.statusCode, 422);
      assert.match(forged.body, /This form expired or was not sent from this page/);
      const issued = await formOf(kassa.app, path);
      assert.equal((await post(issued.cookie, issued.csrf)).statusCode, 303);
    });
  });
}

if (backends.includes('postgres')) {
  describe('signing in under attack on two HTTP processes on postgres', () => {
    let db: TestDatabase;
    let kassa: KassaProcess;
    before(async () => {
      db = await createTestDatabase('postgres');
      kassaCli(db.env, 'merchant', 'create', '--name', 'Sign-in Shop', '--json');
      kassaCliWithInput(db.env, PASSWORD, 'operator', 'create', '--email', 'cluster@kassa.test', '--password-stdin');
      kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: '2', RATE_LIMIT_PER_SECOND: '0' });
      for (let i = 0; i < 600 && childPids(kassa.child.pid!).length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(childPids(kassa.child.pid!).length, 2, kassa.output());
    });
    after(async () => {
      if (kassa?.child.exitCode === null) kassa.child.kill('SIGKILL');
      await db?.drop();
    });

    test('sixty wrong sign-ins for one account at once, over separate connections to two processes, get at most ten passwords checked', async () => {
      assertAtMostTheLimitChecked(await guessAtOnce(httpInjector(kassa.baseUrl), 'cluster@kassa.test'));
    });
  });
}
