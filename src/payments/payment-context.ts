/** A payment as its customer-facing operations see it: the stored row and its merchant (pages, capability addresses). */
import type { TransactionRow } from '../store/schema.ts';
import type { PaymentMerchant } from '../merchants/merchants.ts';

export interface PaymentContext {
  row: TransactionRow;
  merchant: PaymentMerchant;
}
