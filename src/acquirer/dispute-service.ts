/**
 * What a merchant asks an acquirer about a dispute (docs/disputes.md "Accepting and defending"):
 * accept it, or defend it with one of the reasons the acquirer finds applicable. Each connector
 * that can is one adapter (Adyen's: adyen-disputes.ts); the test helper's disputes have the
 * simulator's, which does what it is asked. select.ts finds the one a dispute's connector names.
 */

/** The acquirer's answer: done, refused (its words), or none that can be trusted (a timeout, a 5xx). */
export type DisputeAnswer = { outcome: 'done' } | { outcome: 'refused'; reason: string } | { outcome: 'unknown'; reason: string };

/** The defense reasons the acquirer would take for a dispute, or why it gave none. */
export type DefenseReasons = { outcome: 'done'; reasons: string[] } | { outcome: 'refused'; reason: string } | { outcome: 'unknown'; reason: string };

export interface DisputeService {
  /** Accepts the dispute the acquirer names `disputeReference`: the chargeback stands. */
  accept(disputeReference: string): Promise<DisputeAnswer>;
  defenseReasons(disputeReference: string): Promise<DefenseReasons>;
  /** Defends it with one of its `defenseReasons` (the material it needs supplied at the acquirer). */
  defend(disputeReference: string, defenseReasonCode: string): Promise<DisputeAnswer>;
}

/** The connector of the test helper's disputes (payments/operations/raise-test-dispute.ts). */
export const SIMULATED_DISPUTES = 'simulator';

/** The reason the simulator offers: what a tester defends a test dispute with. */
export const SIMULATED_DEFENSE_REASON = 'SupplyDefenseMaterial';

/** The test helper's disputes: accepted and defended as asked; their later stages are the tester's (`POST /test/dispute`). */
export const simulatedDisputes: DisputeService = {
  accept: async () => ({ outcome: 'done' }),
  defenseReasons: async () => ({ outcome: 'done', reasons: [SIMULATED_DEFENSE_REASON] }),
  defend: async () => ({ outcome: 'done' }),
};
