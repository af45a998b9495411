/**
 * The acquirer's later word on what it took (docs/acquirers.md "Notifications"): a capture or a
 * refund the acquirer answered `received` stays `pending` until its notification says whether it
 * was done; this moves it to `success` or `failed` through the same state change (and so the
 * same events and webhooks) as everything else. The notification is already verified
 * (api/acquirer-notifications.ts). Replays change nothing: a final state never changes.
 */
import type { Mode } from '../../store/schema.ts';
import { findOwnTransaction, findTransaction } from '../../store/transactions.ts';
import { settleRefund } from '../refunds.ts';
import { transition } from '../transition.ts';
import { systemOperation } from './operation.ts';

export interface AcquirerWord {
  /** Whose connection the notification was signed for. */
  owner: { merchantId: string; mode: Mode };
  /** Kassa's reference of the capture or refund, as sent to the acquirer. */
  reference: string;
  event: 'capture' | 'refund' | 'other';
  success: boolean;
}

export const settleByAcquirer = systemOperation({
  name: 'settleByAcquirer',
  parse: (word: AcquirerWord) => word,
  load: (word, { ports }) => (word.event === 'other' ? undefined : findOwnTransaction(ports.store.read, word.owner, word.reference)),
  decide: (row, word) => {
    if (!row || row.status !== 'pending' || row.parent_reference === null) return undefined;
    const kind = row.type === 'credit' ? 'refund' : 'capture';
    return kind === word.event ? { row, kind, to: word.success ? ('success' as const) : ('failed' as const) } : undefined;
  },
  commit: async (tx, settlement, { ports, now }) => {
    if (!settlement) return undefined;
    const { row, kind, to } = settlement;
    if (kind === 'refund') return (await settleRefund(tx, ports.store.dialect, row, { to, failureCode: 'rejected', cause: 'acquirer_notification', at: now })).row;
    await transition(tx, {
      reference: row.reference,
      from: 'pending',
      to,
      failureCode: to === 'failed' ? 'processing_error' : null,
      cause: 'acquirer_notification',
      at: now,
    });
    return findTransaction(tx, row.reference);
  },
  answer: (row) => row,
});
