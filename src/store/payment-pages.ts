/** Queries of the hosted pages' tables (003_pages), nothing else. */
import type { Db } from './store.ts';
import type { ThreeDSSessionTable } from './schema.ts';
import type { Insertable, Selectable } from 'kysely';
import { identifierShaped } from '../lib/tokens.ts';

export type PaymentPageRow = Awaited<ReturnType<typeof findPaymentPage>>;
export type ThreeDSSessionRow = Selectable<ThreeDSSessionTable>;

export async function findPaymentPage(db: Db, reference: string) {
  return db.selectFrom('payment_pages').selectAll().where('reference', '=', reference).executeTakeFirst();
}

/** A payment's page state before its first form post makes its row: nothing chosen, counted, leased or in flight (`created` 0: `pageMade` is false). */
export const pageNotMadeYet = (reference: string, csrfToken: string): NonNullable<PaymentPageRow> => ({
  reference,
  csrf_token: csrfToken,
  attempts: 0,
  chosen_method: null,
  processing_until: null,
  acquirer_reference: null,
  created: 0,
  authorisation_in_flight: null,
  recovery_due_at: null,
  technical_cancel_sent_at: null,
  reversal_acquirer_reference: null,
});

/** Whether the page state is the payment's row, not `pageNotMadeYet`'s stand-in. */
export const pageMade = (page: { created: number }) => page.created !== 0;

/** Creates the page state once; a concurrent first post keeps the first one's token. */
export async function ensurePaymentPage(db: Db, reference: string, csrfToken: string, now: number) {
  await db
    .insertInto('payment_pages')
    .values({ reference, csrf_token: csrfToken, attempts: 0, chosen_method: null, processing_until: null, acquirer_reference: null, created: now })
    .onConflict((oc) => oc.column('reference').doNothing())
    .execute();
  return (await findPaymentPage(db, reference))!;
}

/**
 * Counts a card attempt unless another request of the same payment is processing a card
 * right now (compare-and-set on the processing lease, in the same statement): the attempt's
 * number, or undefined when the payment is busy. `leaseUntil` takes the lease with the
 * attempt (a card on its way to the acquirer); null leaves the payment free (a card refused
 * on the form). A submit turned away as busy is never counted.
 */
export async function countAttemptUnlessBusy(db: Db, reference: string, { now, leaseUntil }: { now: number; leaseUntil: number | null }): Promise<number | undefined> {
  const result = await db
    .updateTable('payment_pages')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), processing_until: leaseUntil }))
    .where('reference', '=', reference)
    .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', now)]))
    // An authorisation whose outcome is not known yet: no card is tried next to it.
    .where('authorisation_in_flight', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return undefined;
  return (await findPaymentPage(db, reference))!.attempts;
}

/**
 * Takes the processing lease (compare-and-set): false when another request of the same
 * payment is processing a card right now, so a double submit cannot authorise twice, or when
 * an authorisation's outcome is not known yet — unless it is the one `resuming` names (its
 * idempotency key: sent again, the acquirer answers the first call's result).
 */
export async function takeProcessingLease(db: Db, reference: string, now: number, until: number, resuming?: string): Promise<boolean> {
  const result = await db
    .updateTable('payment_pages')
    .set({ processing_until: until })
    .where('reference', '=', reference)
    .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', now)]))
    .where((eb) =>
      resuming === undefined
        ? eb('authorisation_in_flight', 'is', null)
        : eb.or([eb('authorisation_in_flight', 'is', null), eb('authorisation_in_flight', '=', resuming)]),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function releaseProcessingLease(db: Db, reference: string) {
  await db.updateTable('payment_pages').set({ processing_until: null }).where('reference', '=', reference).execute();
}

/**
 * The write-ahead record of an authorisation (docs/acquirers.md "Unknown outcomes"), committed
 * before the acquirer is called: its idempotency key, and when the recovery job is to look at it
 * if no outcome is committed by then. Compare-and-set: false when another authorisation of the
 * payment is in flight (the same key again is a resume, and fine).
 */
export async function recordAuthorisationInFlight(db: Db, reference: string, { key, recoveryDueAt }: { key: string; recoveryDueAt: number }): Promise<boolean> {
  const result = await db
    .updateTable('payment_pages')
    .set({ authorisation_in_flight: key, recovery_due_at: recoveryDueAt })
    .where('reference', '=', reference)
    .where((eb) => eb.or([eb('authorisation_in_flight', 'is', null), eb('authorisation_in_flight', '=', key)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The authorisation's outcome is known and committed in this unit of work: the record is
 * cleared. False when the recovery job has sent a technical cancel for it — then the cancel
 * decides the outcome — so that of the two (an acquirer's notification, the job) exactly one
 * wins: both are compare-and-sets on this one row.
 */
export async function settleAuthorisationInFlight(db: Db, reference: string): Promise<boolean> {
  const result = await db
    .updateTable('payment_pages')
    .set({ authorisation_in_flight: null, recovery_due_at: null })
    .where('reference', '=', reference)
    .where('technical_cancel_sent_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return true;
  return !(await findPaymentPage(db, reference))?.technical_cancel_sent_at;
}

/** Whether an authorisation of the payment is in flight (its outcome not committed). */
export async function authorisationInFlight(db: Db, reference: string): Promise<boolean> {
  return !!(await findPaymentPage(db, reference))?.authorisation_in_flight;
}

/** Authorisations in flight the recovery job is to look at now, oldest first. */
export async function findDueAuthorisationRecoveries(db: Db, now: number, limit: number) {
  return db
    .selectFrom('payment_pages')
    .select(['reference', 'recovery_due_at'])
    .where('recovery_due_at', '<=', now)
    .where('authorisation_in_flight', 'is not', null)
    .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', now)]))
    .orderBy('recovery_due_at')
    .limit(limit)
    .execute();
}

/**
 * The recovery job's claim of an authorisation in flight (compare-and-set on when it was due,
 * so one worker of many takes it, and only once no request holds the payment's lease): it is
 * due again at `retryAt` if this run does not settle it, and with `technicalCancel` the cancel
 * is recorded as sent before it is. False when another worker, or the outcome, came first.
 */
export async function claimAuthorisationRecovery(
  db: Db,
  reference: string,
  claim: { dueAt: number; now: number; retryAt: number | null; technicalCancel: boolean },
): Promise<boolean> {
  const result = await db
    .updateTable('payment_pages')
    .set((eb) => ({
      recovery_due_at: claim.retryAt,
      ...(claim.technicalCancel ? { technical_cancel_sent_at: eb.fn.coalesce('technical_cancel_sent_at', eb.val(claim.now)) } : {}),
    }))
    .where('reference', '=', reference)
    .where('authorisation_in_flight', 'is not', null)
    .where('recovery_due_at', '=', claim.dueAt)
    .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', claim.now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The recovery job settled the authorisation in flight (its technical cancel was taken): the record is closed. */
export async function endAuthorisationInFlight(db: Db, reference: string) {
  await db.updateTable('payment_pages').set({ authorisation_in_flight: null, recovery_due_at: null }).where('reference', '=', reference).execute();
}

/**
 * The recovery job cannot settle it (the acquirer refused the technical cancel): the payment is the
 * operator's, and as no cancel was made, the acquirer's notification may still settle it.
 */
export async function leaveAuthorisationToOperator(db: Db, reference: string) {
  await db.updateTable('payment_pages').set({ recovery_due_at: null, technical_cancel_sent_at: null }).where('reference', '=', reference).execute();
}

export async function setPageFields(
  db: Db,
  reference: string,
  fields: { chosen_method?: string | null; acquirer_reference?: string | null; reversal_acquirer_reference?: string | null },
) {
  await db.updateTable('payment_pages').set(fields).where('reference', '=', reference).execute();
}

export async function insertThreeDSSession(db: Db, row: Insertable<ThreeDSSessionTable>) {
  await db.insertInto('threeds_sessions').values(row).execute();
}

export async function findThreeDSSession(db: Db, id: string) {
  if (!identifierShaped(id)) return undefined;
  return db.selectFrom('threeds_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateThreeDSSession(
  db: Db,
  id: string,
  fromStates: ThreeDSSessionTable['state'][],
  fields: Partial<Omit<ThreeDSSessionTable, 'id'>>,
): Promise<boolean> {
  const result = await db.updateTable('threeds_sessions').set(fields).where('id', '=', id).where('state', 'in', fromStates).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
