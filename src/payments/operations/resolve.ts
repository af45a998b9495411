/**
 * Resolve a payment held for review (docs/decisions.md#states: `manualintervention` → `success` |
 * `failed`), once the operator learned the acquirer's real outcome: `kassa payment resolve`.
 * The same `transition()` as every other change, so the merchant gets the same webhook; a
 * capture or refund resolved changes what its parent shows with it (claims.ts `settleFollowUp`).
 * An authorisation whose reversal the acquirer never answered (`details.acquirerOutcomeUnknown`,
 * docs/acquirers.md "Claims and leases") is resolved the same way, its status staying `success`:
 * `success` the reversal was done (`reversed`), `failed` it was not (`authorised` again).
 */
import { Problem } from '../../ground/problem.ts';
import { failureCodes, type FailureCode } from '../../ground/states.ts';
import { findTransaction } from '../../store/transactions.ts';
import { transition } from '../transition.ts';
import { settleAuthorisationInFlight } from '../../store/payment-pages.ts';
import { settleFollowUp, settleReversalClaim } from '../follow-ups/claims.ts';
import { reversalHeldForOperator } from '../follow-ups/authorisation.ts';
import { systemOperation } from '../runner/operation.ts';

export interface Resolution {
  reference: string;
  outcome: 'success' | 'failed';
  failureCode?: FailureCode;
}

export const resolve = systemOperation({
  name: 'resolve',
  parse: (body: Resolution) => {
    if (body.outcome !== 'success' && body.outcome !== 'failed')
      throw new Problem('validationFailed', { errors: [{ field: '/outcome', code: 'enum', message: 'must be one of success, failed' }] });
    if (body.failureCode !== undefined && (body.outcome !== 'failed' || !failureCodes.includes(body.failureCode))) {
      throw new Problem('validationFailed', {
        errors: [{ field: '/failureCode', code: 'enum', message: `is only allowed with outcome failed, one of ${failureCodes.join(', ')}` }],
      });
    }
    return body;
  },
  load: (resolution, { ports }) => findTransaction(ports.store.read, resolution.reference),
  decide: (row, resolution) => {
    if (!row) throw new Problem('notFound', `No transaction with reference ${resolution.reference}.`);
    if (row.status !== 'manualintervention' && !reversalHeldForOperator(row)) {
      throw new Problem(
        'conflict',
        `Transaction ${row.reference} is ${row.status}; only a payment in manualintervention, or a reversal held for an operator, can be resolved.`,
      );
    }
    return resolution;
  },
  commit: async (tx, { reference, outcome, failureCode }, { ports, now }) => {
    const row = (await findTransaction(tx, reference))!;
    if (reversalHeldForOperator(row)) {
      if (!(await settleReversalClaim(tx, row, { done: outcome === 'success', cause: 'operator_resolved', at: now }))) {
        throw new Problem('conflict', `Transaction ${reference} changed at the same time; read it again.`);
      }
      return (await findTransaction(tx, reference))!;
    }
    if (row.parent_reference !== null) {
      // A capture or refund the acquirer never answered (claims.ts): its parent shows the outcome too.
      const settled = await settleFollowUp(tx, ports.store.dialect, row, { from: 'manualintervention', to: outcome, failureCode, cause: 'operator_resolved', at: now });
      if (settled.status === 'manualintervention') throw new Problem('conflict', `Transaction ${reference} changed at the same time; read it again.`);
      return settled;
    }
    if (!(await settleAuthorisationInFlight(tx, reference))) {
      throw new Problem('conflict', `Transaction ${reference} is being cancelled at the acquirer (technical cancel sent); it ends failed by itself.`);
    }
    const failure = outcome === 'failed' ? (failureCode ?? 'rejected') : null;
    if (!(await transition(tx, { reference, from: 'manualintervention', to: outcome, failureCode: failure, cause: 'operator_resolved', at: now }))) {
      throw new Problem('conflict', `Transaction ${reference} changed at the same time; read it again.`);
    }
    return (await findTransaction(tx, reference))!;
  },
  answer: (row) => row,
});
