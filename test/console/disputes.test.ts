/**
 * Disputes in the console (docs/console.md "Disputes"), over HTTP on SQLite and PostgreSQL: a
 * tester raises a test dispute on a paid test payment and moves it on from the dispute's page
 * (the test helper's operation through the runner: confirmed before it runs, audited, its webhook
 * queued); the dispute is listed with the transactions' type filter, shown with its stage, reason
 * and payment, linked from the payment, and counted in the overview while it is open.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, suiteApp } from '../support/app.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { deliveriesFor, insertPendingPayment } from '../events/support.ts';
import { ConsoleClient, makeAccount } from './support.ts';

for (const backend of backends) {
  describe(`console: disputes on ${backend}`, () => {
    const kassa = suiteApp(backend);
    let shop: Awaited<ReturnType<typeof createMerchant>>;
    let client: ConsoleClient;
    let csrf: string;

    before(async () => {
      shop = await createMerchant(kassa.store, 'Disputed Shop');
      await setWebhookUrl(kassa.store, shop.merchantId, 'http://127.0.0.1:9/webhooks');
      await makeAccount(kassa.store, `disputes-${backend}@kassa.test`, shop.merchantId);
      client = new ConsoleClient(kassa.app);
      await client.signIn(`disputes-${backend}@kassa.test`);
      csrf = await client.csrf();
    });

    const merchantApi = () => api(kassa.app, shop.testApiKey);
    const read = async (reference: string) => (await merchantApi().get(`/transaction?reference=${reference}`)).json();
    async function paid(amount = '40.00') {
      const { reference } = (await merchantApi().post('/payment', cardPayment({ amount }))).json() as { reference: string };
      assert.equal((await merchantApi().post('/test/complete', { reference, outcome: 'success' })).statusCode, 200);
      return reference;
    }
    const offered = async (reference: string) => {
      const page = await client.get(`/dashboard/payments/${reference}`);
      assert.equal(page.statusCode, 200, page.body);
      return [...page.body.matchAll(/<form method="post" action="\/dashboard\/payments\/tr_[^/]+\/(\w+)"/g)].map((m) => m[1]);
    };
    const stageOptions = (body: string) =>
      [...body.matchAll(/<select id="dispute-stage" name="stage"[^>]*>(.*?)<\/select>/gs)].flatMap((m) => [...m[1].matchAll(/value="(\w+)"/g)].map((v) => v[1]));
    const confirmationForm = (body: string) => {
      const form = /<form method="post" action="([^"]+)">(.*?)<\/form>/s.exec(body.slice(body.indexOf('class="card confirm"')))!;
      return { url: form[1], fields: Object.fromEntries([...form[2].matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]])) };
    };
    /** The action asked, its confirmation checked to name `question`, then confirmed. */
    async function confirmed(reference: string, form: Record<string, string>, question: string, action = 'dispute') {
      const asked = await client.post(`/dashboard/payments/${reference}/${action}`, { csrf, ...form });
      assert.equal(asked.statusCode, 200, asked.body);
      assert.ok(asked.body.includes(question), `the confirmation asks: ${question}`);
      const { url, fields } = confirmationForm(asked.body);
      const done = await client.post(url, fields);
      assert.equal(done.statusCode, 303, done.body);
      return fields;
    }

    test('a test dispute raised on a paid payment, then moved on from its own page: confirmed, audited, its webhooks queued, the payment linking to it', async () => {
      const payment = await paid();
      assert.deepEqual(await offered(payment), ['refund', 'dispute']);
      assert.deepEqual(stageOptions((await client.get(`/dashboard/payments/${payment}`)).body), ['notification', 'chargeback']);

      const fields = await confirmed(payment, { stage: 'chargeback', amount: '15' }, `Test dispute on ${payment} of €15.00: Charged back?`);
      assert.deepEqual(fields, { csrf, stage: 'chargeback', amount: '15.00', confirmed: 'yes' });
      const [listed] = (await read(payment)).details.disputes as { reference: string; stage: string }[];
      assert.equal(listed.stage, 'chargeback');
      const dispute = listed.reference;

      const page = (await client.get(`/dashboard/payments/${dispute}`)).body;
      assert.match(page, /<h2 id="dispute-title">Dispute<\/h2>/);
      assert.match(page, /Charged back \(chargeback\)/);
      assert.ok(page.includes(`<a href="/dashboard/payments/${payment}">${payment}</a>`), 'the dispute links to its payment');
      assert.deepEqual(stageOptions(page), ['reversed', 'second_chargeback', 'prearbitration', 'prearbitration_won', 'prearbitration_lost', 'accepted']);
      assert.ok((await client.get(`/dashboard/payments/${payment}`)).body.includes(`<a href="/dashboard/payments/${dispute}">${dispute}</a>`), 'the payment links to it');
      const dutch = (await client.get(`/dashboard/payments/${dispute}`, { 'accept-language': 'nl' })).body;
      assert.match(dutch, /Teruggeboekt \(chargeback\)/);

      await confirmed(dispute, { stage: 'reversed' }, `Test dispute on ${dispute} of €15.00: Chargeback reversed (money back to the merchant)?`);
      const reversed = await read(dispute);
      assert.deepEqual([reversed.status, reversed.details.stage], ['failed', 'reversed']);
      assert.deepEqual((await deliveriesFor(kassa.store, dispute)).map((d) => d.event).sort(), ['chargeback/chargeback', 'chargeback/reversed']);
      const audit = await kassa.store.read.selectFrom('audit_log').select(['action', 'reference', 'detail']).where('action', '=', 'dispute').orderBy('id').execute();
      assert.deepEqual(
        audit.filter((e) => e.reference === payment || e.reference === dispute).map((e) => [e.reference, JSON.parse(e.detail).stage, JSON.parse(e.detail).result]),
        [
          [payment, 'chargeback', { reference: dispute, status: 'success' }],
          [dispute, 'reversed', { reference: dispute, status: 'failed' }],
        ],
      );
    });

    test("a payment's disputes are listed as disputes, in a section of their own with their stage, apart from its refunds and captures", async () => {
      const payment = await paid('30.00');
      assert.equal((await merchantApi().post('/refund', { reference: payment, amount: '5.00' })).statusCode, 200);
      await confirmed(payment, { stage: 'chargeback', amount: '10' }, `Test dispute on ${payment}`);
      const dispute = ((await read(payment)).details.disputes as { reference: string }[])[0].reference;
      const refund = (
        await kassa.store.read
          .selectFrom('transactions')
          .select('reference')
          .where('parent_reference', '=', payment)
          .where('type', '=', 'credit')
          .executeTakeFirstOrThrow()
      ).reference;
      const page = (await client.get(`/dashboard/payments/${payment}`)).body;
      const section = (id: string) => {
        const start = page.indexOf(`<h2 id="${id}">`);
        assert.ok(start >= 0, id);
        return page.slice(start, page.indexOf('</section>', start));
      };
      const rows = (html: string) =>
        [...html.matchAll(/<tr><td><a href="\/dashboard\/payments\/(tr_\w+)">.*?<\/td><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
      assert.match(section('related-title'), /<h2 id="related-title">Refunds and captures<\/h2>/);
      assert.deepEqual(rows(section('related-title')), [[refund, 'Refund']], 'the refund, not the dispute');
      assert.match(section('disputes-title'), /<h2 id="disputes-title">Disputes<\/h2>/);
      assert.deepEqual(rows(section('disputes-title')), [[dispute, 'Charged back']], 'the dispute with its stage');
      const dutch = (await client.get(`/dashboard/payments/${payment}`, { 'accept-language': 'nl' })).body;
      assert.match(dutch, /<h2 id="disputes-title">Geschillen<\/h2>/);
      const unrelated = (await client.get(`/dashboard/payments/${await paid()}`)).body;
      assert.match(unrelated, /<h2 id="disputes-title">Disputes<\/h2>\n<p>None\.<\/p>/, 'a payment without disputes says so');
    });

    test('the transactions list filters disputes; the overview counts the open ones and their amount at stake', async () => {
      const overviewBefore = (await client.get('/dashboard/overview?mode=test')).body;
      assert.match(overviewBefore, /<h2 id="disputes-title">Open disputes<\/h2>/);
      const first = await paid('20.00');
      const second = await paid('30.00');
      await confirmed(first, { stage: 'notification' }, `Test dispute on ${first} of €20.00: Notified (no money taken yet)?`);
      await confirmed(second, { stage: 'chargeback', amount: '5' }, `Test dispute on ${second} of €5.00: Charged back?`);
      const disputes = [first, second].map(async (reference) => ((await read(reference)).details.disputes as { reference: string }[])[0].reference);
      const [firstDispute, secondDispute] = await Promise.all(disputes);

      const list = (await client.get('/dashboard/payments?mode=test&type=chargeback')).body;
      const listed = [...list.matchAll(/<a href="\/dashboard\/payments\/(tr_\w+)" title=/g)].map((m) => m[1]);
      assert.ok(listed.includes(firstDispute) && listed.includes(secondDispute), 'both disputes listed');
      assert.ok(!listed.includes(first), 'the payments are not');
      assert.match(list, /<option value="chargeback" selected>Dispute \(chargeback\)<\/option>/);

      const overview = (await client.get('/dashboard/overview?mode=test')).body;
      const card = overview.slice(overview.indexOf('id="disputes-title"'), overview.indexOf('</section>', overview.indexOf('id="disputes-title"')));
      const count = Number(/<dt>Open disputes<\/dt><dd>(\d+)<\/dd>/.exec(card)?.[1]);
      assert.ok(count >= 2, card);
      assert.match(card, /<a href="\/dashboard\/payments\?type=chargeback&amp;mode=test">List the disputes<\/a>/);

      // Won: no longer open, and no longer at stake.
      await confirmed(secondDispute, { stage: 'reversed' }, `Test dispute on ${secondDispute} of €5.00`);
      const after = (await client.get('/dashboard/overview?mode=test')).body;
      assert.equal(Number(/<dt>Open disputes<\/dt><dd>(\d+)<\/dd>/.exec(after)?.[1]), count - 1);
    });

    test('no test dispute for a pending payment, a live one, or a dispute that has ended; a forged POST for a live payment changes nothing', async () => {
      const { reference: pending } = (await merchantApi().post('/payment', cardPayment())).json() as { reference: string };
      assert.ok(!(await offered(pending)).includes('dispute'));
      const live = await insertPendingPayment(kassa.store, shop.merchantId, { mode: 'live' });
      const forged = await client.post(`/dashboard/payments/${live}/dispute`, { csrf, stage: 'chargeback', confirmed: 'yes' });
      assert.equal(forged.statusCode, 404);
      assert.match(forged.body, /Not done: Transaction tr_\w+ is live; only a test-mode payment can be disputed/);

      const payment = await paid();
      await confirmed(payment, { stage: 'chargeback' }, `Test dispute on ${payment}`);
      const dispute = ((await read(payment)).details.disputes as { reference: string }[])[0].reference;
      await confirmed(dispute, { stage: 'accepted' }, `Test dispute on ${dispute} of €40.00: Accepted?`);
      assert.deepEqual(await offered(dispute), [], 'an accepted dispute moves no more, and is no payment to refund or cancel');
    });

    test('the merchant accepts a dispute from its page: confirmed with its amount, accepted through its acquirer (here the simulator), audited', async () => {
      const payment = await paid('12.00');
      await confirmed(payment, { stage: 'chargeback' }, `Test dispute on ${payment}`);
      const dispute = ((await read(payment)).details.disputes as { reference: string }[])[0].reference;
      assert.deepEqual(await offered(dispute), ['dispute', 'accept']);
      await confirmed(dispute, {}, `Accept dispute ${dispute} of €12.00, letting the chargeback stand?`, 'accept');
      const done = await read(dispute);
      assert.deepEqual([done.status, done.details.stage], ['success', 'accepted']);
      assert.deepEqual((await deliveriesFor(kassa.store, dispute)).map((d) => d.event).sort(), ['chargeback/accepted', 'chargeback/chargeback']);
      const audit = await kassa.store.read.selectFrom('audit_log').select(['detail']).where('action', '=', 'accept').where('reference', '=', dispute).execute();
      assert.deepEqual(
        audit.map((e) => JSON.parse(e.detail)),
        [{ result: { reference: dispute, status: 'success' } }],
      );
    });
  });
}
