/**
 * Acquirer claim queries (018_acquirer_claims), nothing else: a capture, reversal or refund
 * being asked of the acquirer. A claim is written in the unit that claims its payment and ends
 * when its row is deleted; taking a due one for the recovery job is a compare-and-set.
 */
import type { Db } from './store.ts';
import type { AcquirerClaimRow } from './schema.ts';

export async function insertAcquirerClaim(db: Db, claim: AcquirerClaimRow): Promise<void> {
  await db.insertInto('acquirer_claims').values(claim).execute();
}

export async function findAcquirerClaim(db: Db, reference: string): Promise<AcquirerClaimRow | undefined> {
  return db.selectFrom('acquirer_claims').selectAll().where('reference', '=', reference).executeTakeFirst();
}

/** Ends the claim. False when it had ended already (another unit ended it first): the caller then changes nothing. */
export async function endAcquirerClaim(db: Db, reference: string): Promise<boolean> {
  const result = await db.deleteFrom('acquirer_claims').where('reference', '=', reference).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Claims whose lease ran out by `now`, soonest first: for the recovery job. */
export async function findDueAcquirerClaims(db: Db, now: number, limit: number) {
  return db.selectFrom('acquirer_claims').select(['reference', 'due_at']).where('due_at', '<=', now).orderBy('due_at').limit(limit).execute();
}

/**
 * The recovery job takes a due claim (compare-and-set on when it was due, as read): of several
 * workers exactly one asks the acquirer; the claim is due again at `retryAt` in case that one dies
 * too, and counts the ask.
 */
export async function takeDueAcquirerClaim(db: Db, take: { reference: string; dueAt: number; retryAt: number }): Promise<boolean> {
  const result = await db
    .updateTable('acquirer_claims')
    .set((eb) => ({ due_at: take.retryAt, asks: eb('asks', '+', 1) }))
    .where('reference', '=', take.reference)
    .where('due_at', '=', take.dueAt)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
