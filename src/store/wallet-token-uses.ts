/** Wallet token use queries (006_wallet), nothing else: a token's one payment, and the token until that payment is final. */
import type { Db } from './store.ts';

/**
 * Records that a token pays a payment; false when the token, or a token for this payment,
 * was recorded already (both are unique keys, so the insert then does nothing).
 */
export async function insertWalletTokenUse(db: Db, use: { transactionId: string; reference: string; token: string; created: number }): Promise<boolean> {
  const result = await db
    .insertInto('wallet_token_uses')
    .values({ transaction_id: use.transactionId, reference: use.reference, token: use.token, created: use.created })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The payment the token with this `transactionId` was recorded for, if any. */
export async function findWalletTokenUse(db: Db, transactionId: string) {
  return db.selectFrom('wallet_token_uses').select('reference').where('transaction_id', '=', transactionId).executeTakeFirst();
}

/** Forgets the kept token of `reference`'s use: its payment is final. */
export async function clearWalletToken(db: Db, reference: string) {
  await db.updateTable('wallet_token_uses').set({ token: null }).where('reference', '=', reference).execute();
}

/** Up to `limit` uses whose token is still kept (their payment not final), recorded before `before`, oldest first. */
export async function findUnfinishedWalletTokenUses(db: Db, before: number, limit: number) {
  return db
    .selectFrom('wallet_token_uses')
    .select(['reference', 'token', 'created'])
    .where('token', 'is not', null)
    .where('created', '<', before)
    .orderBy('created')
    .limit(limit)
    .execute();
}
