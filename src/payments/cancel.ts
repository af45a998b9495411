/**
 * Cancel (spec §4.5, DESIGN §2): `POST <cancelUrl>`, empty body, idempotent. A pending
 * payment becomes failed/cancelled; a final one is returned unchanged.
 */
import { Problem } from '../ground/problem.ts';
import type { Store } from '../store/store.ts';
import { findByPageToken, findTransaction } from '../store/transactions.ts';
import type { TransactionRow } from '../store/schema.ts';
import { transition } from './transition.ts';

export async function cancelByPageToken(
  store: Store,
  pageToken: string,
  caller: { merchantId: string } | undefined,
  cause: 'customer_cancel' | 'merchant_cancel',
): Promise<TransactionRow> {
  return store.transact(async (db) => {
    const row = await findByPageToken(db, pageToken);
    if (!row || (caller && caller.merchantId !== row.merchant_id)) throw Problem.notFound('No payment has this cancel address.');
    if (row.status === 'pending') {
      await transition(db, { reference: row.reference, from: 'pending', to: 'failed', failureCode: 'cancelled', cause, at: Date.now() });
    }
    return (await findTransaction(db, row.reference))!;
  });
}
