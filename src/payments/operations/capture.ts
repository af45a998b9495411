/**
 * Capture an authorisation (`POST {base_url}/capture`, DESIGN §2): `{reference, amount?,
 * orderLines?}`; omit amount to capture all of it, or capture less (the rest is released).
 * One capture per authorisation; it is a transaction of its own, which the answer is and
 * which the merchant refunds (authorisation.ts). The acquirer call carries a key of this
 * operation, so a retried request never captures twice.
 */
import { Problem } from '../../ground/problem.ts';
import { findCurrency, parseAmount } from '../../ground/amount.ts';
import { authorised, loadAuthorisation, recordCapture, stillAuthorised } from '../authorisation.ts';
import { compileTable } from '../common-fields.ts';
import { followUpFields, parseFollowUp } from '../follow-up.ts';
import { serializePayment } from '../serialize.ts';
import { requestRules } from './fields.ts';
import { merchantOperation } from './operation.ts';
import { ownerOf } from '../../store/transactions.ts';
import { newTransactionReference } from '../../lib/tokens.ts';

/** The body the official client sends (`CaptureRequest.php`); the amount is checked against the authorisation's currency once it is read (decide). */
export const captureTable = compileTable(followUpFields);

export const capture = merchantOperation({
  name: 'capture',
  parse: (body: Record<string, unknown>, { caller, ports }) => parseFollowUp(captureTable, body, requestRules(caller.mode, ports.config)),
  load: (request, { ports, caller }) => loadAuthorisation(ports.store.read, caller, request.reference),
  decide: (found, request) => {
    const authorisation = authorised(found, request.reference);
    const { row } = authorisation;
    if (request.amount === undefined) return { authorisation, amountMinor: row.amount_minor, request };
    const parsed = parseAmount(request.amount, findCurrency(row.currency)!);
    if (!parsed.ok) throw Problem.validation([{ field: '/amount', code: parsed.code, message: parsed.message }]);
    if (parsed.minor <= 0) throw Problem.validation([{ field: '/amount', code: 'range', message: 'must be more than 0' }]);
    if (parsed.minor > row.amount_minor) throw Problem.validation([{ field: '/amount', code: 'range', message: 'must not be more than the authorised amount' }]);
    return { authorisation, amountMinor: parsed.minor, request };
  },
  act: async ({ authorisation, amountMinor, request }, { ports }) => {
    const { row, acquirerReference } = authorisation;
    // The capture's own reference, which the acquirer's notification of it names.
    const reference = newTransactionReference();
    const followUp = { reference, acquirerReference: acquirerReference!, amountMinor, currency: row.currency };
    const result = stillAuthorised(authorisation) ? await (await ports.acquirers.for(ownerOf(row))).capture(followUp, `${row.reference}:capture`) : undefined;
    return { reference, authorisation: row, amountMinor, orderLines: request.orderLines, result };
  },
  commit: (tx, captured, { ports, now }) => recordCapture(tx, captured, { secrets: ports.links.secrets, now }),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
