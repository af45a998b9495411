/**
 * `kill -9` between Adyen's answer and Kassa's commit (docs/acquirers.md "Unknown outcomes"),
 * on SQLite and PostgreSQL: Kassa runs as a real process for a test-mode merchant whose test mode
 * is connected to the Adyen stand-in with `kassa acquirer set --mode test` (test mode has the
 * simulated directory server, so the card page runs 3-D Secure frictionless and reaches Adyen;
 * live card pages wait for live 3-D Secure). The stand-in makes the authorisation, then kills Kassa
 * with SIGKILL before it answers. Restarted, Kassa never takes the card again; then either Adyen's
 * AUTHORISATION notification comes (→ success), or none does and the recovery job cancels the
 * authorisation by Kassa's reference (→ failed). Each way: one charge at most, one final state, one
 * merchant webhook of it. Likewise a capture and a refund that Adyen took before Kassa died
 * (docs/acquirers.md "Claims and leases"): a retry with the same Idempotency-Reference waits (409)
 * while the claim's lease runs, without reaching Adyen; then the recovery job asks again with the
 * same key and amount, and the retry gets the outcome.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backends, basic, cardPayment, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { kassaCli, kassaCliWithInput, startKassaProcess, waitForExit, type KassaProcess } from '../support/process.ts';
import { card, csrfOf, FORM } from '../pages/flow.ts';
import { waitFor } from '../events/support.ts';
import { startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { signedNotification } from './signed-notification.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';

const HMAC_KEY = randomBytes(32).toString('hex');

/** Delivers one signed test-mode notification item to Kassa as Adyen does; Kassa's answer. */
async function notify(baseUrl: string, fields: Record<string, unknown>): Promise<string> {
  const item = { merchantAccountCode: 'ShopNL', eventDate: new Date().toISOString(), success: 'true', ...fields };
  const notified = await fetch(`${baseUrl}/acquirer/adyen/notifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      live: 'false',
      notificationItems: [signedNotification(item, HMAC_KEY)],
    }),
  });
  return notified.text();
}

const skip = needs(adyenContractMissing);

for (const backend of backends) {
  describe(`kill -9 between Adyen's answer and Kassa's commit (${backend})`, { skip }, () => {
    let db: TestDatabase;
    let adyen: FakeAdyen;
    let key: string;
    before(async () => {
      db = await createTestDatabase(backend);
      adyen = await startFakeAdyen();
      const merchant = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Killed Shop', '--json'));
      key = merchant.testApiKey;
      kassaCliWithInput(
        db.env,
        JSON.stringify({ apiKey: adyen.apiKey, hmacKey: HMAC_KEY }),
        'acquirer',
        'set',
        '--merchant',
        merchant.merchantId,
        '--mode',
        'test',
        '--connector',
        'adyen',
        '--endpoint',
        adyen.url,
        '--merchant-account',
        'ShopNL',
      );
    });
    after(async () => {
      await adyen.close();
      await db.drop();
    });

    /** What the database says of the payment: its status events, its webhooks, and its authorisation in flight. */
    async function recorded(reference: string) {
      const store = await openStore(loadConfig(db.env));
      try {
        const events = await store.read.selectFrom('transaction_events').select('to_status').where('reference', '=', reference).orderBy('id').execute();
        const webhooks = await store.read.selectFrom('webhook_deliveries').select('event').where('reference', '=', reference).execute();
        const page = await store.read.selectFrom('payment_pages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
        // Deliveries have no order of their own (the hold and the failure may share a millisecond): compared as a set.
        return { events: events.map((e) => e.to_status), webhooks: webhooks.map((w) => w.event).sort(), page };
      } finally {
        await store.close();
      }
    }

    /** The dead process's processing lease (60 s) runs out: that time is let pass here. */
    async function leaseRunsOut(reference: string) {
      const store = await openStore(loadConfig(db.env));
      try {
        await store.transact((tx) => tx.updateTable('payment_pages').set({ processing_until: 0 }).where('reference', '=', reference).execute());
      } finally {
        await store.close();
      }
    }

    /**
     * A card payment paid on its page in a Kassa that Adyen kills once the authorisation is made;
     * returns what the restarted Kassa needs: the payment, and its page address.
     */
    async function killedWhilePaying(env: Record<string, string>, amount: string) {
      const kassa = await startKassaProcess(env);
      const created = await fetch(`${kassa.baseUrl}/api/v1/payment`, {
        method: 'POST',
        headers: { authorization: basic(key), 'content-type': 'application/json' },
        body: JSON.stringify(cardPayment({ amount, webhookUrl: 'https://shop.example/webhooks' })),
      });
      const payment = (await created.json()) as { reference: string; payUrl: string; cancelUrl: string };
      const pagePath = new URL(payment.payUrl).pathname;
      const form = await (await fetch(`${kassa.baseUrl}${pagePath}`)).text();
      adyen.beforeAnswer = async () => {
        kassa.child.kill('SIGKILL');
        await waitForExit(kassa.child);
      };
      const paid = await fetch(`${kassa.baseUrl}${pagePath}/card`, {
        method: 'POST',
        headers: FORM,
        body: new URLSearchParams({ csrf: csrfOf(form), ...card() }).toString(),
      }).catch((error: Error) => error);
      adyen.beforeAnswer = undefined;
      assert.ok(paid instanceof Error, 'the customer never got an answer: Kassa died');
      assert.equal(adyen.authorisations.get(payment.reference)?.state, 'authorised', 'Adyen made the authorisation');
      const left = await recorded(payment.reference);
      assert.deepEqual(left.events, ['pending'], 'the kill came before the commit');
      assert.match(left.page.authorisation_in_flight ?? '', new RegExp(`^${payment.reference}:`), 'the authorisation was recorded in flight before it was sent');
      await leaseRunsOut(payment.reference);
      return { ...payment, pagePath };
    }

    /** The restarted Kassa never takes a second card for the payment. */
    async function cannotPayAgain(kassa: KassaProcess, { pagePath, reference, cancelUrl }: { pagePath: string; reference: string; cancelUrl: string }) {
      const page = await fetch(`${kassa.baseUrl}${pagePath}`);
      const body = await page.text();
      assert.match(body, /Payment in progress/, 'the page says the payment is being processed');
      assert.doesNotMatch(body, /name="cardNumber"/);
      const cancelled = await fetch(cancelUrl.replace(/^https?:\/\/[^/]+/, kassa.baseUrl), { method: 'POST' });
      assert.equal(cancelled.status, 200);
      const status = await statusIn(kassa, reference);
      assert.equal(status, 'pending', 'nor is it cancelled while its authorisation may have taken the money');
    }

    const merchantApi = (kassa: KassaProcess, path: string, body: unknown, idempotencyReference: string) =>
      fetch(`${kassa.baseUrl}/api/v1${path}`, {
        method: 'POST',
        headers: { authorization: basic(key), 'content-type': 'application/json', 'idempotency-reference': idempotencyReference },
        body: JSON.stringify(body),
      });

    /** Sends the request to a Kassa that Adyen kills once it has taken the modification; returns the restarted Kassa. */
    async function killedWhileModifying(kassa: KassaProcess, env: Record<string, string>, path: string, body: unknown, idempotencyReference: string) {
      adyen.beforeModification = async () => {
        kassa.child.kill('SIGKILL');
        await waitForExit(kassa.child);
      };
      const cut = await merchantApi(kassa, path, body, idempotencyReference).catch((error: Error) => error);
      adyen.beforeModification = undefined;
      assert.ok(cut instanceof Error, 'the merchant never got an answer: Kassa died');
      return startKassaProcess(env);
    }

    /** The dead process's claim (its lease, ACQUIRER_RECOVERY_AFTER) runs out: that time is let pass here. */
    async function claimRunsOut(reference: string) {
      const store = await openStore(loadConfig(db.env));
      try {
        await store.transact((tx) => tx.updateTable('acquirer_claims').set({ due_at: 0 }).where('reference', '=', reference).execute());
      } finally {
        await store.close();
      }
    }

    async function claimOpen(reference: string) {
      const store = await openStore(loadConfig(db.env));
      try {
        return !!(await store.read.selectFrom('acquirer_claims').select('reference').where('reference', '=', reference).executeTakeFirst());
      } finally {
        await store.close();
      }
    }

    const statusIn = async (kassa: KassaProcess, reference: string) =>
      ((await (await fetch(`${kassa.baseUrl}/api/v1/transaction?reference=${reference}`, { headers: { authorization: basic(key) } })).json()) as { status: string })
        .status;
    const authorisesOf = (reference: string) => adyen.requests.filter((r) => r.path === '/authorise' && r.body.reference === reference).length;

    test("Adyen's AUTHORISATION notification after the restart: success, one charge", async () => {
      const env = { HTTP_PROCESSES: '1', ...db.env };
      const payment = await killedWhilePaying(env, '21.00');
      const { reference } = payment;
      const kassa = await startKassaProcess(env);
      try {
        await cannotPayAgain(kassa, payment);
        const held = adyen.authorisations.get(reference)!;
        const notified = await notify(kassa.baseUrl, { eventCode: 'AUTHORISATION', pspReference: held.pspReference, merchantReference: reference, amount: held.amount });
        assert.equal(notified, '[accepted]');
        assert.equal(await statusIn(kassa, reference), 'success');
      } finally {
        kassa.child.kill('SIGTERM');
        await waitForExit(kassa.child);
      }
      const final = await recorded(reference);
      assert.deepEqual(final.events, ['pending', 'success']);
      assert.deepEqual(final.webhooks, ['success'], 'one merchant webhook, of the final state');
      assert.equal(authorisesOf(reference), 1, 'one charge at Adyen');
      assert.equal(adyen.authorisations.get(reference)!.state, 'authorised');
      assert.deepEqual(adyen.violations, []);
    });

    test('no notification: the recovery job cancels the authorisation at Adyen by Kassa’s reference → failed', async () => {
      const env = { HTTP_PROCESSES: '1', ACQUIRER_RECOVERY_AFTER: 'PT3S', ACQUIRER_RECOVERY_INTERVAL: 'PT1S', ...db.env };
      const { reference, pagePath } = await killedWhilePaying(env, '22.00');
      const kassa = await startKassaProcess(env);
      try {
        const status = await waitFor('the technical cancel', async () => ((await statusIn(kassa, reference)) === 'failed' ? 'failed' : undefined), 30_000, 200);
        assert.equal(status, 'failed');
        const again = await fetch(`${kassa.baseUrl}${pagePath}`);
        assert.match(await again.text(), /Payment failed/);
      } finally {
        kassa.child.kill('SIGTERM');
        await waitForExit(kassa.child);
      }
      const final = await recorded(reference);
      assert.deepEqual(final.events, ['pending', 'manualintervention', 'failed']);
      assert.deepEqual(final.webhooks, ['failed/processing_error', 'manualintervention'], 'one merchant webhook of the final state (after the hold)');
      assert.equal(authorisesOf(reference), 1);
      assert.equal(adyen.requests.filter((r) => r.path === '/technicalCancel' && r.body.originalMerchantReference === reference).length, 1);
      assert.equal(adyen.authorisations.get(reference)!.state, 'cancelled', 'no money stays taken');
      assert.deepEqual(adyen.violations, []);
    });

    test('kill -9 after Adyen took a capture, then a refund: the retry waits during the lease, then gets the outcome of the same key asked again', async () => {
      const env = { HTTP_PROCESSES: '1', ACQUIRER_RECOVERY_AFTER: 'PT1H', ACQUIRER_RECOVERY_INTERVAL: 'PT1S', ...db.env };
      let kassa = await startKassaProcess(env);
      try {
        const created = await fetch(`${kassa.baseUrl}/api/v1/payment`, {
          method: 'POST',
          headers: { authorization: basic(key), 'content-type': 'application/json' },
          body: JSON.stringify(cardPayment({ transactionType: 'authorise', amount: '30.00' })),
        });
        const { reference, payUrl } = (await created.json()) as { reference: string; payUrl: string };
        const pagePath = new URL(payUrl).pathname;
        const form = await (await fetch(`${kassa.baseUrl}${pagePath}`)).text();
        const paid = await fetch(`${kassa.baseUrl}${pagePath}/card`, {
          method: 'POST',
          headers: FORM,
          body: new URLSearchParams({ csrf: csrfOf(form), ...card() }).toString(),
          redirect: 'manual',
        });
        assert.equal(paid.status, 303);
        const psp = adyen.authorisations.get(reference)!.pspReference;
        const sent = (path: string) => adyen.requests.filter((r) => r.path === path && r.body.originalReference === psp);

        for (const step of [
          { path: '/capture', body: { reference, amount: '25.00' }, idempotencyReference: `kill-capture-${reference}` },
          { path: '/refund', body: { reference, amount: '10.00' }, idempotencyReference: `kill-refund-${reference}` },
        ]) {
          kassa = await killedWhileModifying(kassa, env, step.path, step.body, step.idempotencyReference);
          const [taken] = sent(step.path);
          assert.ok(taken, 'Adyen took it before Kassa died');
          const own = taken.body.reference as string;
          const waiting = await merchantApi(kassa, step.path, step.body, step.idempotencyReference);
          assert.deepEqual([waiting.status, ((await waiting.json()) as { title: string }).title], [409, 'Request in progress']);
          assert.equal(sent(step.path).length, 1, 'the retry during the lease never reaches Adyen');

          await claimRunsOut(own);
          await waitFor('the recovery job', async () => (sent(step.path).length === 2 && !(await claimOpen(own)) ? true : undefined), 30_000, 200);
          const retried = await merchantApi(kassa, step.path, step.body, step.idempotencyReference);
          assert.equal(retried.status, 200);
          assert.equal(retried.headers.get('idempotent-replayed'), 'true');
          const answer = (await retried.json()) as { reference: string; status: string; amount: number };
          // Adyen answers the same key with its first answer, `[…-received]`: the notification is to say the rest.
          assert.deepEqual([answer.reference, answer.status, answer.amount], [own, 'pending', step.body.amount === '25.00' ? 25 : 10]);
          const asked = sent(step.path);
          assert.equal(asked.length, 2, 'asked again once');
          assert.deepEqual([asked[1].idempotencyKey, asked[1].body], [asked[0].idempotencyKey, asked[0].body], 'with the same key and amount');
          if (step.path === '/capture') {
            const notified = await notify(kassa.baseUrl, {
              eventCode: 'CAPTURE',
              pspReference: 'CAPKILLED0000001',
              originalReference: psp,
              merchantReference: own,
              amount: { value: 2500, currency: 'EUR' },
            });
            assert.equal(notified, '[accepted]');
          }
        }
      } finally {
        kassa.child.kill('SIGTERM');
        await waitForExit(kassa.child);
      }
      const store = await openStore(loadConfig(db.env));
      try {
        assert.deepEqual(await store.read.selectFrom('acquirer_claims').select('reference').execute(), [], 'no claim is left');
      } finally {
        await store.close();
      }
      assert.deepEqual(adyen.violations, []);
    });
  });
}
