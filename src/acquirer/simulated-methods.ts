/**
 * The test-mode stand-ins for the steps customers take elsewhere (docs/payment-methods.md "Test
 * mode"): the outcomes a tester can pick on a method's simulated page, the banks the simulated
 * iDEAL page offers, and what the simulated bank tells of the payer once paid. Pure data: the
 * pages (pages/) show it and an operation (payments/operations/complete-simulated-method.ts)
 * applies the pick.
 */
import type { FailureCode } from '../ground/states.ts';
import type { SimulatorPage } from '../ground/payment-method.ts';

export interface SimulatedOutcome {
  /** The form's value, and the key of its label on the page. */
  name: 'paid' | 'failed' | 'cancelled' | 'expired' | 'open';
  /** The payment's state after it; absent: it stays pending. */
  to?: 'success' | 'failed';
  failureCode?: FailureCode;
}

export const simulatedOutcomes: readonly SimulatedOutcome[] = [
  { name: 'paid', to: 'success' },
  { name: 'failed', to: 'failed', failureCode: 'rejected' },
  { name: 'cancelled', to: 'failed', failureCode: 'cancelled' },
  { name: 'expired', to: 'failed', failureCode: 'expired' },
  { name: 'open' },
];

/** The banks of the simulated iDEAL page: real Dutch banks' names and BICs, none of them asked. */
export const simulatedBanks: readonly { bic: string; name: string }[] = [
  { bic: 'ABNANL2A', name: 'ABN AMRO' },
  { bic: 'ASNBNL21', name: 'ASN Bank' },
  { bic: 'BUNQNL2A', name: 'bunq' },
  { bic: 'INGBNL2A', name: 'ING' },
  { bic: 'KNABNL2H', name: 'Knab' },
  { bic: 'RABONL2U', name: 'Rabobank' },
  { bic: 'RBRBNL21', name: 'RegioBank' },
  { bic: 'REVOLT21', name: 'Revolut' },
  { bic: 'SNSBNL2A', name: 'SNS' },
  { bic: 'TRIONL2U', name: 'Triodos Bank' },
];

/** The account the simulated bank-transfer page asks the customer to pay into (a valid test IBAN of no real account). */
export const simulatedTransferAccount = { iban: 'NL44RABO0123456789', bic: 'RABONL2U' } as const;

/** The simulated pages of methods paid from a bank account: the bank tells who paid. */
const paidFromAccount: ReadonlySet<SimulatorPage> = new Set(['bank-choice', 'transfer-instructions']);

/**
 * What the simulated bank tells of the payer of a paid payment, as the payment object's details
 * show it (docs/payment-methods.md "What a payment shows"): the account holder's name, the
 * masked IBAN and the bank, for a method paid from a bank account; nothing for the others.
 */
export function simulatedPayer(page: SimulatorPage, bank: string | undefined): Record<string, string> | undefined {
  if (!paidFromAccount.has(page)) return undefined;
  const bic = simulatedBanks.find((known) => known.bic === bank)?.bic ?? 'INGBNL2A';
  return { consumerName: 'T. Tester', consumerIban: 'NL91 **** **** **** 4300', consumerBic: bic };
}
