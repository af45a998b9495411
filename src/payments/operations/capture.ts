/**
 * Capture an authorisation (`POST {base_url}/capture`, docs/api.md#existing-clients): `{reference, amount?,
 * orderLines?}`; omit amount to capture all of it, or capture less (the rest is released).
 * One capture per authorisation; it is a transaction of its own, which the answer is and
 * which the merchant refunds (authorisation.ts). Before the acquirer is asked, the capture
 * claims the authorisation and makes its own pending transaction (claims.ts): a second capture
 * or a reversal meanwhile is refused without reaching the acquirer, and every ask of this one
 * carries the capture's own reference as its key, with its one amount.
 */
import { Problem } from '../../ground/problem.ts';
import { findCurrency, parseAmount } from '../../ground/amount.ts';
import type { AcquirerClaimRow } from '../../store/schema.ts';
import { authorised, claimAuthorisation, completable, loadAuthorisation, type Authorisation } from '../follow-ups/authorisation.ts';
import { claimedStages, recordClaim } from '../follow-ups/claims.ts';
import { compileTable } from '../requests/rows.ts';
import { followUpFields, followUpRow, parseFollowUp, type FollowUpRequest } from '../follow-ups/follow-up.ts';
import { serializePayment } from '../serialize.ts';
import { requestRules } from '../requests/fields.ts';
import { merchantOperation } from '../runner/operation.ts';
import { insertTransaction } from '../../store/transactions.ts';
import { methodOf } from '../../ground/payment-method.ts';
import { orderLinesAddingUp } from '../requests/order-lines.ts';

/** The body the official client sends (`CaptureRequest.php`); the amount is checked against the authorisation's currency once it is read (decide). */
export const captureTable = compileTable(followUpFields);

interface Plan {
  authorisation: Authorisation;
  amountMinor: number;
  request: FollowUpRequest;
  /** Set by the reservation: the claim, named by the capture's own transaction. */
  claim?: AcquirerClaimRow;
}

/** The amount asked for, in the authorisation's currency: more than 0, at most what was authorised. */
function capturedAmount(amount: unknown, currencyCode: string, authorisedMinor: number): number {
  const parsed = parseAmount(amount, findCurrency(currencyCode)!);
  if (!parsed.ok) throw new Problem('validationFailed', { errors: [{ field: '/amount', code: parsed.code, message: parsed.message }] });
  if (parsed.minor <= 0) throw new Problem('validationFailed', { errors: [{ field: '/amount', code: 'range', message: 'must be more than 0' }] });
  if (parsed.minor > authorisedMinor)
    throw new Problem('validationFailed', { errors: [{ field: '/amount', code: 'range', message: 'must not be more than the authorised amount' }] });
  return parsed.minor;
}

export const capture = merchantOperation({
  name: 'capture',
  parse: (body: Record<string, unknown>, { caller, ports }) => parseFollowUp(captureTable, body, requestRules(caller.mode, ports.settings)),
  load: (request, { ports, caller }) => loadAuthorisation(ports.store.read, caller, request.reference),
  decide: (found, request): Plan => {
    const authorisation = completable(authorised(found, request.reference));
    const { row } = authorisation;
    const amountMinor = request.amount === undefined ? row.amount_minor : capturedAmount(request.amount, row.currency, row.amount_minor);
    // A method that invoices what was sold (Klarna) captures what shipped: lines sent must add up to the capture; a shop may send the amount alone (docs/payment-methods.md).
    if (methodOf(row.method)?.orderLinesRequired && request.orderLines !== undefined) {
      const errors = orderLinesAddingUp(request.orderLines as Record<string, unknown>[], amountMinor, findCurrency(row.currency)!);
      if (errors.length > 0) throw new Problem('validationFailed', { errors });
    }
    return { authorisation, amountMinor, request };
  },
  reserve: async (tx, plan, { ports, now }) => {
    const { authorisation, amountMinor, request } = plan;
    const { row } = authorisation;
    await claimAuthorisation(tx, authorisation, 'capture', now);
    const captureRow = followUpRow(row, { type: 'sale', amountMinor, orderLines: request.orderLines }, { secrets: ports.links.secrets, now });
    await insertTransaction(tx, captureRow, 'created');
    const claim = await recordClaim(
      tx,
      {
        action: 'capture',
        reference: captureRow.reference,
        paymentReference: row.reference,
        acquirerReference: authorisation.acquirerReference!,
        amountMinor,
        currency: row.currency,
      },
      { now, leaseMs: ports.settings.acquirerRecoveryAfterMs },
    );
    return { ...plan, claim };
  },
  ...claimedStages<Plan>('capture'),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
