/**
 * An authorisation whose outcome Kassa never learned (docs/acquirers.md "Unknown outcomes";
 * docs/decisions.md#states): no answer in time (`manualintervention`), or the process died between the
 * acquirer's answer and Kassa's commit (still `pending`, its write-ahead record in flight). Run by
 * the recovery job (acquirer-recovery.ts) once ACQUIRER_RECOVERY_AFTER has passed with no
 * notification:
 *
 *   reserve  claim the record (compare-and-set: one worker of many, and only once no request
 *            holds the payment's lease); a payment still `pending` becomes `manualintervention`
 *            (merchant webhook); the technical cancel is recorded as sent, so from here on the
 *            acquirer's AUTHORISATION notification changes nothing — or, with a connector that
 *            cannot cancel by Kassa's reference (the simulator), the payment is left to an operator
 *   act      the acquirer's technical cancel (Adyen `/technicalCancel`), keyed by the reference
 *   commit   taken → `failed`/`processing_error`; refused → the operator's; no answer → due again
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { ModificationResult } from '../../acquirer/connector.ts';
import { findTransaction, ownerOf } from '../../store/transactions.ts';
import { claimAuthorisationRecovery, endAuthorisationInFlight, leaveAuthorisationToOperator } from '../../store/payment-pages.ts';
import { transition } from '../transition.ts';
import { stop, systemOperation } from '../runner/operation.ts';

/** An authorisation in flight as the recovery job found it due. */
export interface DueRecovery {
  reference: string;
  /** When it was due, as read: the claim's compare-and-set. */
  dueAt: number;
}

interface Plan extends DueRecovery {
  row: TransactionRow;
  /** Whether the payment's acquirer can cancel an authorisation by Kassa's reference. */
  cancels: boolean;
}

/** Adyen's idempotency key of the technical cancel: one per payment, so a retry never cancels twice. */
export const technicalCancelKey = (reference: string) => `${reference}:technical-cancel`;

export const cancelUnknownAuthorisation = systemOperation({
  name: 'cancelUnknownAuthorisation',
  parse: (due: DueRecovery) => due,
  load: async (due, { ports }) => {
    const row = await findTransaction(ports.store.read, due.reference);
    const acquirer = row && (await ports.acquirers.find(ownerOf(row)));
    return { row, cancels: typeof acquirer?.technicalCancel === 'function' };
  },
  decide: ({ row, cancels }, due): Plan | undefined => (row ? { ...due, row, cancels } : undefined),
  reserve: async (tx, plan, { ports, now }) => {
    if (!plan) return stop(undefined);
    const { reference, dueAt } = plan;
    const current = (await findTransaction(tx, reference))!;
    const open = current.status === 'pending' || current.status === 'manualintervention';
    const cancels = open && plan.cancels;
    const retryAt = cancels ? now + ports.settings.acquirerRecoveryIntervalMs : null;
    if (!(await claimAuthorisationRecovery(tx, reference, { dueAt, now, retryAt, technicalCancel: cancels }))) return stop(undefined);
    // Final already (an operator resolved it): nothing is left to learn.
    if (!open) return stop(await endAuthorisationInFlight(tx, reference).then(() => current));
    if (current.status === 'pending') {
      await transition(tx, { reference, from: 'pending', to: 'manualintervention', cause: 'acquirer_outcome_unknown', at: now });
    }
    if (!cancels) return stop(await findTransaction(tx, reference));
    return { ...plan, row: current };
  },
  // Reached only with a claimed plan (reserve stops otherwise) and a connector that cancels.
  act: async (claimed, { ports }) => {
    const plan = claimed!;
    const acquirer = await ports.acquirers.for(ownerOf(plan.row));
    return { plan, result: await acquirer.technicalCancel!({ reference: plan.reference }, technicalCancelKey(plan.reference)) };
  },
  commit: async (tx, { plan, result }: { plan: Plan; result: ModificationResult }, { now }) => {
    const { reference } = plan;
    if (result.outcome === 'received' || result.outcome === 'done') {
      await transition(tx, { reference, from: 'manualintervention', to: 'failed', failureCode: 'processing_error', cause: 'acquirer_technical_cancel', at: now });
      await endAuthorisationInFlight(tx, reference);
    } else if (result.outcome === 'refused') {
      await leaveAuthorisationToOperator(tx, reference);
    }
    // No answer: the claim made it due again after ACQUIRER_RECOVERY_INTERVAL, with the same key.
    return findTransaction(tx, reference);
  },
  answer: (row) => row,
});
