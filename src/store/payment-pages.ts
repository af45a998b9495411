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

/** Creates the page state once; a concurrent first visit keeps the first one's token. */
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
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return undefined;
  return (await findPaymentPage(db, reference))!.attempts;
}

/**
 * Takes the processing lease (compare-and-set): false when another request of the same
 * payment is processing a card right now, so a double submit cannot authorise twice.
 */
export async function takeProcessingLease(db: Db, reference: string, now: number, until: number): Promise<boolean> {
  const result = await db
    .updateTable('payment_pages')
    .set({ processing_until: until })
    .where('reference', '=', reference)
    .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function releaseProcessingLease(db: Db, reference: string) {
  await db.updateTable('payment_pages').set({ processing_until: null }).where('reference', '=', reference).execute();
}

export async function setPageFields(db: Db, reference: string, fields: { chosen_method?: string | null; acquirer_reference?: string | null }) {
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
