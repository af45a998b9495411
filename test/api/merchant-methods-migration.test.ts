/**
 * 022_explicit_merchant_methods on what earlier versions stored (its step run on the database as
 * the migrator runs it): a merchant whose settings list no methods accepted every method Kassa had;
 * after migrating its settings list exactly those, so a method added later stays off for it, and
 * the API accepts and lists them. A merchant with its own list keeps it. On SQLite and PostgreSQL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/schema.ts';
import { explicitMerchantMethods } from '../../src/store/migrations/022_explicit_merchant_methods.ts';
import { backends, rawDatabase, suiteApp } from '../support/app.ts';
import { findMerchant, updateMerchantSettings } from '../../src/store/merchants.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';

for (const backend of backends) {
  describe(`022_explicit_merchant_methods on merchants stored before it (${backend})`, () => {
    const t = suiteApp(backend);

    /** 022's own step on the test database, through a connection of its own as the migrator's. */
    async function applyExplicitMethods() {
      const db = rawDatabase<Database>(backend, t.database);
      try {
        await explicitMerchantMethods(backend).up(db);
      } finally {
        await db.destroy();
      }
    }

    const storedSettings = async (merchantId: string) => JSON.parse((await findMerchant(t.store.read, merchantId))!.settings) as Record<string, unknown>;

    test('settings without a methods list get card, landingpage and walletpay written out; an explicit list stays as it is', async () => {
      const older = await createMerchant(t.store, 'Older Shop');
      const cardOnly = await createMerchant(t.store, 'Card Only Shop');
      const none = await createMerchant(t.store, 'Closed Shop');
      const olderSettings = { cardBrands: ['visa', 'amex'], vaultPaymentPath: 'direct' };
      await t.store.transact(async (db) => {
        await updateMerchantSettings(db, older.merchantId, JSON.stringify(olderSettings));
        await updateMerchantSettings(db, cardOnly.merchantId, JSON.stringify({ ...olderSettings, methods: ['card'] }));
        await updateMerchantSettings(db, none.merchantId, JSON.stringify({ ...olderSettings, methods: [] }));
      });

      await applyExplicitMethods();
      assert.deepEqual(await storedSettings(older.merchantId), { ...olderSettings, methods: ['card', 'landingpage', 'walletpay'] });
      assert.deepEqual((await storedSettings(cardOnly.merchantId)).methods, ['card']);
      assert.deepEqual((await storedSettings(none.merchantId)).methods, []);

      const listed = async (key: string) => (await t.client.get('/method', { key })).json().map((m: { method: string }) => m.method);
      assert.deepEqual(await listed(older.liveApiKey), ['card', 'landingpage', 'walletpay']);
      assert.deepEqual(await listed(cardOnly.testApiKey), ['card']);
      assert.deepEqual(await listed(none.testApiKey), []);
      const hostedWallet = { method: 'walletpay', amount: '10.00', currency: 'EUR', returnUrl: 'https://shop.example/return' };
      assert.equal((await t.client.post('/payment', hostedWallet, { key: older.testApiKey })).statusCode, 200);
      assert.equal((await t.client.post('/payment', hostedWallet, { key: cardOnly.testApiKey })).statusCode, 422);

      await applyExplicitMethods();
      assert.deepEqual((await storedSettings(older.merchantId)).methods, ['card', 'landingpage', 'walletpay'], 'run again, it changes nothing');
    });
  });
}
