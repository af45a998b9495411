/**
 * A dispute's stages as data (docs/disputes.md "Stages"): where a chargeback transaction may go
 * from each stage, and the status each stage gives it. A stage only moves forward along this
 * table, so a notification that comes late or again never moves a dispute back.
 *
 * The status says where the disputed money is now (docs/disputes.md "Status"): `pending` while
 * nothing has been taken or the issuer's claim is open again, `success` while the chargeback
 * stands (the money taken back from the merchant), `failed` while the merchant has it (the
 * chargeback reversed, a pre-arbitration won). Unlike a payment's, it can change after it was
 * `success` or `failed`: the schemes reopen what they decided (a reversed chargeback may come back
 * as a second chargeback), and the stage table, not the payment state machine, bounds it.
 */
import type { Status } from './states.ts';

export const disputeStages = [
  'notification',
  'chargeback',
  'reversed',
  'second_chargeback',
  'prearbitration',
  'prearbitration_won',
  'prearbitration_lost',
  'accepted',
] as const;
export type DisputeStage = (typeof disputeStages)[number];

/** Where a dispute may go from each stage (forward only; an empty list is a stage that ends it). */
export const stageTransitions = {
  notification: ['chargeback', 'reversed', 'second_chargeback', 'prearbitration', 'prearbitration_won', 'prearbitration_lost', 'accepted'],
  chargeback: ['reversed', 'second_chargeback', 'prearbitration', 'prearbitration_won', 'prearbitration_lost', 'accepted'],
  reversed: ['second_chargeback', 'prearbitration', 'prearbitration_won', 'prearbitration_lost'],
  second_chargeback: ['prearbitration', 'prearbitration_won', 'prearbitration_lost', 'accepted'],
  prearbitration: ['prearbitration_won', 'prearbitration_lost', 'accepted'],
  prearbitration_won: [],
  prearbitration_lost: [],
  accepted: [],
} as const satisfies Record<DisputeStage, readonly DisputeStage[]>;

/** The chargeback transaction's status at each stage: where the disputed money is. */
export const stageStatus = {
  notification: 'pending',
  chargeback: 'success',
  reversed: 'failed',
  second_chargeback: 'success',
  prearbitration: 'pending',
  prearbitration_won: 'failed',
  prearbitration_lost: 'success',
  accepted: 'success',
} as const satisfies Record<DisputeStage, Status>;

/**
 * Whether a dispute at each stage holds its amount against what its payment has left (docs/disputes.md
 * "What is left of a payment"): one open (the issuer's claim undecided) or standing (the money taken
 * back: charged back, lost, accepted) holds it, so that refunds and other disputes cannot claim it
 * too; one reversed or won gives it back. It is the status's `pending` and `success` against its
 * `failed`, written out because what holds is a rule of the money, not of the status's name.
 */
export const stageHolds = {
  notification: true,
  chargeback: true,
  reversed: false,
  second_chargeback: true,
  prearbitration: true,
  prearbitration_won: false,
  prearbitration_lost: true,
  accepted: true,
} as const satisfies Record<DisputeStage, boolean>;

export const canAdvance = (from: DisputeStage, to: DisputeStage) => (stageTransitions[from] as readonly DisputeStage[]).includes(to);

/**
 * The stages of an open dispute, whose outcome is still to be decided (what the console counts as
 * open, docs/disputes.md): a reversed chargeback or a second one may still move, but rarely does.
 */
export const openStages: readonly DisputeStage[] = ['notification', 'chargeback', 'prearbitration'];

export const isDisputeStage = (value: unknown): value is DisputeStage => typeof value === 'string' && (disputeStages as readonly string[]).includes(value);
