/**
 * The acquirer's word checked against the payment it is applied to (docs/acquirers.md "The
 * acquirer's word checked"): an answer to `/payments/details` carries whatever outcome the
 * `redirectResult` in the address names — another payment's, if a shopper pasted it there — and a
 * notification names its payment by Kassa's reference only. A word is applied only when what it
 * says it is about (Kassa's reference, the amount and currency, and the acquirer's reference where
 * Kassa recorded one) is the payment as Kassa knows it. Pure.
 */
import type { TransactionRow } from '../store/schema.ts';
import type { SaidAbout } from '../acquirer/connector.ts';
import { amountNumber, findCurrency } from '../ground/amount.ts';

/**
 * Why the word cannot be about this payment, in words for its timeline and the log; undefined
 * when it is. `acquirerReference`: the payment's as Kassa recorded it (null: none recorded yet,
 * nothing to compare).
 */
export function mismatchOf(
  row: Pick<TransactionRow, 'reference' | 'amount_minor' | 'currency'>,
  acquirerReference: string | null | undefined,
  said: SaidAbout,
): string | undefined {
  const differences: string[] = [];
  if (said.reference !== row.reference) differences.push(`it names ${said.reference === undefined ? 'no payment' : `payment ${said.reference}`}`);
  if (said.currency?.toLowerCase() !== row.currency || said.amountMinor !== row.amount_minor) differences.push(`its amount is ${amountOf(said)}`);
  if (acquirerReference && said.acquirerReference !== undefined && said.acquirerReference !== acquirerReference) {
    differences.push(`its acquirer reference is ${said.acquirerReference}, not ${acquirerReference}`);
  }
  if (differences.length === 0) return undefined;
  const expected = `${amountNumber(row.amount_minor, findCurrency(row.currency)!)} ${row.currency.toUpperCase()}`;
  return `The acquirer's word is not about ${row.reference} (${expected}): ${differences.join('; ')}. Nothing was changed.`.slice(0, 500);
}

function amountOf({ amountMinor, currency }: SaidAbout): string {
  if (currency === undefined) return 'not given';
  const known = findCurrency(currency.toLowerCase());
  if (amountMinor === undefined || !known) return `not expressible in ${currency.toUpperCase()}`;
  return `${amountNumber(amountMinor, known)} ${currency.toUpperCase()}`;
}
