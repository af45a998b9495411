/**
 * The outcome a tester picks on a method's simulated page (docs/payment-methods.md "Test mode"):
 * paid, failed, cancelled, expired, or still open (nothing changes: the customer left without
 * finishing, or a bank transfer not yet arrived). The payment's one state change goes through
 * the same compare-and-set as a real acquirer's answer, with what the simulated bank tells of
 * the payer; of two outcomes at once the first wins and the other changes nothing. Test mode
 * only: a live payment is never completed here.
 */
import { findPaymentPage } from '../../store/payment-pages.ts';
import { findTransaction, ownerOf } from '../../store/transactions.ts';
import { simulatedPayer, simulatedOutcomes, type SimulatedOutcome } from '../../acquirer/simulated-methods.ts';
import { methods } from '../../ground/payment-method.ts';
import { recordAcquirerOutcome } from '../follow-ups/authorisation.ts';
import { customerOperation } from '../runner/operation.ts';
import { methodPaidElsewhere } from './send-to-method.ts';

export interface SimulatedChoice {
  outcome: string | undefined;
  /** The bank picked on a bank-choice page (a BIC). */
  bank: string | undefined;
}

export const completeSimulatedMethod = customerOperation({
  name: 'completeSimulatedMethod',
  parse: (choice: SimulatedChoice) => choice,
  load: async (_choice, { ports, caller }) => ({
    page: await findPaymentPage(ports.store.read, caller.row.reference),
    simulated: await ports.acquirers.simulated(ownerOf(caller.row)),
  }),
  decide: ({ page, simulated }, choice, { caller }) => {
    const method = methodPaidElsewhere(caller.row, page);
    const outcome = simulatedOutcomes.find((known) => known.name === choice.outcome);
    // Only a payment the simulator took: one a real acquirer's test account took is decided there.
    const applies = simulated && method !== undefined && outcome !== undefined && outcome.to !== undefined;
    return applies ? { method, outcome: outcome as Required<SimulatedOutcome>, bank: choice.bank, acquirerReference: page?.acquirer_reference ?? undefined } : undefined;
  },
  commit: async (tx, plan, { caller, now }) => {
    const { reference } = caller.row;
    if (plan) {
      const { method, outcome, bank } = plan;
      const change = { reference, from: 'pending' as const, to: outcome.to, failureCode: outcome.failureCode ?? null, cause: 'simulator_page' as const, at: now };
      await recordAcquirerOutcome(tx, change, plan.acquirerReference, outcome.to === 'success' ? simulatedPayer(methods[method].simulator, bank) : undefined);
    }
    return (await findTransaction(tx, reference))!;
  },
  answer: (row) => row,
});
