/**
 * Crash safety (docs/architecture.md#quality-bars), the outside attack run's `kill -9` kept in the suite: Kassa (a
 * primary and its HTTP processes) is killed with SIGKILL under create load KASSA_CRASH_KILLS
 * times (2 in `npm test`, 50 with `npm run crash`), each time at a random moment, and restarted.
 * Refunds and captures of payments paid before the load run under it too. After each restart
 * every payment acknowledged before the kill reads back unchanged; once the recovery job has
 * finished what the kill cut off (docs/acquirers.md "Claims and leases"), no claim is left, every
 * refund and capture is final or `manualintervention` with its cause, no sale's refunds exceed
 * what was paid, and every request sent is retried with its Idempotency-Reference: an
 * acknowledged one replays its original answer, the others get a final answer, never 409; in the
 * end there is exactly one payment per reference. Also: SIGTERM stops Kassa cleanly with exit
 * code 0, and a wallet payment cut off by a kill is resumed once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { childPids, kassaCli, startKassaProcess, waitForExit, type KassaProcess } from '../support/process.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { mintTestWalletToken } from '../../src/wallet/index.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';

const KILLS = Number(process.env.KASSA_CRASH_KILLS ?? 2);
const CLIENTS = 16;
/** Clients sending refunds and captures meanwhile, and the sales and authorisations (10.00 each) paid for them before each life's load. */
const FOLLOW_UP_CLIENTS = 4;
const PAID = 6;

type Payment = { reference: string } & Record<string, unknown>;

/** A refund or capture sent under the load, with its Idempotency-Reference. */
interface FollowUp {
  path: '/refund' | '/capture';
  body: { reference: string; amount: string };
  idempotencyReference: string;
}

/** What one life of Kassa was sent before its kill: every Idempotency-Reference, and the answers that arrived. */
interface Life {
  attempted: string[];
  acknowledged: Map<string, Payment>;
  /** How many acknowledged payments this life's kill waited for (random). */
  killedAfter: number;
  followUps: FollowUp[];
  /** The answers to follow-ups that arrived before the kill, by Idempotency-Reference. */
  answered: Map<string, { status: number; body: string }>;
}

/** Kills the primary and every HTTP process at once, as a machine's crash or the OOM killer would, and waits until all are gone. */
async function killEverything(kassa: KassaProcess): Promise<void> {
  const pids = [kassa.child.pid!, ...childPids(kassa.child.pid!)];
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await waitForExit(kassa.child);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; pids.some(alive); waited += 20) {
    if (waited > 10_000) throw new Error(`Kassa's processes ${pids.filter(alive).join(', ')} outlived SIGKILL`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const backend of backends) {
  describe(`crash safety on ${backend}`, () => {
    let db: TestDatabase;
    let key: string;
    before(async () => {
      db = await createTestDatabase(backend);
      key = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Crash Shop', '--json')).testApiKey;
    });
    after(() => db.drop());

    const create = (baseUrl: string, idempotencyReference: string) =>
      fetch(`${baseUrl}/api/v1/payment`, {
        method: 'POST',
        headers: { authorization: basic(key), 'content-type': 'application/json', 'idempotency-reference': idempotencyReference },
        body: JSON.stringify(cardPayment({ merchantOrderReference: idempotencyReference })),
      });

    const post = (baseUrl: string, path: string, body: unknown, idempotencyReference?: string) =>
      fetch(`${baseUrl}/api/v1${path}`, {
        method: 'POST',
        headers: {
          authorization: basic(key),
          'content-type': 'application/json',
          ...(idempotencyReference === undefined ? {} : { 'idempotency-reference': idempotencyReference }),
        },
        body: JSON.stringify(body),
      });

    /** Sales and authorisations paid (by the test helper, through the simulator) for the follow-ups of a life's load. */
    async function paidForFollowUps(kassa: KassaProcess, life: number) {
      const paid = async (transactionType: string, i: number) => {
        const created = await post(
          kassa.baseUrl,
          '/payment',
          cardPayment({ transactionType, amount: '10.00', merchantOrderReference: `paid-${life}-${transactionType}-${i}` }),
        );
        const { reference } = (await created.json()) as { reference: string };
        const completed = await post(kassa.baseUrl, '/test/complete', { reference, outcome: 'success' });
        assert.equal(completed.status, 200, await completed.clone().text());
        return reference;
      };
      const indexes = Array.from({ length: PAID }, (_, i) => i);
      return { sales: await Promise.all(indexes.map((i) => paid('sale', i))), authorisations: await Promise.all(indexes.map((i) => paid('authorise', i))) };
    }

    /** Creates payments from CLIENTS clients until a random number of them is acknowledged, then kills Kassa mid-flight; refunds and captures meanwhile. */
    async function loadUntilKilled(kassa: KassaProcess, life: number): Promise<Life> {
      const killedAfter = 1 + Math.floor(Math.random() * 250);
      const attempted: string[] = [];
      const acknowledged = new Map<string, Payment>();
      const { sales, authorisations } = await paidForFollowUps(kassa, life);
      const followUps: FollowUp[] = [];
      const answered = new Map<string, { status: number; body: string }>();
      let next = 0;
      let killing: Promise<void> | undefined;
      let failure: Error | undefined;
      const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;
      // Refunds of 3.00 (a fourth of a sale's exceeds what is left) and captures of 4.00 or 6.00 (one per authorisation), in any order.
      const followUpClient = async () => {
        while (!killing) {
          const n = next++;
          const followUp: FollowUp =
            n % 2 === 0
              ? { path: '/refund', body: { reference: pick(sales), amount: '3.00' }, idempotencyReference: `refund-${life}-${n}` }
              : { path: '/capture', body: { reference: pick(authorisations), amount: pick(['4.00', '6.00']) }, idempotencyReference: `capture-${life}-${n}` };
          followUps.push(followUp);
          try {
            const res = await post(kassa.baseUrl, followUp.path, followUp.body, followUp.idempotencyReference);
            answered.set(followUp.idempotencyReference, { status: res.status, body: await res.text() });
          } catch {
            // Cut off by the kill: its retry after the restart gets the answer.
            return;
          }
        }
      };
      const client = async () => {
        while (!killing) {
          const ref = `crash-${life}-${next++}`;
          attempted.push(ref);
          try {
            const res = await create(kassa.baseUrl, ref);
            if (res.status !== 200) throw new Error(`POST /payment ${ref} answered ${res.status}: ${await res.text()}`);
            acknowledged.set(ref, (await res.json()) as Payment);
          } catch (error) {
            // After the kill, a request cut off is expected; before it, a failure ends the load (and this life).
            if (!killing) failure ??= error as Error;
            killing ??= killEverything(kassa);
            return;
          }
          if (acknowledged.size >= killedAfter) killing ??= killEverything(kassa);
        }
      };
      await Promise.all([...Array.from({ length: CLIENTS }, client), ...Array.from({ length: FOLLOW_UP_CLIENTS }, followUpClient)]);
      await killing;
      if (failure) throw failure;
      return { attempted, acknowledged, killedAfter, followUps, answered };
    }

    /**
     * Once the recovery job has finished what the kill cut off: no claim left, every refund and
     * capture final or held for an operator with its cause, no sale refunded beyond what was paid
     * nor showing other than its successful refunds, no authorisation left claimed.
     */
    async function nothingLeftUnfinished(context: string): Promise<number> {
      const store = await openStore(loadConfig(db.env));
      try {
        const cutOff = (await store.read.selectFrom('acquirer_claims').select('reference').execute()).length;
        for (let waited = 0; (await store.read.selectFrom('acquirer_claims').select('reference').execute()).length > 0; waited += 200) {
          if (waited > 60_000) assert.fail(`claims left after the recovery job ${context}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const followUps = await store.read.selectFrom('transactions').selectAll().where('parent_reference', 'is not', null).execute();
        for (const row of followUps) {
          assert.notEqual(row.status, 'pending', `${row.type} ${row.reference} left pending ${context}`);
          if (row.status === 'manualintervention') {
            const events = await store.read.selectFrom('transaction_events').select('cause').where('reference', '=', row.reference).execute();
            assert.ok(
              events.some((e) => e.cause === 'acquirer_outcome_unknown'),
              `${row.reference} held with its cause ${context}`,
            );
          }
        }
        const parents = await store.read.selectFrom('transactions').selectAll().where('merchant_order_reference', 'like', 'paid-%').execute();
        for (const parent of parents) {
          const details = JSON.parse(parent.details) as { captureStatus?: string; refundedAmount?: number };
          const children = followUps.filter((row) => row.parent_reference === parent.reference);
          if (parent.type === 'authorise') {
            assert.ok(details.captureStatus === 'authorised' || details.captureStatus === 'captured', `${parent.reference} left ${details.captureStatus} ${context}`);
            assert.equal(children.filter((row) => row.status === 'success').length, details.captureStatus === 'captured' ? 1 : 0, `one capture of ${parent.reference}`);
            continue;
          }
          const refunds = (status: string) => children.filter((row) => row.status === status).reduce((sum, row) => sum + row.amount_minor, 0);
          assert.ok(refunds('success') + refunds('manualintervention') <= parent.amount_minor, `${parent.reference} refunded beyond what was paid ${context}`);
          assert.equal(Math.round((details.refundedAmount ?? 0) * 100), refunds('success'), `${parent.reference} shows its successful refunds ${context}`);
        }
        return cutOff;
      } finally {
        await store.close();
      }
    }

    /**
     * On the restarted Kassa: every acknowledged payment reads back as answered, and every request
     * sent replays or completes. Returns what the refunds and captures came to.
     */
    async function checkAfterRestart(kassa: KassaProcess, life: Life): Promise<string> {
      const context = `(killed after ${life.killedAfter} acknowledged, ${life.attempted.length} sent)`;
      for (const [ref, payment] of life.acknowledged) {
        const res = await fetch(`${kassa.baseUrl}/api/v1/transaction?reference=${payment.reference}`, { headers: { authorization: basic(key) } });
        assert.equal(res.status, 200, `acknowledged payment ${payment.reference} (${ref}) lost ${context}`);
        assert.deepEqual(await res.json(), payment, `acknowledged payment ${payment.reference} (${ref}) changed ${context}`);
      }
      const cutOff = await nothingLeftUnfinished(context);
      for (const followUp of life.followUps) {
        const res = await post(kassa.baseUrl, followUp.path, followUp.body, followUp.idempotencyReference);
        const body = await res.text();
        assert.ok(res.status === 200 || res.status === 422, `retry of ${followUp.idempotencyReference} answered ${res.status}: ${body} ${context}`);
        if (res.status === 200) assert.notEqual((JSON.parse(body) as Payment).status, 'pending', `retry of ${followUp.idempotencyReference} is final ${context}`);
        const original = life.answered.get(followUp.idempotencyReference);
        // A problem carries the id of the request it answers.
        const answer = (text: string) => ({ ...(JSON.parse(text) as Record<string, unknown>), requestId: undefined });
        if (original && original.status !== 409 && original.status < 500)
          assert.deepEqual([res.status, answer(body)], [original.status, answer(original.body)], `retry of ${followUp.idempotencyReference} replays ${context}`);
      }
      for (const ref of life.attempted) {
        const res = await create(kassa.baseUrl, ref);
        assert.equal(res.status, 200, `retry of ${ref} ${context}`);
        const answer = (await res.json()) as Payment;
        const original = life.acknowledged.get(ref);
        if (original) {
          assert.equal(res.headers.get('idempotent-replayed'), 'true', `retry of acknowledged ${ref} is a replay ${context}`);
          assert.deepEqual(answer, original, `retry of acknowledged ${ref} answers as the first time ${context}`);
        }
      }
      return `${life.followUps.length} refunds and captures sent, ${life.answered.size} answered before the kill, ${cutOff} claims cut off and finished by the recovery job`;
    }

    test(`${KILLS} × kill -9 under create, refund and capture load: no acknowledged payment lost or changed, nothing left unfinished, every replay matches, one payment per reference`, async (testContext) => {
      // One PUBLIC_URL for every life, as a deployment has: the addresses in the answers stay the same.
      // The claims cut off by a kill are finished by the recovery job within seconds.
      const env = { ...db.env, RATE_LIMIT_PER_SECOND: '0', PUBLIC_URL: 'http://kassa.test', ACQUIRER_RECOVERY_AFTER: 'PT3S', ACQUIRER_RECOVERY_INTERVAL: 'PT1S' };
      const attempted: string[] = [];
      let previous: Life | undefined;
      for (let life = 0; ; life++) {
        const kassa = await startKassaProcess(env);
        try {
          if (previous) testContext.diagnostic(await checkAfterRestart(kassa, previous));
        } catch (error) {
          await killEverything(kassa);
          throw error;
        }
        if (life === KILLS) {
          kassa.child.kill('SIGTERM');
          assert.equal(await waitForExit(kassa.child), 0, 'SIGTERM stops Kassa cleanly');
          break;
        }
        previous = await loadUntilKilled(kassa, life);
        attempted.push(...previous.attempted);
        assert.ok(previous.acknowledged.size >= previous.killedAfter, `only ${previous.acknowledged.size} acknowledged before the kill`);
      }
      const store = await openStore(loadConfig(db.env));
      try {
        const rows = await store.read
          .selectFrom('transactions')
          .select('merchant_order_reference')
          .where('merchant_order_reference', 'like', 'crash-%')
          .where('parent_reference', 'is', null)
          .execute();
        const perReference = new Map<string, number>();
        for (const row of rows) perReference.set(row.merchant_order_reference!, (perReference.get(row.merchant_order_reference!) ?? 0) + 1);
        assert.equal(perReference.size, attempted.length);
        assert.ok(
          [...perReference.values()].every((n) => n === 1),
          'exactly one payment per Idempotency-Reference',
        );
      } finally {
        await store.close();
      }
    });

    test('kill -9 while a wallet payment waits for the acquirer: the restarted Kassa resumes it, once', async () => {
      const env = { ...db.env, HTTP_PROCESSES: '1', EXPIRY_SWEEP_INTERVAL_MS: '200' };
      const first = await startKassaProcess(env);
      const token = await mintTestWalletToken({ pan: '4111111111111111', expiry: '301231', amountMinor: 1041, currencyNumeric: '978', network: 'Visa' });
      const created = await fetch(`${first.baseUrl}/api/v1/payment`, {
        method: 'POST',
        headers: { authorization: basic(key), 'content-type': 'application/json' },
        // .41: the final state only after 2 s, so the kill comes while the payment is being paid.
        body: JSON.stringify({
          amount: '10.41',
          currency: 'EUR',
          method: 'walletpay',
          details: { walletPayEncryptedToken: token },
          browserInfo: exampleThreeDSRequest().browserInfo,
        }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      const { reference } = (await created.json()) as { reference: string };
      first.child.kill('SIGKILL');
      await waitForExit(first.child);

      const store = await openStore(loadConfig(db.env));
      try {
        const left = await store.read.selectFrom('transactions').select('status').where('reference', '=', reference).executeTakeFirstOrThrow();
        assert.equal(left.status, 'pending', 'the kill came before the outcome');
        // The dead process's processing lease (60 s) runs out: let that time pass.
        await store.transact((tx) => tx.updateTable('payment_pages').set({ processing_until: 0 }).where('reference', '=', reference).execute());
      } finally {
        await store.close();
      }

      const second = await startKassaProcess(env);
      try {
        let status = 'pending';
        for (let i = 0; i < 200 && status === 'pending'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const res = await fetch(`${second.baseUrl}/api/v1/transaction?reference=${reference}`, { headers: { authorization: basic(key) } });
          status = ((await res.json()) as { status: string }).status;
        }
        assert.equal(status, 'success', second.output());
      } finally {
        second.child.kill('SIGTERM');
        await waitForExit(second.child);
      }
      const after = await openStore(loadConfig(db.env));
      try {
        const events = await after.read.selectFrom('transaction_events').select('to_status').where('reference', '=', reference).execute();
        assert.deepEqual(
          events.map((e) => e.to_status),
          ['pending', 'success'],
        );
        const use = await after.read.selectFrom('wallet_token_uses').select('token').where('reference', '=', reference).executeTakeFirstOrThrow();
        assert.equal(use.token, null, 'the token is forgotten once the payment is final');
      } finally {
        await after.close();
      }
    });
  });
}
