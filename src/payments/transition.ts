/**
 * The one way a payment's status changes: checked against the state machine, then a
 * single compare-and-set in the database with its event row, in the caller's unit of
 * work. Everything that must happen with a change (the event, the webhook outbox) is
 * written in that same unit, so it commits or vanishes with the change.
 */
import type { Db } from '../store/store.ts';
import { changeStatus, type StatusChange } from '../store/transactions.ts';
import { canTransition, type Status } from '../ground/states.ts';
import { enqueueWebhook } from '../events/outbox.ts';

export class IllegalTransition extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    super(`a payment cannot go from ${from} to ${to}`);
  }
}

/** Returns false when the payment was no longer in `from` (someone else changed it first). */
export async function transition(db: Db, change: StatusChange & { from: Status; to: Status }): Promise<boolean> {
  if (!canTransition(change.from, change.to)) throw new IllegalTransition(change.from, change.to);
  if (!(await changeStatus(db, change))) return false;
  await enqueueWebhook(db, change);
  return true;
}
