/**
 * Capture an authorisation (`POST {base_url}/capture`, DESIGN §2): `{reference, amount?}`;
 * omit amount to capture all of it, or capture less (the rest is released). One capture
 * per authorisation.
 */
import { Problem, type FieldError } from '../ground/problem.ts';
import type { Caller } from '../merchants/merchants.ts';
import { amountNumber, findCurrency, parseAmount } from '../ground/amount.ts';
import type { Ports } from './ports.ts';
import { callAcquirer, loadAuthorisation, type AuthorisationOperation } from './authorisation.ts';

export const captureOperation: AuthorisationOperation = {
  kind: 'capture',
  to: 'captured',
  call: (cp, row, acquirerReference, amountMinor) =>
    cp.acquirers.forMode(row.mode).capture({ reference: row.reference, acquirerReference, amountMinor, currency: row.currency }, `${row.reference}:capture`),
};

export interface PreparedCompletion {
  reference: string;
  amountMinor: number;
  /** Merged into details when recorded. */
  extra: Record<string, unknown>;
  result: Awaited<ReturnType<typeof callAcquirer>>;
}

export function referenceOf(body: Record<string, unknown>): string {
  const errors: FieldError[] = [];
  if (typeof body.reference !== 'string' || body.reference === '') errors.push({ field: '/reference', code: 'required', message: 'is required' });
  else if (body.reference.length > 64) errors.push({ field: '/reference', code: 'max_length', message: 'must be at most 64 characters' });
  if (errors.length > 0) throw Problem.validation(errors);
  return body.reference as string;
}

/** Checks, then calls the acquirer: everything of a capture that is not the database write. */
export async function prepareCapture(cp: Ports, caller: Caller, body: Record<string, unknown>): Promise<PreparedCompletion> {
  const reference = referenceOf(body);
  const row = await loadAuthorisation(cp, caller, reference);
  const currency = findCurrency(row.currency)!;
  let amountMinor = row.amount_minor;
  if (body.amount !== undefined && body.amount !== null && body.amount !== '') {
    const parsed = parseAmount(body.amount, currency);
    if (!parsed.ok) throw Problem.validation([{ field: '/amount', code: parsed.code, message: parsed.message }]);
    if (parsed.minor > row.amount_minor) {
      throw Problem.validation([{ field: '/amount', code: 'range', message: 'must not be more than the authorised amount' }]);
    }
    amountMinor = parsed.minor;
  }
  const result = await callAcquirer(cp, captureOperation, row, amountMinor);
  return { reference, amountMinor, result, extra: { capturedAmount: amountNumber(amountMinor, currency) } };
}
