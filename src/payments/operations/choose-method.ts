/**
 * The customer's choice of method on a landing page (`landingpage`, docs/api.md#create-a-payment): kept on the
 * payment's page row, so payUrl then shows that method's page, and in the payment's
 * `details.paidWith`, so the merchant reading or told about the payment knows which method it is
 * paid with (its `method` stays `landingpage`: docs/api.md "The payment object"). A choice the page
 * did not offer, or on a payment no longer pending, changes nothing.
 */
import type { TransactionRow } from '../../store/schema.ts';
import { lockTransaction, ownerOf, setTransactionDetails } from '../../store/transactions.ts';
import { ensurePaymentPage, setPageFields } from '../../store/payment-pages.ts';
import { randomBase62 } from '../../lib/tokens.ts';
import type { MerchantSettings } from '../../merchants/merchants.ts';
import { isOffered, methods, type MethodSpec, type OfferedMethod } from '../../ground/payment-method.ts';
import { storedRequestOf } from '../serialize.ts';
import { takes } from '../../acquirer/connector.ts';
import { customerOperation } from '../runner/operation.ts';
import { cardsTaken, type Ports } from '../ports.ts';

/**
 * The methods a landing page offers, in the merchant's order: those it enabled that Kassa can
 * complete here now, as the methods table says when (ground/payment-method.ts `landing`): a
 * method its acquirer of the payment's mode takes in the payment's currency (a card, where the
 * cardholder can be authenticated too) and that can make this payment (a sale; Klarna, which
 * only authorises, never is one), or one offered in test mode only.
 */
export async function landingMethods(ports: Ports, row: TransactionRow, settings: MerchantSettings): Promise<OfferedMethod[]> {
  if (settings.cardBrands.length === 0) return [];
  const acquirer = await ports.acquirers.find(ownerOf(row));
  const cardAvailable = await cardsTaken(ports, row);
  const ordered = storedRequestOf(row).orderLines !== undefined;
  return settings.methods.filter(isOffered).filter((method) => {
    const spec: MethodSpec = methods[method];
    if (spec.landing === 'test-mode') return row.mode === 'test';
    if (!acquirer || !takes(acquirer.serves, method, row.currency)) return false;
    // The payment must be one the method can make: its type (a landing page's is a sale), its currency, its order lines.
    if (!(spec.transactionTypes as readonly string[]).includes(row.type) || (spec.currencies !== 'all' && !spec.currencies.includes(row.currency))) return false;
    if (spec.orderLinesRequired && !ordered) return false;
    return spec.instrument !== 'card' || cardAvailable;
  });
}

export const chooseMethod = customerOperation({
  name: 'chooseMethod',
  parse: (body: { method: string | undefined }) => body.method,
  load: (_method, { ports, caller }) => landingMethods(ports, caller.row, caller.merchant.settings),
  decide: (offered: readonly string[], method, { caller }) => (caller.row.status === 'pending' && method !== undefined && offered.includes(method) ? method : undefined),
  commit: async (tx, method, { ports, caller, now }) => {
    if (method === undefined) return;
    await ensurePaymentPage(tx, caller.row.reference, randomBase62(32), now);
    await setPageFields(tx, caller.row.reference, { chosen_method: method });
    // Read and written under the row's lock, so no other change of its details in between is lost; a payment that ended meanwhile keeps its details.
    const row = (await lockTransaction(tx, ports.store.dialect, caller.row.reference))!;
    if (row.status !== 'pending') return;
    await setTransactionDetails(tx, row.reference, JSON.stringify({ ...(JSON.parse(row.details) as Record<string, unknown>), paidWith: method }));
  },
  answer: () => undefined,
});
