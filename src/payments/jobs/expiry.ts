/** The expiry sweeper: runs the `expire` operation (operations/expire.ts) until nothing is due. */
import type { Ports } from '../ports.ts';
import { run } from '../runner/run.ts';
import { expire, EXPIRY_BATCH } from '../operations/expire.ts';
import type { Log } from '../runner/operation.ts';
import { runEvery } from '../../lib/periodic.ts';

/** Expires what is due at `now`; returns the references it expired. */
export function expireDuePayments(ports: Ports, now = Date.now(), log: Log = console): Promise<string[]> {
  return run(expire, { limit: EXPIRY_BATCH }, { ports, caller: undefined, now, log });
}

/** Runs `expireDuePayments` every `intervalMs` until stopped. */
export function startExpirySweeper(ports: Ports, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  return runEvery(
    intervalMs,
    async () => {
      while ((await expireDuePayments(ports)).length === EXPIRY_BATCH);
    },
    onError,
  );
}
