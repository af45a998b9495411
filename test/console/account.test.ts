/**
 * The console's sessions and passwords as PCI DSS v4.0 asks (docs/console.md "Signing in and
 * sessions", "Passwords", "Your account"), on SQLite and PostgreSQL: the idle timeout and the
 * session's lifetime, the lockout, the password rules and history, changing one's own password and
 * signing out everywhere, each audited.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, suiteApp } from '../support/app.ts';
import { ConsoleClient, makeAccount, PASSWORD } from './support.ts';
import { csrfOf } from '../pages/flow.ts';
import { signIn, LAST_USE_PRECISION_MS } from '../../src/operators/sessions.ts';
import { changeOwnPassword, issueSetPasswordLink } from '../../src/operators/password-changes.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { sha256Hex } from '../../src/lib/tokens.ts';
import type { Store } from '../../src/store/store.ts';

const sessionIdOf = (client: ConsoleClient) => /kassa_console=([^;]+)/.exec(client.cookie)![1];
const problemOf = (body: string) => /<div class="problem" role="alert"><p>([^<]+)</.exec(body)?.[1];
/** The account's own security entries: its sign-ins and sign-outs, audited too (docs/console.md "Audit log"), left out. */
const auditActions = async (store: Store, email: string) =>
  (
    await store.read
      .selectFrom('audit_log')
      .select('action')
      .where('operator_email', '=', email)
      .where('action', 'not in', ['sign_in', 'sign_out'])
      .orderBy('id')
      .execute()
  ).map((row) => row.action);

for (const backend of backends) {
  describe(`console sessions and passwords on ${backend}`, () => {
    const kassa = suiteApp(backend);
    const sessionRow = (client: ConsoleClient) =>
      kassa.store.read
        .selectFrom('console_sessions')
        .selectAll()
        .where('id_hash', '=', sha256Hex(sessionIdOf(client)))
        .executeTakeFirstOrThrow();
    const setSession = (client: ConsoleClient, values: { last_used?: number; expires_at?: number }) =>
      kassa.store.transact((db) =>
        db
          .updateTable('console_sessions')
          .set(values)
          .where('id_hash', '=', sha256Hex(sessionIdOf(client)))
          .execute(),
      );

    test('a session lasts CONSOLE_SESSION_LIFETIME at most; unused for CONSOLE_IDLE_TIMEOUT it ends; its last use is written at most once a minute', async () => {
      const { idleTimeoutMs, sessionLifetimeMs } = kassa.config.console;
      assert.deepEqual([idleTimeoutMs, sessionLifetimeMs], [15 * 60_000, 12 * 3600_000], 'the defaults');
      await makeAccount(kassa.store, 'idle@kassa.test');
      const client = new ConsoleClient(kassa.app);
      const signedIn = await client.signIn('idle@kassa.test');
      assert.equal(signedIn.cookies.find((c) => c.name === 'kassa_console')!.maxAge, sessionLifetimeMs / 1000);
      const row = await sessionRow(client);
      assert.equal(row.expires_at - row.created, sessionLifetimeMs);
      assert.equal((await client.get('/dashboard/payments')).statusCode, 200);
      assert.equal((await sessionRow(client)).last_used, row.created, 'a use within the minute writes nothing');
      const stale = Date.now() - LAST_USE_PRECISION_MS - 1000;
      await setSession(client, { last_used: stale });
      assert.equal((await client.get('/dashboard/payments')).statusCode, 200);
      assert.ok((await sessionRow(client)).last_used > stale, 'a use after a minute moves the last use');
      await setSession(client, { last_used: Date.now() - idleTimeoutMs - 1000 });
      const idle = await client.get('/dashboard/payments');
      assert.deepEqual([idle.statusCode, idle.headers.location], [303, '/dashboard/sign-in'], 'an idle session has ended');
      assert.equal((await runHousekeeping(kassa.config, kassa.store)).consoleSessions >= 1, true, 'housekeeping deletes idle sessions');

      const busy = new ConsoleClient(kassa.app);
      await busy.signIn('idle@kassa.test');
      await setSession(busy, { expires_at: Date.now() - 1 });
      assert.equal((await busy.get('/dashboard/payments')).statusCode, 303, 'past its lifetime a session ends however used');
    });

    test('the failure that reaches CONSOLE_LOCKOUT_ATTEMPTS locks the account for CONSOLE_LOCKOUT_DURATION from then: the right password is answered as a wrong one, as for an unknown account; audited', async () => {
      const security = kassa.config.console;
      assert.deepEqual([security.lockoutAttempts, security.lockoutMs], [10, 30 * 60_000], 'the defaults');
      await makeAccount(kassa.store, 'locked@kassa.test');
      const start = Date.now();
      const attempt = (email: string, password: string, at: number) => signIn(kassa.store, security, { email, password, address: `198.51.100.${at % 7}` }, at);
      // Nine failures early in the window, the tenth near its end: the lock runs from the tenth.
      for (let i = 0; i < security.lockoutAttempts - 1; i++) assert.equal((await attempt('locked@kassa.test', `wrong ${i}`, start + i)).outcome, 'refused');
      const lockedAt = start + security.lockoutMs - 60_000;
      assert.equal((await attempt('locked@kassa.test', 'wrong again', lockedAt)).outcome, 'refused');
      for (let i = 0; i < security.lockoutAttempts; i++) await attempt('nobody-locked@kassa.test', `guess ${i}`, start + i);
      const right = await attempt('locked@kassa.test', PASSWORD, lockedAt + security.lockoutMs - 120_000);
      const wrong = await attempt('locked@kassa.test', 'wrong once more', lockedAt + security.lockoutMs - 120_000);
      const unknown = await attempt('nobody-locked@kassa.test', PASSWORD, start + 20);
      assert.equal(right.outcome, 'throttled', 'locked past the window the first failure began');
      assert.deepEqual(
        [right, wrong, unknown].map((answer) => answer.outcome),
        ['throttled', 'throttled', 'throttled'],
      );
      assert.equal((await attempt('locked@kassa.test', PASSWORD, lockedAt + security.lockoutMs + 1000)).outcome, 'signed-in', 'the lock ends');
      assert.deepEqual(await auditActions(kassa.store, 'locked@kassa.test'), ['account_locked']);

      // Over HTTP a locked account's right password gets the page a wrong one gets.
      await makeAccount(kassa.store, 'locked-http@kassa.test');
      for (let i = 0; i < security.lockoutAttempts; i++) await new ConsoleClient(kassa.app).signIn('locked-http@kassa.test', `wrong ${i}`);
      const [rightPage, wrongPage] = [
        await new ConsoleClient(kassa.app).signIn('locked-http@kassa.test'),
        await new ConsoleClient(kassa.app).signIn('locked-http@kassa.test', 'wrong'),
      ];
      assert.deepEqual([rightPage.statusCode, problemOf(rightPage.body)], [429, 'Too many attempts. Try again later.']);
      assert.deepEqual([wrongPage.statusCode, problemOf(wrongPage.body)], [rightPage.statusCode, problemOf(rightPage.body)]);
    });

    test('a password set through a link keeps the rules, each named, and is none of the last four; the link ends the sessions', async () => {
      await makeAccount(kassa.store, 'rules@kassa.test');
      const signedIn = new ConsoleClient(kassa.app);
      await signedIn.signIn('rules@kassa.test');
      const path = new URL(await issueSetPasswordLink(kassa.store, 'rules@kassa.test', 'http://kassa.test')).pathname;
      const client = new ConsoleClient(kassa.app);
      const csrf = csrfOf((await client.get(path)).body);
      const refused = async (password: string) => {
        const answer = await client.post(path, { csrf, password, repeat: password });
        assert.equal(answer.statusCode, 422, password);
        return problemOf(answer.body);
      };
      assert.equal(await refused('short 1'), 'The password must be at least 12 characters.');
      assert.equal(await refused('only letters here'), 'The password must contain at least one digit.');
      assert.equal(await refused('1234 5678 9012'), 'The password must contain at least one letter.');
      assert.equal(await refused(PASSWORD), 'The password must not be one of your last 4 passwords.');
      const differ = await client.post(path, { csrf, password: 'a new password 1', repeat: 'a new password 2' });
      assert.deepEqual([differ.statusCode, problemOf(differ.body)], [422, 'The two passwords are not the same.']);
      assert.equal((await client.post(path, { csrf, password: 'a new password 1', repeat: 'a new password 1' })).statusCode, 303);
      assert.equal((await signedIn.get('/dashboard/payments')).statusCode, 303, 'the sessions from before the link have ended');
      assert.equal((await new ConsoleClient(kassa.app).signIn('rules@kassa.test', 'a new password 1')).statusCode, 303);
      assert.deepEqual(await auditActions(kassa.store, 'rules@kassa.test'), ['reset_password_link', 'set_password']);
    });

    test('changing one’s own password asks the current one and the new one twice, ends the other sessions only, and is audited', async () => {
      await makeAccount(kassa.store, 'change@kassa.test');
      const here = new ConsoleClient(kassa.app);
      const elsewhere = new ConsoleClient(kassa.app);
      await here.signIn('change@kassa.test');
      await elsewhere.signIn('change@kassa.test');
      const page = await here.get('/dashboard/account');
      assert.equal(page.statusCode, 200);
      const csrf = csrfOf(page.body);
      const change = (fields: Record<string, string>) => here.post('/dashboard/account/password', fields);
      assert.equal((await change({ current: PASSWORD, password: 'changed pass 1', repeat: 'changed pass 1' })).statusCode, 403, 'without the CSRF token');
      const wrongCurrent = await change({ csrf, current: 'not it at all 1', password: 'changed pass 1', repeat: 'changed pass 1' });
      assert.deepEqual([wrongCurrent.statusCode, problemOf(wrongCurrent.body)], [422, 'The current password is not right.']);
      const weak = await change({ csrf, current: PASSWORD, password: 'changed pass', repeat: 'changed pass' });
      assert.deepEqual([weak.statusCode, problemOf(weak.body)], [422, 'The password must contain at least one digit.']);
      const same = await change({ csrf, current: PASSWORD, password: PASSWORD, repeat: PASSWORD });
      assert.deepEqual([same.statusCode, problemOf(same.body)], [422, 'The password must not be one of your last 4 passwords.']);
      const changed = await change({ csrf, current: PASSWORD, password: 'changed pass 1', repeat: 'changed pass 1' });
      assert.deepEqual([changed.statusCode, changed.headers.location], [303, '/dashboard/account?passwordChanged']);
      assert.match((await here.get('/dashboard/account?passwordChanged')).body, /Your password is changed/);
      assert.equal((await elsewhere.get('/dashboard/payments')).statusCode, 303, 'the other session has ended');
      assert.equal((await new ConsoleClient(kassa.app).signIn('change@kassa.test')).statusCode, 401, 'the old password no longer works');
      assert.equal((await new ConsoleClient(kassa.app).signIn('change@kassa.test', 'changed pass 1')).statusCode, 303);
      // The form refused once (a wrong current password) is audited as refused, then the change.
      assert.deepEqual(await auditActions(kassa.store, 'change@kassa.test'), ['password', 'change_password']);

      // Four passwords are kept: after three more changes the first may come back.
      const session = { operator: await operatorOf(kassa.store, 'change@kassa.test'), idHash: sha256Hex(sessionIdOf(here)) };
      let current = 'changed pass 1';
      for (const next of ['changed pass 2', 'changed pass 3', 'changed pass 4']) {
        assert.equal((await changeOwnPassword(kassa.store, session, { current, password: next }, { address: '192.0.2.9' })).outcome, 'set');
        current = next;
      }
      assert.deepEqual(await changeOwnPassword(kassa.store, session, { current, password: 'changed pass 1' }, { address: '192.0.2.9' }), {
        outcome: 'refused',
        problem: 'reused',
      });
      assert.deepEqual(await changeOwnPassword(kassa.store, session, { current, password: PASSWORD }, { address: '192.0.2.9' }), { outcome: 'set' });
      const kept = await kassa.store.read.selectFrom('password_history').select('id').where('operator_id', '=', session.operator.operatorId).execute();
      assert.equal(kept.length, 4);
    });

    test('signing out everywhere ends every session of the account, audited', async () => {
      await makeAccount(kassa.store, 'everywhere@kassa.test');
      const clients = [new ConsoleClient(kassa.app), new ConsoleClient(kassa.app)];
      for (const client of clients) await client.signIn('everywhere@kassa.test');
      const csrf = csrfOf((await clients[0].get('/dashboard/account')).body);
      const out = await clients[0].post('/dashboard/sign-out-everywhere', { csrf });
      assert.deepEqual([out.statusCode, out.headers.location], [303, '/dashboard/sign-in?signedOut']);
      for (const client of clients) assert.equal((await client.get('/dashboard/payments')).statusCode, 303);
      assert.deepEqual(await auditActions(kassa.store, 'everywhere@kassa.test'), ['sign_out_everywhere']);
    });
  });
}

async function operatorOf(store: Store, email: string) {
  const row = await store.read.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  return { operatorId: row.id, email: row.email, merchantId: row.merchant_id };
}
