/** The payment state machine as data (docs/decisions.md#states). Final states never change. */
export const statuses = ['pending', 'success', 'failed', 'manualintervention'] as const;
export type Status = (typeof statuses)[number];

export const transitions = {
  pending: ['success', 'failed', 'manualintervention'],
  manualintervention: ['success', 'failed'],
  success: [],
  failed: [],
} as const satisfies Record<Status, readonly Status[]>;

export const failureCodes = [
  'expired',
  'cancelled',
  'unsufficient_balance',
  'fraud_detected',
  'rejected',
  'card_refused',
  'insufficient_funds',
  'processing_error',
] as const;
export type FailureCode = (typeof failureCodes)[number];

export function canTransition(from: Status, to: Status): boolean {
  return (transitions[from] as readonly Status[]).includes(to);
}

export const isFinal = (status: Status) => transitions[status].length === 0;
