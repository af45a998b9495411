/**
 * What the operator's endpoints (api/cockpit.ts) need to know beyond the process that answers:
 * whether this Kassa's background workers run. With HTTP_PROCESSES=1 they run beside the
 * server; with more, in the primary (main.ts), which an HTTP process asks over IPC (lib/ipc.ts).
 */
import type { Worker } from 'node:cluster';
import { answer, ask } from './lib/ipc.ts';

/** `off`: RUN_WORKERS=false, nothing to wait for; `no answer`: the primary did not say in time. */
export type WorkersState = 'starting' | 'running' | 'stopping' | 'off' | 'no answer';

export interface Cockpit {
  workers(): Promise<WorkersState>;
}

/** A server with no workers of its own and no primary (a test's); main.ts gives every real one its own. */
export const withoutWorkers: Cockpit = { workers: async () => 'off' };

/** The workers' state as main.ts keeps it, in the process that runs them. */
export function workersHere(runWorkers: boolean) {
  let state: WorkersState = runWorkers ? 'starting' : 'off';
  return {
    set: (next: 'running' | 'stopping') => void (state = runWorkers ? next : 'off'),
    cockpit: { workers: async () => state } satisfies Cockpit,
  };
}

const ASK_PRIMARY_MS = 1000;

/** An HTTP process of several: the primary runs the workers and says how they are. */
export const askPrimary: Cockpit = {
  workers: () => ask<WorkersState>(process, 'workers', ASK_PRIMARY_MS).catch((): WorkersState => 'no answer'),
};

/** The primary's side, for each HTTP process it forks. */
export function answerHttpProcess(httpProcess: Worker, here: Cockpit): void {
  answer(httpProcess, 'workers', () => here.workers());
}
