/**
 * Wallet tokens used: a wallet token pays once. Its `transactionId` (spec §2.3, unique
 * per token) is recorded in the same unit of work that accepts the token for a payment,
 * so a replayed token is refused however many processes receive it.
 */
import { Kysely } from 'kysely';

export const wallet = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('wallet_token_uses')
      .addColumn('transaction_id', 'text', (c) => c.primaryKey())
      .addColumn('reference', 'text', (c) => c.notNull().unique().references('transactions.reference'))
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
  },
});
