/**
 * A capture or refund that was `success` and that the acquirer later undid (docs/decisions.md "An
 * acquirer undoing a final outcome"; docs/acquirers.md "Notifications"): a capture it could not
 * make after all, a refund that failed or whose money came back. Final states never change
 * (ground/states.ts), so the transaction stays `success`, and what happened is written where the
 * merchant and the console read it, in one unit of work: `details.undoneByAcquirer` on the
 * transaction, an event on its timeline with the acquirer's words, a merchant webhook of it, and
 * its parent put right with a webhook of its own — a refund's sale its `refundedAmount` (the
 * amount refundable again), a capture's authorisation `authorised` again. A sale captured with its
 * authorisation has no parent: it is undone itself, and refunds of it are refused.
 */
import type { Db, Dialect } from '../store/store.ts';
import type { TransactionRow } from '../store/schema.ts';
import { recordTimelineEntry, setTransactionDetails, undoneByAcquirer } from '../store/transactions.ts';
import { enqueueWebhook } from '../events/outbox.ts';
import { giveCaptureBack } from './authorisation.ts';
import { recordRefundedAmount } from './refunds.ts';

export type Undoing = 'capture_failed' | 'refund_failed' | 'refund_reversed';

/** The timeline's cause of each. */
const causes = {
  capture_failed: { cause: 'acquirer_capture_failed' },
  refund_failed: { cause: 'acquirer_refund_failed' },
  refund_reversed: { cause: 'acquirer_refund_reversed' },
} as const satisfies Record<Undoing, { cause: string }>;

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
