/**
 * Crash safety (DESIGN §4): killing the process while payments are being created loses
 * no acknowledged payment, and a merchant retrying with the same Idempotency-Reference
 * after the restart ends with exactly one payment per reference. Also: SIGTERM stops
 * Kassa cleanly with exit code 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { kassaCli, startKassaProcess, waitForExit } from '../support/process.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { mintTestWalletToken } from '../../src/wallet/index.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';

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

    test('kill -9 under load loses no acknowledged payment; retries make exactly one each', async () => {
      const first = await startKassaProcess({ ...db.env, RATE_LIMIT_PER_SECOND: '0' });
      const acknowledged = new Map<string, string>();
      const attempted: string[] = [];
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (!killed && next < 2000) {
          const ref = `crash-${next++}`;
          attempted.push(ref);
          try {
            const res = await create(first.baseUrl, ref);
            if (res.status === 200) acknowledged.set(ref, ((await res.json()) as { reference: string }).reference);
          } catch {
            return; // connection cut by the kill
          }
          if (acknowledged.size >= 150 && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      await waitForExit(first.child);
      assert.ok(acknowledged.size >= 150, `only ${acknowledged.size} acknowledged before the kill`);

      const second = await startKassaProcess({ ...db.env, RATE_LIMIT_PER_SECOND: '0' });
      try {
        for (const [ref, reference] of acknowledged) {
          const res = await fetch(`${second.baseUrl}/api/v1/transaction?reference=${reference}`, { headers: { authorization: basic(key) } });
          assert.equal(res.status, 200, `acknowledged payment ${reference} (${ref}) lost`);
        }
        for (const ref of attempted) {
          const res = await create(second.baseUrl, ref);
          assert.equal(res.status, 200);
          const { reference } = (await res.json()) as { reference: string };
          if (acknowledged.has(ref)) assert.equal(reference, acknowledged.get(ref), `retry of ${ref} made a second payment`);
        }
      } finally {
        second.child.kill('SIGTERM');
        assert.equal(await waitForExit(second.child), 0, 'SIGTERM stops Kassa cleanly');
      }
      const store = await openStore(loadConfig(db.env));
      try {
        const rows = await store.read.selectFrom('transactions').select('merchant_order_reference').execute();
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
