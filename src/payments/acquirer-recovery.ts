/**
 * The acquirer recovery job (docs/acquirers.md "Unknown outcomes"), run with the background
 * workers: every ACQUIRER_RECOVERY_INTERVAL it runs `cancelUnknownAuthorisation` for each
 * authorisation still in flight ACQUIRER_RECOVERY_AFTER after it was sent — an answer that never
 * came, or a process killed before it committed the answer. Safe with several workers on one
 * database: each payment is claimed with a compare-and-set before the acquirer is called.
 */
import type { Ports } from './ports.ts';
import { findDueAuthorisationRecoveries } from '../store/payment-pages.ts';
import { run } from './operations/run.ts';
import { cancelUnknownAuthorisation } from './operations/cancel-unknown-authorisation.ts';
import type { Log } from './operations/operation.ts';
import { runEvery } from '../lib/periodic.ts';

const BATCH = 50;

/** Settles what is due at `now`; returns the references it looked at. One that fails is reported and tried again next time. */
export async function recoverUnknownAuthorisations(ports: Ports, onError: (error: unknown) => void, now = Date.now()): Promise<string[]> {
  const due = await findDueAuthorisationRecoveries(ports.store.read, now, BATCH);
  const log: Log = { error: (data) => onError((data as { err?: unknown }).err ?? data) };
  for (const { reference, recovery_due_at } of due) {
    try {
      await run(cancelUnknownAuthorisation, { reference, dueAt: recovery_due_at! }, { ports, caller: undefined, now, log });
    } catch (error) {
      onError(error);
    }
  }
  return due.map((d) => d.reference);
}

/** Runs `recoverUnknownAuthorisations` every `intervalMs` until stopped. */
export function startAcquirerRecovery(ports: Ports, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  return runEvery(intervalMs, () => recoverUnknownAuthorisations(ports, onError), onError);
}
