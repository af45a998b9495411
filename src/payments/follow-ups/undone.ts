/**
 * A capture or refund that was `success` and that the acquirer later undid (docs/decisions.md "An
 * acquirer undoing a final outcome"; docs/acquirers.md "Notifications"): a capture it could not
 * make after all, a refund that failed or whose money came back. Final states never change
 * (ground/states.ts), so the transaction stays `success`, and what happened is written where the
 * merchant and the console read it, in one unit of work: `details.undoneByAcquirer` on the
 * transaction, an event on its timeline with the acquirer's words, a merchant webhook of it, and
 * its parent put right with a webhook of its own — a refund's sale its `refundedAmount` (the
 * amount refundable again), a capture's authorisation `authorised` again. A sale captured with its
 * authorisation has no parent: it is undone itself, and refunds of it are refused. A capture the
 * acquirer then made after all is redone (`redoCapture`).
 */
import type { Db, Dialect } from '../../store/store.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { recordTimelineEntry, setTransactionDetails, undoneByAcquirer } from '../../store/transactions.ts';
import { enqueueWebhook } from '../../events/outbox.ts';
import { giveCaptureBack, recaptureAuthorisation } from './authorisation.ts';
import { recordRefundedAmount } from './refunds.ts';
import type { EventCause } from '../../ground/event-causes.ts';

export type Undoing = 'capture_failed' | 'refund_failed' | 'refund_reversed';

/** The timeline's cause of each. */
const causes = {
  capture_failed: { cause: 'acquirer_capture_failed' },
  refund_failed: { cause: 'acquirer_refund_failed' },
  refund_reversed: { cause: 'acquirer_refund_reversed' },
} as const satisfies Record<Undoing, { cause: EventCause }>;

/** False when the transaction was undone already (a refund that failed and then came back too): then only the timeline tells it. */
export async function undoFollowUp(tx: Db, dialect: Dialect, row: TransactionRow, change: { undoing: Undoing; detail: string; at: number }): Promise<boolean> {
  const { cause } = causes[change.undoing];
  await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause, detail: change.detail, at: change.at });
  if (undoneByAcquirer(row)) return false;
  const details = { ...(JSON.parse(row.details) as Record<string, unknown>), undoneByAcquirer: change.undoing };
  await setTransactionDetails(tx, row.reference, JSON.stringify(details));
  await enqueueWebhook(tx, { reference: row.reference, to: row.status, at: change.at });
  if (row.type === 'credit') {
    const sale = await recordRefundedAmount(tx, dialect, row.parent_reference!);
    await enqueueWebhook(tx, { reference: sale.reference, to: sale.status, at: change.at });
  } else if (row.parent_reference !== null) {
    await giveCaptureBack(tx, row, { at: change.at, detail: change.detail });
  }
  return true;
}

/**
 * A capture undone (`capture_failed`) that the acquirer then made after all: Adyen re-captures
 * after some failures at the scheme and says so by a `CAPTURE` success, often under the first
 * capture's own pspReference (docs/acquirers.md "Notifications"). The money is taken, so the undoing
 * is undone the same way, in one unit: the transaction loses `details.undoneByAcquirer` (its
 * timeline keeps both words, `acquirer_capture_failed` then `acquirer_recaptured`), the merchant gets
 * a webhook of it, and a capture's authorisation is `captured` again naming it, with its webhook,
 * when it is still `authorised`; a sale captured with its authorisation is refundable again. False
 * when the authorisation was captured anew, reversed, or is being so meanwhile: it stays as it is,
 * its timeline says what the acquirer did, and an operator should look (the money may be taken twice).
 */
export async function redoCapture(tx: Db, row: TransactionRow, change: { detail: string; at: number }): Promise<boolean> {
  const cause = 'acquirer_recaptured';
  await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause, detail: change.detail, at: change.at });
  const { undoneByAcquirer: _undone, ...details } = JSON.parse(row.details) as Record<string, unknown>;
  await setTransactionDetails(tx, row.reference, JSON.stringify(details));
  await enqueueWebhook(tx, { reference: row.reference, to: row.status, at: change.at });
  if (row.parent_reference === null) return true;
  return recaptureAuthorisation(tx, row, { cause, ...change });
}
