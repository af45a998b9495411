/**
 * Queries for what a payment's `details` record after its final state: an authorisation's
 * completion (capture, reversal; the status stays `success`), money paid after the payment ended
 * (`failed`, payments/follow-ups/late-payment.ts).
 */
import type { Db } from './store.ts';
import type { EventCause } from '../ground/event-causes.ts';

/** Why a final payment's details changed (an authorisation's completion, money paid late), as its timeline says; null for a change the merchant does not see. */
export type AuthorisationChangeCause = Extract<
  EventCause,
  | 'capture'
  | 'reversal'
  | 'reversal_refused_by_acquirer'
  | 'acquirer_authorisation_expired'
  | 'acquirer_capture_failed'
  | 'acquirer_recaptured'
  | 'acquirer_outcome_unknown'
  | 'operator_resolved'
  | 'acquirer_paid_late'
  | 'late_payment_returned'
  | 'late_payment_not_returned'
> | null;

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
    /** The final status the payment must be in: `success` (an authorisation's completion) unless said. */
    status?: 'success' | 'failed';
    at: number;
    /** What the acquirer said, when its notification made the change (transaction_events.detail). */
    detail?: string;
  },
): Promise<boolean> {
  const { cause, status = 'success' } = change;
  const result = await db
    .updateTable('transactions')
    .set((eb) => ({ details: change.toDetails, ...(cause === null ? {} : { last_update: change.at }), version: eb('version', '+', 1) }))
    .where('reference', '=', change.reference)
    .where('status', '=', status)
    .where('details', '=', change.fromDetails)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  if (cause === null) return true;
  await db
    .insertInto('transaction_events')
    .values({ reference: change.reference, from_status: status, to_status: status, failure_code: null, cause, at: change.at, detail: change.detail ?? null })
    .execute();
  return true;
}
