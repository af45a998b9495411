/**
 * Reverse an authorisation (`POST {base_url}/reversal`, DESIGN §2): `{reference}` releases
 * the whole held amount of an authorisation not captured yet.
 */
import type { Caller } from '../merchants/merchants.ts';
import type { Ports } from './ports.ts';
import { callAcquirer, loadAuthorisation, type AuthorisationOperation } from './authorisation.ts';
import { referenceOf, type PreparedCompletion } from './capture.ts';

export const reversalOperation: AuthorisationOperation = {
  kind: 'reversal',
  to: 'reversed',
  call: (cp, row, acquirerReference, amountMinor) =>
    cp.acquirers.forMode(row.mode).reversal({ reference: row.reference, acquirerReference, amountMinor, currency: row.currency }, `${row.reference}:reversal`),
};

export async function prepareReversal(cp: Ports, caller: Caller, body: Record<string, unknown>): Promise<PreparedCompletion> {
  const reference = referenceOf(body);
  const row = await loadAuthorisation(cp, caller, reference);
  const result = await callAcquirer(cp, reversalOperation, row, row.amount_minor);
  return { reference, amountMinor: row.amount_minor, result, extra: {} };
}
