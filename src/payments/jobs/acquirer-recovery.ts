/**
 * The acquirer recovery job (docs/acquirers.md "Unknown outcomes", "Claims and leases"), run with
 * the background workers: every ACQUIRER_RECOVERY_INTERVAL it runs `cancelUnknownAuthorisation`
 * for each authorisation still in flight ACQUIRER_RECOVERY_AFTER after it was sent, and
 * `finishAcquirerClaim` for each capture, reversal or refund whose claim's lease ran out — an
 * answer that never came, or a process killed before it committed the answer. Safe with several
 * workers on one database: each is taken with a compare-and-set before the acquirer is called.
 */
import type { Ports } from '../ports.ts';
import { findDueAuthorisationRecoveries } from '../../store/payment-pages.ts';
import { findDueAcquirerClaims } from '../../store/acquirer-claims.ts';
import { run } from '../runner/run.ts';
import { cancelUnknownAuthorisation } from '../operations/cancel-unknown-authorisation.ts';
import { finishAcquirerClaim } from '../operations/finish-acquirer-claim.ts';
import type { AnyOperation, Log } from '../runner/operation.ts';
import { runEvery } from '../../lib/periodic.ts';

const BATCH = 50;

/** Runs `op` for each due item at `now`; returns their references. One that fails is reported and tried again next time. */
async function runDue(ports: Ports, onError: (error: unknown) => void, now: number, op: AnyOperation<undefined>, due: { reference: string; dueAt: number }[]) {
  const log: Log = { error: (data) => onError((data as { err?: unknown }).err ?? data) };
  for (const item of due) {
    try {
      await run(op, item, { ports, caller: undefined, now, log });
    } catch (error) {
      onError(error);
    }
  }
  return due.map((d) => d.reference);
}

/** Settles the authorisations in flight due at `now`. */
export async function recoverUnknownAuthorisations(ports: Ports, onError: (error: unknown) => void, now = Date.now()): Promise<string[]> {
  const due = await findDueAuthorisationRecoveries(ports.store.read, now, BATCH);
  return runDue(
    ports,
    onError,
    now,
    cancelUnknownAuthorisation,
    due.map((d) => ({ reference: d.reference, dueAt: d.recovery_due_at! })),
  );
}

/** Finishes the captures, reversals and refunds whose claims are due at `now`. */
export async function recoverAcquirerClaims(ports: Ports, onError: (error: unknown) => void, now = Date.now()): Promise<string[]> {
  const due = await findDueAcquirerClaims(ports.store.read, now, BATCH);
  return runDue(
    ports,
    onError,
    now,
    finishAcquirerClaim,
    due.map((d) => ({ reference: d.reference, dueAt: d.due_at })),
  );
}

/** Runs both every `intervalMs` until stopped. */
export function startAcquirerRecovery(ports: Ports, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  return runEvery(
    intervalMs,
    async () => {
      await recoverUnknownAuthorisations(ports, onError);
      await recoverAcquirerClaims(ports, onError);
    },
    onError,
  );
}
