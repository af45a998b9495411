/**
 * Wallet tokens used: a token pays once, and a payment takes one token. The token's
 * `transactionId` (docs/api.md#wallet-tokens, unique per token) is recorded with the payment in the unit of
 * work that accepts it, so a replayed token, or a second token for a payment, is refused
 * however many processes receive them. The token itself (ciphertext: only the processing
 * key opens it) is kept until the payment is final, so a payment whose process died before
 * the acquirer answered is resumed (payments/jobs/wallet-recovery.ts); then it is cleared.
 */
import { Kysely, sql } from 'kysely';

export const wallet = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('wallet_token_uses')
      .addColumn('transaction_id', 'text', (c) => c.primaryKey())
      .addColumn('reference', 'text', (c) => c.notNull().unique().references('transactions.reference'))
      .addColumn('token', 'text')
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE INDEX wallet_token_uses_unfinished ON wallet_token_uses (created) WHERE token IS NOT NULL`.execute(db);
  },
});
