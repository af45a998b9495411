/**
 * Accept a dispute (`POST {base_url}/dispute/accept`, `{reference}` of its `chargeback` transaction,
 * docs/disputes.md "Accepting and defending"): the merchant lets the chargeback stand. The
 * dispute's acquirer is asked first (Adyen's `/acceptDispute`; the test helper's disputes need
 * no acquirer); once it agrees, the dispute moves to `accepted` through the same record as an
 * acquirer's word (disputes.ts), with its webhook. Refused by the acquirer: 422, nothing changed; no
 * answer: 503, nothing recorded.
 */
import { Problem } from '../../ground/problem.ts';
import { disputeOpenTo, disputeServiceOf, loadDispute, recordDisputeWord, unlessRefusedDispute, type OwnDispute } from '../follow-ups/disputes.ts';
import { serializePayment } from '../serialize.ts';
import { parseReference } from '../requests/fields.ts';
import { merchantOperation } from '../runner/operation.ts';

export const acceptDispute = merchantOperation({
  name: 'acceptDispute',
  parse: (body: Record<string, unknown>) => ({ reference: parseReference(body) }),
  load: (input, { ports, caller }) => loadDispute(ports.store.read, caller, input.reference),
  decide: (found, input) => disputeOpenTo(found, input.reference, 'accepted'),
  act: async (found, { ports }): Promise<OwnDispute> => {
    const service = await disputeServiceOf(ports.acquirers, found);
    unlessRefusedDispute(await service.accept(found.dispute.acquirer_reference), 'accept');
    return found;
  },
  commit: async (tx, { row, dispute, payment }, { ports, now }) => {
    const word = {
      connector: dispute.connector,
      acquirerReference: dispute.acquirer_reference,
      stage: 'accepted' as const,
      amountMinor: row.amount_minor,
      currency: row.currency,
      cause: 'merchant_accepted' as const,
      detail: 'accepted by the merchant',
    };
    const outcome = await recordDisputeWord(tx, payment, word, { dialect: ports.store.dialect, secrets: ports.links.secrets, now });
    // The acquirer's word moved it meanwhile (a reversal, the end of a pre-arbitration): what it says stands.
    if (outcome.kind !== 'advanced') throw new Problem('conflict', `Dispute ${row.reference} changed meanwhile; read it.`);
    return outcome.row;
  },
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
