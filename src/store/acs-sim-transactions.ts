/** Queries of the test-mode ACS simulator's transactions (003_pages), nothing else. */
import type { Insertable } from 'kysely';
import type { Db } from './store.ts';
import type { AcsSimTransactionTable } from './schema.ts';
import { identifierShaped } from '../lib/tokens.ts';

export async function insertAcsSimTransaction(db: Db, row: Insertable<AcsSimTransactionTable>) {
  await db.insertInto('acs_sim_transactions').values(row).execute();
}

/** The transaction, if it was opened for a test-mode payment's 3-D Secure session: the simulator never answers for a live one. */
export async function findAcsSimTransaction(db: Db, acsTransID: string) {
  if (!identifierShaped(acsTransID)) return undefined;
  return db
    .selectFrom('acs_sim_transactions')
    .innerJoin('threeds_sessions', 'threeds_sessions.id', 'acs_sim_transactions.three_ds_server_trans_id')
    .innerJoin('transactions', 'transactions.reference', 'threeds_sessions.reference')
    .selectAll('acs_sim_transactions')
    .where('acs_sim_transactions.acs_trans_id', '=', acsTransID)
    .where('transactions.mode', '=', 'test')
    .executeTakeFirst();
}

/**
 * The `language` of the payment a 3-D Secure session authenticates: the simulated issuer speaks
 * to its cardholder in it (docs/pages.md "Languages"); undefined for an unknown session.
 */
export async function paymentLanguageOfSession(db: Db, sessionId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('threeds_sessions')
    .innerJoin('transactions', 'transactions.reference', 'threeds_sessions.reference')
    .select('transactions.language')
    .where('threeds_sessions.id', '=', sessionId)
    .executeTakeFirst();
  return row?.language;
}

/** Records the cardholder's answer (compare-and-set on `pending`): false when it was answered already. */
export async function finishAcsSimTransaction(db: Db, acsTransID: string, outcome: string): Promise<boolean> {
  const result = await db
    .updateTable('acs_sim_transactions')
    .set({ state: 'done', outcome })
    .where('acs_trans_id', '=', acsTransID)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
