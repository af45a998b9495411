/**
 * The console's part of the audit trail (docs/console.md "Audit log"), on SQLite and PostgreSQL:
 * sign-ins (a failure for an unknown account the same as for a wrong password, in the page and in
 * the entry), sign-outs, a set-password link used, changes refused, views of the audit page and
 * its filters; each entry also one log line with `audit: true` that holds no password.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { buildServer } from '../../src/server.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { createOperator } from '../../src/operators/accounts.ts';
import { listAuditEntries } from '../../src/store/operators.ts';
import { csrfOf } from '../pages/flow.ts';
import { ConsoleClient, makeAccount, PASSWORD } from './support.ts';

type LogLine = { audit?: boolean; at: string; actor: string; action: string; outcome: string; subject: string | null; address: string };

for (const backend of backends) {
  describe(`console audit trail on ${backend}`, () => {
    let db: TestDatabase;
    let store: Store;
    let app: FastifyInstance;
    const lines: string[] = [];
    const auditLines = () => lines.map((line) => JSON.parse(line) as LogLine).filter((line) => line.audit === true);
    before(async () => {
      db = await createTestDatabase(backend);
      const config = loadConfig({ PUBLIC_URL: 'http://kassa.test', ...db.env });
      store = await openStore(config);
      await store.migrate();
      app = await buildServer(config, store, { logStream: { write: (line: string) => void lines.push(line) } });
    });
    after(async () => {
      await app.close();
      await store.close();
      await db.drop();
    });
    const entries = async () => listAuditEntries(store.read, { limit: 100 });

    test('every sign-in is audited with the client address, an unknown account like a wrong password, and no log line holds the password', async () => {
      await makeAccount(store, 'ops@kassa.test');
      const wrong = await new ConsoleClient(app).signIn('ops@kassa.test', 'not the password at all');
      const unknown = await new ConsoleClient(app).signIn('Nobody@kassa.test', 'not the password at all');
      assert.equal(wrong.statusCode, 401);
      // The page differs only in the e-mail it shows again, its nonce and its form's token.
      const page = (body: string, email: string) => body.replaceAll(email, 'EMAIL').replace(/nonce="[^"]+"|name="csrf" value="[^"]+"/g, '');
      assert.equal(page(unknown.body, 'Nobody@kassa.test'), page(wrong.body, 'ops@kassa.test'));
      const client = new ConsoleClient(app);
      assert.equal((await client.signIn('ops@kassa.test')).statusCode, 303);
      const [signedIn, failedUnknown, failedWrong] = await entries();
      const shape = (e: typeof signedIn) => ({
        id: e.operator_id,
        actor: e.operator_email,
        action: e.action,
        outcome: e.outcome,
        subject: e.subject,
        address: e.address,
        detail: e.detail,
      });
      assert.deepEqual(shape(failedWrong), {
        id: '',
        actor: 'ops@kassa.test',
        action: 'sign_in',
        outcome: 'failed',
        subject: 'ops@kassa.test',
        address: '127.0.0.1',
        detail: '{"result":"refused"}',
      });
      assert.deepEqual(
        shape(failedUnknown),
        { ...shape(failedWrong), actor: 'nobody@kassa.test', subject: 'nobody@kassa.test' },
        'the same entry whether the account exists or not',
      );
      assert.equal(signedIn.outcome, 'allowed');
      assert.notEqual(signedIn.operator_id, '');
      const logged = auditLines().filter((line) => line.action === 'sign_in');
      assert.deepEqual(
        logged.map((line) => [line.actor, line.outcome, line.address]),
        [
          ['ops@kassa.test', 'failed', '127.0.0.1'],
          ['nobody@kassa.test', 'failed', '127.0.0.1'],
          ['ops@kassa.test', 'allowed', '127.0.0.1'],
        ],
      );
      assert.ok(!lines.some((line) => line.includes(PASSWORD) || line.includes('not the password at all')), 'no password in any log line');

      const csrf = csrfOf((await client.get('/dashboard/payments')).body);
      assert.equal((await client.post('/dashboard/payments/nope/refund', { csrf, amount: '1.00' })).statusCode, 404);
      assert.equal((await client.post('/dashboard/payments/nope/refund', { amount: '1.00' })).statusCode, 403);
      assert.equal((await client.post('/dashboard/sign-out', { csrf })).statusCode, 303);
      const [signedOut, stale, notFound] = await entries();
      assert.deepEqual([notFound.action, notFound.outcome, notFound.subject], ['refund', 'refused', 'nope']);
      assert.deepEqual([stale.action, stale.outcome], ['refund', 'refused']);
      assert.deepEqual([signedOut.action, signedOut.outcome, signedOut.subject], ['sign_out', 'allowed', 'ops@kassa.test']);
    });

    test('a set-password link used is audited, never the password or the link', async () => {
      const invited = await createOperator(store, { email: 'invited@kassa.test', publicUrl: 'http://kassa.test' });
      const client = new ConsoleClient(app);
      const path = new URL(invited.setPasswordUrl!).pathname;
      const form = await client.get(path);
      const password = 'a brand new long password 7';
      assert.equal((await client.post(path, { csrf: csrfOf(form.body), password, repeat: password })).statusCode, 303);
      const [set] = await entries();
      assert.deepEqual([set.action, set.outcome, set.operator_id, set.subject], ['set_password', 'allowed', invited.operatorId, 'invited@kassa.test']);
      assert.ok(!lines.some((line) => line.includes(password) || line.includes(path.split('/').pop()!)));
    });

    test('the audit page filters by actor, action and outcome, each view is audited, and a merchant account sees no sign-in of others', async () => {
      const client = new ConsoleClient(app);
      await client.signIn('ops@kassa.test');
      const failed = await client.get('/dashboard/audit?outcome=failed&action=sign_in');
      assert.equal(failed.statusCode, 200);
      assert.match(failed.body, /nobody@kassa\.test/);
      assert.doesNotMatch(failed.body, /sign_out/);
      assert.match(failed.body, /<option value="failed" selected>Failed<\/option>/);
      const byActor = await client.get('/dashboard/audit?actor=nobody%40kassa.test');
      assert.doesNotMatch(byActor.body, /invited@kassa\.test/);
      assert.equal((await client.get('/dashboard/audit?actor=%00')).statusCode, 200, 'a filter no database stores finds nothing');
      const [view] = await entries();
      assert.deepEqual([view.action, view.outcome], ['view_audit', 'allowed']);
      assert.equal(auditLines().at(-1)!.action, 'view_audit');

      const { merchantId } = await createMerchant(store, 'Own Shop');
      await makeAccount(store, 'shop@kassa.test', merchantId);
      const shop = new ConsoleClient(app);
      await shop.signIn('shop@kassa.test');
      const own = await shop.get('/dashboard/audit');
      assert.doesNotMatch(own.body, /nobody@kassa\.test|ops@kassa\.test/);
      assert.match(own.body, /shop@kassa\.test/);
    });

    test('the audit log stays append-only', async () => {
      await assert.rejects(
        store.transact((db) => db.updateTable('audit_log').set({ outcome: 'allowed' }).execute()),
        /append-only/,
      );
    });
  });
}
