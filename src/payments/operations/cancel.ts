/**
 * Cancel (docs/api.md#cancel): `POST <cancelUrl>` or the page's cancel button. A
 * pending payment becomes failed/cancelled; a final one, or one whose authorisation is in
 * flight, is answered unchanged, so cancelling again is harmless. The capability token authorises; a merchant's key, when
 * sent, must be the payment's merchant.
 */
import { Problem } from '../../ground/problem.ts';
import { findByPageToken, findTransaction } from '../../store/transactions.ts';
import { transition } from '../transition.ts';
import { authorisationInFlight } from '../../store/payment-pages.ts';
import { operationFor } from '../runner/operation.ts';

/** Who cancels: the merchant (its key sent with the request) or, without one, the customer. */
export type CancellingParty = { merchantId: string } | undefined;

export const cancel = operationFor<CancellingParty>()({
  name: 'cancel',
  parse: (body: { pageToken: string }) => body.pageToken,
  load: (pageToken, { ports }) => findByPageToken(ports.store.read, pageToken),
  decide: (row, _pageToken, { caller }) => {
    // A refund is the merchant's own, a dispute the cardholder's bank's: no customer cancels either.
    if (!row || row.type === 'credit' || row.type === 'chargeback' || (caller && caller.merchantId !== row.merchant_id))
      throw new Problem('notFound', 'No payment has this cancel address.');
    return row;
  },
  commit: async (tx, row, { caller, now }) => {
    // An authorisation in flight may have taken the money: its outcome ends the payment, not a cancel (docs/acquirers.md "Unknown outcomes").
    if (row.status === 'pending' && !(await authorisationInFlight(tx, row.reference))) {
      const cause = caller ? 'merchant_cancel' : 'customer_cancel';
      await transition(tx, { reference: row.reference, from: 'pending', to: 'failed', failureCode: 'cancelled', cause, at: now });
    }
    return (await findTransaction(tx, row.reference))!;
  },
  answer: (row) => row,
});
