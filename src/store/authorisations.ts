/** Queries for completing an authorisation (capture, reversal). The status stays `success`; `details` records it. */
import type { Db } from './store.ts';

/** Why an authorisation's completion changed, as its timeline says; null for a change the merchant does not see. */
export type AuthorisationChangeCause =
  | 'capture'
  | 'reversal'
  | 'reversal_refused_by_acquirer'
  | 'acquirer_authorisation_expired'
  | 'acquirer_capture_failed'
  | 'acquirer_recaptured'
  | 'acquirer_outcome_unknown'
  | 'operator_resolved'
  | null;

/**
 * Compare-and-set on `details`: applies only if the payment still has the details it was
 * read with, so two concurrent captures cannot both claim it. Written with its event row; a
 * change with no cause (an acquirer claim taken or given back, which the merchant does not
 * see) has none and leaves `last_update` as it was.
 */
export async function recordAuthorisationChange(
  db: Db,
  change: {
    reference: string;
    fromDetails: string;
    toDetails: string;
    cause: AuthorisationChangeCause;
    at: number;
    /** What the acquirer said, when its notification made the change (transaction_events.detail). */
    detail?: string;
  },
): Promise<boolean> {
  const { cause } = change;
  const result = await db
    .updateTable('transactions')
    .set((eb) => ({ details: change.toDetails, ...(cause === null ? {} : { last_update: change.at }), version: eb('version', '+', 1) }))
    .where('reference', '=', change.reference)
    .where('status', '=', 'success')
    .where('details', '=', change.fromDetails)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  if (cause === null) return true;
  await db
    .insertInto('transaction_events')
    .values({ reference: change.reference, from_status: 'success', to_status: 'success', failure_code: null, cause, at: change.at, detail: change.detail ?? null })
    .execute();
  return true;
}
