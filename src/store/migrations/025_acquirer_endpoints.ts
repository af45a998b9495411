/**
 * An acquirer connection's other API roots (docs/acquirers.md "Connections"): an acquirer may
 * serve a payment's parts from APIs at different hosts (Adyen: the Classic Payment API at
 * `endpoint`, the Checkout API for methods paid elsewhere, the Disputes API), each of whose test
 * and live hosts differ. A JSON object of roots by API; null for a connection that names none.
 */
import type { Kysely } from 'kysely';

export const acquirerEndpoints = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('acquirer_connections').addColumn('endpoints', 'text').execute();
  },
});
