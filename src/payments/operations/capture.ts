/**
 * Capture an authorisation (`POST {base_url}/capture`, DESIGN §2): `{reference, amount?}`;
 * omit amount to capture all of it, or capture less (the rest is released). One capture
 * per authorisation. The acquirer call carries a key of this operation, so a retried
 * request never captures twice.
 */
import { Problem } from '../../ground/problem.ts';
import { amountNumber, findCurrency, parseAmount } from '../../ground/amount.ts';
import { authorised, loadAuthorisation, recordCompletion, stillAuthorised } from '../authorisation.ts';
import { serializePayment } from '../serialize.ts';
import { amountSchema, compileTable } from '../common-fields.ts';
import { parseFields, referenceField } from './fields.ts';
import { merchantOperation } from './operation.ts';

/** The amount is checked against the authorisation's currency once it is read (decide). */
export const captureTable = compileTable({ reference: referenceField, amount: { schema: amountSchema } });

export const capture = merchantOperation({
  name: 'capture',
  parse: (body: Record<string, unknown>) => parseFields(captureTable, body) as { reference: string; amount?: unknown },
  load: (input, { ports, caller }) => loadAuthorisation(ports.store.read, caller, input.reference),
  decide: (found, input) => {
    const authorisation = authorised(found, input.reference);
    const { row } = authorisation;
    const currency = findCurrency(row.currency)!;
    if (input.amount === undefined || input.amount === null || input.amount === '') return { authorisation, amountMinor: row.amount_minor };
    const parsed = parseAmount(input.amount, currency);
    if (!parsed.ok) throw Problem.validation([{ field: '/amount', code: parsed.code, message: parsed.message }]);
    if (parsed.minor > row.amount_minor) throw Problem.validation([{ field: '/amount', code: 'range', message: 'must not be more than the authorised amount' }]);
    return { authorisation, amountMinor: parsed.minor };
  },
  act: async (plan, { ports }) => {
    const { row, acquirerReference } = plan.authorisation;
    const request = { reference: row.reference, acquirerReference: acquirerReference!, amountMinor: plan.amountMinor, currency: row.currency };
    const result = stillAuthorised(plan.authorisation) ? await ports.acquirers.forMode(row.mode).capture(request, `${row.reference}:capture`) : undefined;
    const currency = findCurrency(row.currency)!;
    return { reference: row.reference, kind: 'capture', to: 'captured', result, extra: { capturedAmount: amountNumber(plan.amountMinor, currency) } } as const;
  },
  commit: (tx, completion, { now }) => recordCompletion(tx, completion, now),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
