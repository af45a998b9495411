/**
 * Acquirer connections (docs/acquirers.md): each merchant's acquirer for each mode — the
 * connector, its endpoint, the merchant's account there and its credentials, sealed with the
 * secrets key. A mode without a row uses the default: the simulator in test mode, none live.
 */
import type { Kysely } from 'kysely';

export const acquirerConnections = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('acquirer_connections')
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('connector', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('secrets', 'text', (c) => c.notNull())
      .addColumn('updated', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('acquirer_connections_pk', ['merchant_id', 'mode'])
      .execute();
    // Notifications name the acquirer account, not the merchant.
    await db.schema.createIndex('acquirer_connections_account').on('acquirer_connections').columns(['connector', 'account']).execute();
  },
});
