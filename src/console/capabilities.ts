/**
 * Which console accounts see a payment's capability addresses (docs/console.md "Capability
 * addresses"). Whoever holds one acts without an API key — pays as the customer (`payUrl`), cancels
 * (`cancelUrl`), posts a wallet token (`cardDataUrl`) — outside the audit log; so each is shown
 * only to the accounts whose work needs it, least privilege as data: `payUrl` to the payment's own
 * merchant's accounts while the payment is pending (its support may send the customer back to the
 * page), the others to none (the console's Cancel button cancels, audited; a wallet token comes
 * from the merchant's server). A platform operator sees none.
 */
import type { Operator } from '../operators/accounts.ts';
import type { TransactionRow } from '../store/schema.ts';

type Viewed = Pick<TransactionRow, 'merchant_id' | 'status'>;

const capabilityAddresses = {
  payUrl: (operator: Operator, row: Viewed) => operator.merchantId === row.merchant_id && row.status === 'pending',
  cancelUrl: () => false,
  cardDataUrl: () => false,
} satisfies Record<string, (operator: Operator, row: Viewed) => boolean>;

/** The payment object as this account may see it: the capability addresses it has no need for left out. */
export function shownPayment(payment: Record<string, unknown>, operator: Operator, row: Viewed): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(payment).filter(([field]) => !(field in capabilityAddresses) || capabilityAddresses[field as keyof typeof capabilityAddresses](operator, row)),
  );
}
