/**
 * The test-mode scenario table (docs/decisions.md#test-scenarios) as data: with a test key, the cents of the
 * amount choose what the simulated Directory Server, ACS and acquirer do. Pure.
 */

/** What the simulated 3-D Secure side does (EMVCo transStatus where there is one). */
export type ThreeDSBehaviour =
  | 'frictionless' // ARes transStatus Y
  | 'challenge' // ARes C; the customer's one-time code decides Y or N
  | 'not_authenticated' // ARes N
  | 'not_applicable' // card not enrolled for 3DS2: 3DS1 fallback redirect
  | 'attempted'; // ARes A: attempt, liability still shifted

/** What the simulated acquirer answers to the authorisation. */
export type AcquirerBehaviour = 'authorised' | 'card_refused' | 'insufficient_funds' | 'fraud_detected' | 'timeout';

export interface Scenario {
  cents: number | 'other';
  threeDS: ThreeDSBehaviour;
  acquirer: AcquirerBehaviour;
  /** Wallet payments: the final state is reached only after this delay (docs/api.md#limits). */
  walletDelayMs?: number;
  /** The wording of docs/decisions.md#test-scenarios, shown to test-mode users. */
  outcome: string;
}

export const defaultScenario: Scenario = {
  cents: 'other',
  threeDS: 'frictionless',
  acquirer: 'authorised',
  outcome: 'success; 3DS2 frictionless (transStatus Y)',
};

export const scenarioTable: readonly Scenario[] = [
  { cents: 11, threeDS: 'challenge', acquirer: 'authorised', outcome: '3DS2 challenge; success if the customer passes it, failed/rejected if not' },
  { cents: 12, threeDS: 'not_authenticated', acquirer: 'authorised', outcome: '3DS2 authentication fails (N) → failed/rejected' },
  { cents: 13, threeDS: 'not_applicable', acquirer: 'authorised', outcome: '3DS2 not applicable → 3DS1 fallback redirect → success' },
  { cents: 14, threeDS: 'attempted', acquirer: 'authorised', outcome: '3DS2 attempt (A) → success, liability still shifted' },
  { cents: 21, threeDS: 'frictionless', acquirer: 'card_refused', outcome: 'issuer declines → failed/card_refused' },
  { cents: 22, threeDS: 'frictionless', acquirer: 'insufficient_funds', outcome: 'failed/insufficient_funds' },
  { cents: 23, threeDS: 'frictionless', acquirer: 'fraud_detected', outcome: 'failed/fraud_detected' },
  { cents: 31, threeDS: 'frictionless', acquirer: 'timeout', outcome: 'acquirer times out → manualintervention' },
  { cents: 41, threeDS: 'frictionless', acquirer: 'authorised', walletDelayMs: 2000, outcome: 'wallet: final state only after 2 s' },
];

/**
 * The two digits after the decimal point of an amount of `exponent` minor-unit digits:
 * 10.11 EUR → 11; 10.115 KWD → 11; 1000 JPY → 0 (no cents, so the default scenario).
 */
export function centsOf(amountMinor: number, exponent: number): number {
  if (exponent < 2) return 0;
  return Math.floor(amountMinor / 10 ** (exponent - 2)) % 100;
}

export function scenarioFor(amountMinor: number, exponent: number): Scenario {
  const cents = centsOf(amountMinor, exponent);
  return scenarioTable.find((row) => row.cents === cents) ?? defaultScenario;
}

/**
 * Refunds in test mode: the refund amount's cents pick the outcome as a payment's do. A refund
 * whose cents make a payment decline (.21, .22, .23) is refused by the acquirer → failed; every
 * other refund succeeds.
 */
export const refundRefusals: Partial<Record<AcquirerBehaviour, string>> = {
  card_refused: 'the acquirer refused the refund',
  insufficient_funds: 'the merchant account cannot fund the refund',
  fraud_detected: 'the acquirer refused the refund as suspicious',
};
