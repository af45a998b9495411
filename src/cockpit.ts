/**
 * What the operator's endpoints (api/cockpit.ts) need beyond the process that answers: whether
 * this Kassa's background workers run, and the metrics of all its processes added up. With
 * HTTP_PROCESSES=1 both are here. With more, the workers run in the primary (main.ts), and an
 * HTTP process asks it over the cluster's IPC channel (lib/ipc.ts): for the workers' state, and
 * for the metrics, which the primary gathers from every HTTP process, adds its own and those read
 * from the database, and sums with prom-client's AggregatorRegistry (docs/operations.md "Metrics").
 * A database away while the primary reads it is told back as such, so that the HTTP process
 * answers the scrape as one process would: 503 with Retry-After (store/unavailable.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { answer, ask } from './lib/ipc.ts';
import { databasePool, registry, webhookBacklog, webhookDue, webhookOldestDueAge } from './lib/metrics.ts';
import type { Store } from './store/store.ts';
import { readWebhookBacklog } from './store/webhook-backlog.ts';
import { databaseUnavailable, raisedByDatabase } from './store/unavailable.ts';

/** `off`: RUN_WORKERS=false, nothing to wait for; `no answer`: the primary did not say in time. */
export type WorkersState = 'starting' | 'running' | 'stopping' | 'off' | 'no answer';

export interface Cockpit {
  workers(): Promise<WorkersState>;
  /** The Prometheus text exposition of every process of this Kassa, added up. */
  metrics(): Promise<string>;
}

/** The workers' state as main.ts keeps it, in the process that runs them. */
export function workersHere(runWorkers: boolean) {
  let state: WorkersState = runWorkers ? 'starting' : 'off';
  return {
    set: (next: 'running' | 'stopping') => void (state = runWorkers ? next : 'off'),
    state: () => state,
  };
}

/**
 * The figures read at scrape time: this process's pool use, and (`backlog`, in the one process
 * that adds up, so that it is counted once) the webhook backlog, through store/ only.
 */
async function readStoreFigures(store: Store, backlog: boolean): Promise<void> {
  const pool = store.poolUse?.();
  if (pool) for (const [state, count] of Object.entries(pool)) databasePool.set({ state }, count);
  if (!backlog) return;
  const now = Date.now();
  const figures = await readWebhookBacklog(store.read, now);
  webhookBacklog.set(figures.pending);
  webhookDue.set(figures.due);
  webhookOldestDueAge.set(figures.oldestDueAt === null ? 0 : Math.max(0, now - figures.oldestDueAt) / 1000);
}

/** One process serving HTTP and, as `workers` says, running the workers (HTTP_PROCESSES=1, and the tests). */
export function singleProcess(store: Store, workers: () => WorkersState): Cockpit {
  return {
    workers: async () => workers(),
    metrics: async () => {
      await readStoreFigures(store, true);
      return registry.metrics();
    },
  };
}

/** Bounds on waiting for another process: a scrape or a probe must answer even when one hangs. */
const ASK_PRIMARY_MS = 5000;
const ASK_HTTP_PROCESS_MS = 3000;
const ASK_WORKERS_MS = 1000;

/** An HTTP process of several: it gives the primary its own metrics, and asks the primary for the rest. */
export function httpProcess(store: Store): Cockpit {
  answer(process, 'metrics-part', async () => {
    await readStoreFigures(store, false);
    return registry.getMetricsAsJSON();
  });
  return {
    workers: () => ask<WorkersState>(process, 'workers', ASK_WORKERS_MS).catch((): WorkersState => 'no answer'),
    metrics: async () => {
      const scrape = await ask<Scrape>(process, 'metrics', ASK_PRIMARY_MS);
      if ('text' in scrape) return scrape.text;
      // The primary's database error, raised here as it was there: the answerer's 503, as with one process.
      throw raisedByDatabase(Object.assign(new Error(scrape.databaseAway.message), { code: scrape.databaseAway.code }));
    },
  };
}

type MetricsPart = MetricObjectWithValues<MetricValue<string>>[];
/** The primary's answer to a scrape: the text, or the database being away (its driver's code and message; the IPC channel carries data, not errors). */
type Scrape = { text: string } | { databaseAway: { code?: string; message: string } };

/** The primary's side: what it answers each HTTP process it forks. */
export function primary(store: Store, workers: () => WorkersState) {
  const metrics = async (): Promise<Scrape> => {
    // An HTTP process that does not answer in time (busy, just replaced) is left out of this scrape, not waited for.
    const parts = await Promise.all(
      Object.values(cluster.workers ?? {}).map((httpProcess) => ask<MetricsPart>(httpProcess!, 'metrics-part', ASK_HTTP_PROCESS_MS).catch(() => undefined)),
    );
    try {
      await readStoreFigures(store, true);
    } catch (error) {
      if (!databaseUnavailable(error)) throw error;
      const code = (error as { code?: unknown }).code;
      return { databaseAway: { code: typeof code === 'string' ? code : undefined, message: (error as Error).message } };
    }
    const own = await registry.getMetricsAsJSON();
    return { text: await AggregatorRegistry.aggregate([own, ...parts.filter((part) => part !== undefined)]).metrics() };
  };
  return (httpProcess: Worker) => {
    answer(httpProcess, 'workers', workers);
    answer(httpProcess, 'metrics', metrics);
  };
}
