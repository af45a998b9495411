/**
 * The vault (docs/decisions.md#vault): one row per stored card. The card number is kept only
 * as AES-256-GCM ciphertext with the id of the key that sealed it (rotation); the access
 * token only as its SHA-256, the look-up key. No column can hold a CVC.
 *
 * Merchants created before carry `vaultPaymentPath: "direct"`, written by an earlier default
 * when no vault existed and no one could choose it: they get today's default, `confirm`.
 */
import type { Kysely } from 'kysely';

const bigint = 'bigint';

export const vault = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('vault_cards')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('access_token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('masked_pan', 'text', (c) => c.notNull())
      .addColumn('cardholder_first_name', 'text')
      .addColumn('cardholder_last_name', 'text')
      .addColumn('expiry_month', 'integer', (c) => c.notNull())
      .addColumn('expiry_year', 'integer', (c) => c.notNull())
      .addColumn('pan_ciphertext', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('enrollment_reference', 'text', (c) => c.notNull())
      .addColumn('created', bigint, (c) => c.notNull())
      .execute();
    for (const merchant of await db.selectFrom('merchants').select(['id', 'settings']).execute()) {
      const settings = { ...JSON.parse(merchant.settings), vaultPaymentPath: 'confirm' };
      await db
        .updateTable('merchants')
        .set({ settings: JSON.stringify(settings) })
        .where('id', '=', merchant.id)
        .execute();
    }
  },
});
