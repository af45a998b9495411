/**
 * Stored cards through Adyen (docs/vault.md "Paying off-session"), on SQLite and PostgreSQL,
 * against the stand-in that validates every request against Adyen's OpenAPI document: the card's
 * first, customer-present payment (storeInVault) goes as card on file and its network transaction
 * reference is kept with the card; a customer's later payment with it goes as card on file too;
 * an off-session payment goes as a merchant-initiated one (ContAuth, the agreement from
 * sequenceInfo, the same shopperReference) naming that reference, without a CVC or 3-D Secure.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, backends, cardPayment, suiteApp, type MerchantApi } from '../support/app.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { connectToFake, startFakeAdyen, type FakeAdyen } from './adyen-fake.ts';
import { adyenContractMissing } from './adyen-contract.ts';
import { needs } from '../support/dependencies.ts';
import { findPaymentPage } from '../../src/store/payment-pages.ts';

const skip = needs(adyenContractMissing);

for (const backend of backends) {
  describe(`stored cards through Adyen (${backend})`, { skip }, () => {
    const t = suiteApp(backend, { ACQUIRER_TIMEOUT: 'PT1S' });
    let adyen: FakeAdyen;
    let live: MerchantApi;
    before(async () => {
      adyen = await startFakeAdyen();
      await connectToFake(t.store, adyen, { merchantId: t.merchant.merchantId, mode: 'live', hmacKey: 'cd'.repeat(32) });
      live = api(t.app, t.merchant.liveApiKey);
    });
    after(() => adyen.close());

    const authorisationOf = (reference: string) => adyen.requests.find((r) => r.path === '/authorise' && r.body.reference === reference)!;
    /** The network reference kept with the card the payment `reference` stored. */
    const networkReferenceOfCard = async (reference: string) =>
      (await t.store.read.selectFrom('vault_cards').select('network_reference').where('enrollment_reference', '=', reference).executeTakeFirstOrThrow())
        .network_reference;

    /** A live card payment with storeInVault, paid on the card page (Adyen authenticates, frictionless): the stored card's token. */
    async function storeCard(): Promise<{ token: string; reference: string }> {
      const payment = (await live.post('/payment', cardPayment({ amount: '30.00', storeInVault: 'yes' }))).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const paid = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber: '4111 1111 1111 1111', holderName: 'Ann Smith' }) });
      assert.equal(paid.statusCode, 303, paid.body);
      const read = (await live.get(`/transaction?reference=${payment.reference}`)).json();
      assert.equal(read.status, 'success');
      return { token: read.details.vaultAccessToken, reference: payment.reference };
    }

    test("the card's first payment is card on file, and its network reference is kept with the card; an off-session payment names it as ContAuth", async () => {
      const first = await storeCard();
      const stored = authorisationOf(first.reference).body;
      assert.equal(stored.shopperInteraction, 'Ecommerce');
      assert.equal(stored.recurringProcessingModel, 'CardOnFile');
      assert.match(String(stored.shopperReference), /^kassa-[0-9a-f]{32}$/);
      assert.ok(!String(stored.shopperReference).includes('4111'), 'never the card number');
      const networkReference = await networkReferenceOfCard(first.reference);
      assert.match(String(networkReference), /^\d+$/, "Adyen's networkTxReference is kept with the card");

      const created = await live.post('/payment', {
        amount: '12.50',
        currency: 'EUR',
        method: 'card',
        details: { vaultAccessToken: first.token },
        sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'MIT' },
      });
      assert.equal(created.statusCode, 200, created.body);
      const payment = created.json();
      assert.equal(payment.status, 'success');
      assert.equal(payment.payUrl, undefined);
      const sent = authorisationOf(payment.reference);
      assert.equal(sent.body.shopperInteraction, 'ContAuth');
      assert.equal(sent.body.recurringProcessingModel, 'Subscription');
      assert.equal(sent.body.shopperReference, stored.shopperReference, 'one shopperReference per stored card');
      assert.deepEqual(sent.body.additionalData, { networkTxReference: networkReference });
      assert.equal((sent.body.card as Record<string, unknown>).cvc, undefined, 'no CVC: the vault keeps none');
      assert.equal(sent.body.threeDS2RequestData, undefined, 'no 3-D Secure');
      assert.equal(sent.body.mpiData, undefined);
      assert.equal(sent.idempotencyKey, `${payment.reference}:attempt-1`);
      assert.equal(await networkReferenceOfCard(first.reference), networkReference, "a merchant-initiated payment's own reference is not kept");
      assert.equal((await findPaymentPage(t.store.read, payment.reference))!.authorisation_in_flight, null);

      const unscheduled = (
        await live.post('/payment', {
          amount: '7.00',
          currency: 'EUR',
          method: 'card',
          type: 'authorise',
          details: { vaultAccessToken: first.token },
          sequenceInfo: { type: 'UNSCHEDULED', mode: 'SUBSEQUENT', source: 'MIT' },
        })
      ).json();
      assert.equal(unscheduled.status, 'success');
      const held = authorisationOf(unscheduled.reference).body;
      assert.equal(held.recurringProcessingModel, 'UnscheduledCardOnFile');
      assert.deepEqual(held.additionalData, { manualCapture: 'true', networkTxReference: networkReference });
      assert.deepEqual(adyen.violations, []);
    });

    test("a customer's payment with the stored card on Kassa's page goes as card on file with the card's shopperReference", async () => {
      const first = await storeCard();
      const payment = (await live.post('/payment', cardPayment({ amount: '15.00', details: { vaultAccessToken: first.token } }))).json();
      const { path, csrf } = await openPage(t.app, payment.payUrl);
      const paid = await postForm(t.app, `${path}/vault`, { csrf, cvc: '123' });
      assert.equal(paid.statusCode, 303, paid.body);
      const sent = authorisationOf(payment.reference).body;
      assert.equal(sent.shopperInteraction, 'Ecommerce');
      assert.equal(sent.recurringProcessingModel, 'CardOnFile');
      assert.equal(sent.shopperReference, authorisationOf(first.reference).body.shopperReference);
      assert.equal((sent.additionalData as Record<string, unknown>).networkTxReference, undefined, 'only a merchant-initiated payment names it');
      assert.deepEqual(adyen.violations, []);
    });

    test('an off-session payment Adyen refuses fails at once; one it does not answer in time is manualintervention, its authorisation in flight', async () => {
      const { token } = await storeCard();
      const offSession = (amount: string) => ({
        amount,
        currency: 'EUR',
        method: 'card',
        details: { vaultAccessToken: token },
        sequenceInfo: { type: 'UNSCHEDULED', mode: 'SUBSEQUENT', source: 'MIT' },
      });
      const refused = (await live.post('/payment', offSession('9.21'))).json();
      assert.deepEqual([refused.status, refused.failureCode], ['failed', 'card_refused']);
      // Slower than ACQUIRER_TIMEOUT: made at "Adyen", its answer never reaches Kassa.
      adyen.slowMs = 1500;
      try {
        const unknown = (await live.post('/payment', offSession('9.31'))).json();
        assert.equal(unknown.status, 'manualintervention');
        assert.equal((await findPaymentPage(t.store.read, unknown.reference))!.authorisation_in_flight, `${unknown.reference}:attempt-1`);
      } finally {
        adyen.slowMs = 0;
      }
      assert.deepEqual(adyen.violations, []);
    });
  });
}
