/**
 * Reverse an authorisation (`POST {base_url}/reversal`, docs/api.md#existing-clients): `{reference}` releases
 * the whole held amount of an authorisation not captured yet. Before the acquirer is asked, the
 * reversal claims the authorisation (claims.ts): a capture or a second reversal meanwhile is
 * refused without reaching the acquirer, and the acquirer call carries a key of this reversal,
 * so a retry never reverses twice.
 */
import type { AcquirerClaimRow } from '../../store/schema.ts';
import { authorised, claimAuthorisation, completable, loadAuthorisation, type Authorisation } from '../follow-ups/authorisation.ts';
import { claimedStages, recordClaim } from '../follow-ups/claims.ts';
import { serializePayment } from '../serialize.ts';
import { parseReference } from '../requests/fields.ts';
import { merchantOperation } from '../runner/operation.ts';

interface Plan {
  authorisation: Authorisation;
  /** Set by the reservation; a reversal's claim is named by its authorisation. */
  claim?: AcquirerClaimRow;
}

export const reversal = merchantOperation({
  name: 'reversal',
  // The body the official client sends (`ReversalRequest.php`).
  parse: (body: Record<string, unknown>) => ({ reference: parseReference(body) }),
  load: (input, { ports, caller }) => loadAuthorisation(ports.store.read, caller, input.reference),
  decide: (found, input): Plan => ({ authorisation: completable(authorised(found, input.reference)) }),
  reserve: async (tx, plan, { ports, now }) => {
    const { row, acquirerReference } = plan.authorisation;
    await claimAuthorisation(tx, plan.authorisation, 'reversal', now);
    const claim = await recordClaim(
      tx,
      {
        action: 'reversal',
        reference: row.reference,
        paymentReference: row.reference,
        acquirerReference: acquirerReference!,
        amountMinor: row.amount_minor,
        currency: row.currency,
        // One claim of an authorisation at a time (its compare-and-set): its time names it apart.
        attempt: now.toString(36),
      },
      { now, leaseMs: ports.settings.acquirerRecoveryAfterMs },
    );
    return { ...plan, claim };
  },
  ...claimedStages<Plan>('reversal'),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
