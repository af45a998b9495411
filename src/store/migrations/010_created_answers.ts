/**
 * An Idempotency-Reference record of a create keeps the created transaction's reference instead
 * of a sealed copy of the answer: the answer is that transaction's payment object as created,
 * built again from its row on a replay (docs/decisions.md "Replaying a create from its row").
 * Records of other answers keep theirs, sealed, as before.
 */
import type { Kysely } from 'kysely';

export const createdAnswers = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('idempotency_records').addColumn('transaction_reference', 'text').execute();
  },
});
