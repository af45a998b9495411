/**
 * A capture, reversal or refund whose request never recorded the acquirer's answer (docs/acquirers.md
 * "Claims and leases"): the process died between its claim and its commit, or the acquirer did not
 * answer in time. Run by the recovery job (acquirer-recovery.ts) once the claim's lease has run out,
 * and for money paid late (late-payment.ts) at once, by the notification that told of it:
 *
 *   reserve  take the claim (compare-and-set on when it was due: one worker of many; due again after
 *            ACQUIRER_RECOVERY_INTERVAL in case this one dies too); a capture or refund the acquirer's
 *            notification settled meanwhile ends its claim as settled, with nothing asked
 *   act      ask the acquirer again: the claim's own idempotency key and amount, so it never does a
 *            second thing (Adyen answers the first call's result; `received` waits for the notification)
 *   commit   answered → the claim ended as a request would have ended it (claims.ts `endClaim`); no
 *            answer again → a capture or refund `manualintervention` for an operator, a reversal or a
 *            late payment's cancel-or-refund due again until it was asked RECOVERY_ASKS times, then
 *            left to an operator
 */
import type { AcquirerClaimRow, TransactionRow } from '../../store/schema.ts';
import type { ModificationResult } from '../../acquirer/connector.ts';
import { findAcquirerClaim, takeDueAcquirerClaim } from '../../store/acquirer-claims.ts';
import { findTransaction } from '../../store/transactions.ts';
import { askAcquirer, endClaim, endSettledClaim, leaveClaimToOperator, ownsTransaction } from '../follow-ups/claims.ts';
import { stop, systemOperation } from '../runner/operation.ts';

/** A claim as the recovery job found it due. */
export interface DueClaim {
  reference: string;
  /** When it was due, as read: the take's compare-and-set. */
  dueAt: number;
}

interface Plan {
  claim: AcquirerClaimRow;
  /** The claim's own transaction: its capture or refund, a reversal's authorisation. */
  row: TransactionRow;
}

export const finishAcquirerClaim = systemOperation({
  name: 'finishAcquirerClaim',
  parse: (due: DueClaim) => due,
  load: async (due, { ports }) => {
    const claim = await findAcquirerClaim(ports.store.read, due.reference);
    return { claim, row: claim && (await findTransaction(ports.store.read, claim.reference)) };
  },
  decide: ({ claim, row }, due): Plan | undefined => (claim && row && claim.due_at === due.dueAt ? { claim, row } : undefined),
  reserve: async (tx, plan, { ports, now }) => {
    if (!plan) return stop(undefined);
    const { claim } = plan;
    if (!(await takeDueAcquirerClaim(tx, { reference: claim.reference, dueAt: claim.due_at, retryAt: now + ports.settings.acquirerRecoveryIntervalMs }))) {
      return stop(undefined);
    }
    const row = (await findTransaction(tx, claim.reference))!;
    if (ownsTransaction(claim) && row.status !== 'pending') return stop(await endSettledClaim(tx, claim, row, now).then(() => row));
    return { claim: { ...claim, asks: claim.asks + 1 }, row };
  },
  // Reached only with a taken claim (reserve stops otherwise).
  act: async (taken, { ports }) => {
    const { claim, row } = taken!;
    return { claim, result: await askAcquirer(ports, claim, row) };
  },
  commit: async (tx, { claim, result }: { claim: AcquirerClaimRow; result: ModificationResult }, { ports, now }) => {
    if (result.outcome === 'unknown') await leaveClaimToOperator(tx, claim, now);
    else await endClaim(tx, ports.store.dialect, claim, result, now);
    return findTransaction(tx, claim.reference);
  },
  answer: (row) => row,
});
