/**
 * The command line's part of the audit trail (docs/console.md "Audit log"): every command that
 * changes something is audited with the operating system's user and host, done or refused, and
 * written as a log line on standard error that holds no key; reading it (`kassa audit list`) is
 * audited too; commands that only read are not (SQLite and PostgreSQL).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { backends, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { kassaCliAsync as kassa } from '../support/process.ts';
import { parseSince } from '../../src/cli/audit-commands.ts';

type Entry = { at: string; actor: string; action: string; outcome: string; subject: string | null; address: string; detail: Record<string, unknown> };

const auditLines = (stderr: string): Entry[] =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Entry & { audit?: boolean })
    .filter((line) => line.audit === true);

test('--since takes an ISO 8601 time or a duration back from now, and refuses anything else', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  assert.equal(parseSince('2026-11-01T00:00:00Z', now), Date.parse('2026-11-01T00:00:00Z'));
  assert.equal(parseSince('PT1H', now), now - 3600_000);
  assert.equal(parseSince('P7D', now), now - 7 * 86_400_000);
  for (const wrong of ['yesterday', '1h', 'P1M', '']) assert.throws(() => parseSince(wrong, now), /ISO 8601/, wrong);
});

for (const backend of backends) {
  describe(`kassa audit on ${backend}`, () => {
    let db: TestDatabase;
    before(async () => (db = await createTestDatabase(backend)));
    after(() => db.drop());
    const actor = `${os.userInfo().username}@${os.hostname()}`;

    test('a command that changes something is audited with the user and host, and its log line on stderr holds no key', async () => {
      const created = await kassa(db.env, 'merchant', 'create', '--name', 'Audited', '--json');
      const { merchantId, testApiKey, liveApiKey } = JSON.parse(created.stdout);
      const [line] = auditLines(created.stderr);
      assert.deepEqual(
        { actor: line.actor, action: line.action, outcome: line.outcome, address: line.address, detail: line.detail },
        { actor, action: 'kassa merchant create', outcome: 'allowed', address: os.hostname(), detail: { name: 'Audited' } },
      );
      const rotated = await kassa(db.env, 'key', 'rotate', '--merchant', merchantId, '--mode', 'live', '--json');
      const { apiKey } = JSON.parse(rotated.stdout);
      for (const secret of [testApiKey, liveApiKey, apiKey]) assert.ok(!created.stderr.includes(secret) && !rotated.stderr.includes(secret), 'no key in a log line');
      const refused = await kassa(db.env, 'merchant', 'methods', '--merchant', merchantId, '--enable', 'cash').catch((error: { stderr: string }) => error);
      assert.equal(auditLines(refused.stderr)[0].outcome, 'refused');
      const listed = await kassa(db.env, 'merchant', 'list', '--json');
      assert.deepEqual(auditLines(listed.stderr), [], 'a command that only reads is not audited');

      const list = await kassa(db.env, 'audit', 'list', '--since', 'PT1H', '--json');
      const entries = list.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Entry);
      assert.deepEqual(
        entries.map((e) => [e.action, e.outcome, e.subject]),
        [
          ['kassa merchant methods', 'refused', merchantId],
          ['kassa key rotate', 'allowed', merchantId],
          ['kassa merchant create', 'allowed', null],
        ],
      );
      for (const e of entries) assert.deepEqual(Object.keys(e).slice(0, 5), ['at', 'actor', 'action', 'outcome', 'subject']);
      assert.equal(auditLines(list.stderr)[0].action, 'kassa audit list', 'reading the trail is audited');
      const again = await kassa(db.env, 'audit', 'list', '--outcome', 'allowed', '--action', 'kassa audit list');
      assert.match(again.stdout, new RegExp(`^\\S+Z  allowed  ${actor.replace(/[.]/g, '\\.')}  kassa audit list  from `));
      const future = await kassa(db.env, 'audit', 'list', '--since', '2999-01-01T00:00:00Z');
      assert.equal(future.stdout, 'no audit entries\n');
    });

    test('an account created and disabled on the command line is audited by its e-mail, never its password', async () => {
      const created = await kassa(db.env, 'operator', 'create', '--email', 'audited@kassa.test', '--public-url', 'http://kassa.test');
      assert.match(created.stdout, /set-password link/);
      const link = /(http:\/\/kassa\.test\/dashboard\/set-password\/\S+)/.exec(created.stdout)![1];
      assert.ok(!created.stderr.includes(link.split('/').pop()!), 'the link is not logged');
      await kassa(db.env, 'operator', 'disable', '--email', 'audited@kassa.test');
      const entries = (await kassa(db.env, 'audit', 'list', '--action', 'kassa operator create', '--json')).stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Entry);
      assert.deepEqual(
        entries.map((e) => [e.subject, e.detail]),
        [['audited@kassa.test', { email: 'audited@kassa.test', publicUrl: 'http://kassa.test' }]],
      );
      const disabled = (await kassa(db.env, 'audit', 'list', '--action', 'kassa operator disable', '--json')).stdout.trim();
      assert.equal((JSON.parse(disabled) as Entry).subject, 'audited@kassa.test');
    });
  });
}
