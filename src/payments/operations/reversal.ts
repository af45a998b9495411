/**
 * Reverse an authorisation (`POST {base_url}/reversal`, DESIGN §2): `{reference}` releases
 * the whole held amount of an authorisation not captured yet. The acquirer call carries
 * a key of this operation, so a retried request never reverses twice.
 */
import { authorised, loadAuthorisation, recordCompletion, stillAuthorised } from '../authorisation.ts';
import { serializePayment } from '../serialize.ts';
import { parseReference } from './fields.ts';
import { merchantOperation } from './operation.ts';

export const reversal = merchantOperation({
  name: 'reversal',
  parse: (body: Record<string, unknown>) => ({ reference: parseReference(body) }),
  load: (input, { ports, caller }) => loadAuthorisation(ports.store.read, caller, input.reference),
  decide: (found, input) => authorised(found, input.reference),
  act: async (authorisation, { ports }) => {
    const { row, acquirerReference } = authorisation;
    const request = { reference: row.reference, acquirerReference: acquirerReference!, amountMinor: row.amount_minor, currency: row.currency };
    const result = stillAuthorised(authorisation) ? await ports.acquirers.forMode(row.mode).reversal(request, `${row.reference}:reversal`) : undefined;
    return { reference: row.reference, kind: 'reversal', to: 'reversed', result, extra: {} } as const;
  },
  commit: (tx, completion, { now }) => recordCompletion(tx, completion, now),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
