/**
 * Reverse an authorisation (`POST {base_url}/reversal`, DESIGN §2): `{reference}` releases
 * the whole held amount of an authorisation not captured yet. The acquirer call carries
 * a key of this operation, so a retried request never reverses twice.
 */
import { authorised, loadAuthorisation, recordCompletion, stillAuthorised } from '../authorisation.ts';
import { serializePayment } from '../serialize.ts';
import { parseReference } from './fields.ts';
import { merchantOperation } from './operation.ts';
import { ownerOf } from '../../store/transactions.ts';

export const reversal = merchantOperation({
  name: 'reversal',
  // The body the official client sends (`ReversalRequest.php`).
  parse: (body: Record<string, unknown>) => ({ reference: parseReference(body) }),
  load: (input, { ports, caller }) => loadAuthorisation(ports.store.read, caller, input.reference),
  decide: (found, input) => authorised(found, input.reference),
  act: async (authorisation, { ports }) => {
    const { row, acquirerReference } = authorisation;
    const request = { reference: row.reference, acquirerReference: acquirerReference!, amountMinor: row.amount_minor, currency: row.currency };
    const result = stillAuthorised(authorisation) ? await (await ports.acquirers.for(ownerOf(row))).reversal(request, `${row.reference}:reversal`) : undefined;
    return { reference: row.reference, kind: 'reversal', to: 'reversed', result, extra: {} } as const;
  },
  commit: (tx, completion, { now }) => recordCompletion(tx, completion, now),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
