/**
 * Each merchant accepts the methods its settings list (docs/console.md "Settings"), and a method
 * added to Kassa later is off until an operator enables it. Settings without a `methods` list
 * stand for Kassa's default until now, every method it had: such a merchant gets that list
 * written out, so it keeps accepting exactly those and no method added later. The list is written
 * here as it stood, not read from ground/payment-method.ts, which grows. A list already there,
 * empty included, is the merchant's own and stays.
 *
 * One transaction, as 009: PostgreSQL's migrator runs each migration in one; SQLite's runs none,
 * so this migration opens its own.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

const METHODS_BEFORE_EACH_MERCHANT_ENABLED_ITS_OWN = ['card', 'landingpage', 'walletpay'];

export const explicitMerchantMethods = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    if (dialect === 'sqlite') await db.transaction().execute(writeMethods);
    else await writeMethods(db);
  },
});

async function writeMethods(db: Kysely<any>) {
  for (const merchant of await db.selectFrom('merchants').select(['id', 'settings']).execute()) {
    const settings = JSON.parse(merchant.settings) as { methods?: unknown };
    if (Array.isArray(settings.methods)) continue;
    await db
      .updateTable('merchants')
      .set({ settings: JSON.stringify({ ...settings, methods: METHODS_BEFORE_EACH_MERCHANT_ENABLED_ITS_OWN }) })
      .where('id', '=', merchant.id)
      .execute();
  }
}
