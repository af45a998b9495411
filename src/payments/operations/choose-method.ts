/**
 * The customer's choice of method on a landing page (`landingpage`, docs/api.md#create-a-payment): kept on the
 * payment's page row, so payUrl then shows that method's page. A choice the page did not
 * offer, or on a payment no longer pending, changes nothing.
 */
import type { Mode } from '../../store/schema.ts';
import { ensurePaymentPage, setPageFields } from '../../store/payment-pages.ts';
import { randomBase62 } from '../../lib/tokens.ts';
import type { MerchantSettings } from '../../merchants/merchants.ts';
import { customerOperation } from './operation.ts';
import { cardsTaken } from '../ports.ts';

/** The methods a landing page offers: those the merchant enabled that Kassa can complete here. */
export function landingMethods(settings: MerchantSettings, mode: Mode, cardAvailable: boolean): string[] {
  if (settings.cardBrands.length === 0) return [];
  // The wallet only as the test sheet: live hosted wallet payments are not offered yet (docs/wallet.md).
  return settings.methods.filter((method) => (method === 'card' && cardAvailable) || (method === 'walletpay' && mode === 'test'));
}

export const chooseMethod = customerOperation({
  name: 'chooseMethod',
  parse: (body: { method: string | undefined }) => body.method,
  load: (_method, { ports, caller }) => cardsTaken(ports, caller.row),
  decide: (cardAvailable, method, { caller }) => {
    const { row, merchant } = caller;
    const offered = row.status === 'pending' && method !== undefined && landingMethods(merchant.settings, row.mode, cardAvailable).includes(method);
    return offered ? method : undefined;
  },
  commit: async (tx, method, { caller, now }) => {
    if (method === undefined) return;
    await ensurePaymentPage(tx, caller.row.reference, randomBase62(32), now);
    await setPageFields(tx, caller.row.reference, { chosen_method: method });
  },
  answer: () => undefined,
});
