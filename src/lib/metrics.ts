/**
 * Kassa's Prometheus metrics (prom-client): the one registry of a process and every series it
 * counts, each declared once here and incremented where the thing happens. The scrape side
 * (reading database figures, adding up the processes) is api/cockpit.ts and cockpit.ts; the
 * series and how to read them are in docs/operations.md "Metrics".
 *
 * Counting costs the request path a label look-up and an addition; nothing here waits.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

let processMetrics = false;
/** Node's own series (event-loop lag, heap, CPU, handles), once per process: a test process builds many servers. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

export const httpRequestDuration = new Histogram({
  name: 'kassa_http_request_duration_seconds',
  help: 'Time from the request to the end of its answer, by method, route pattern (never the address itself) and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const transactionsCreated = new Counter({
  name: 'kassa_payments_created_total',
  help: 'Transactions written, by method, type (sale, authorise, credit, token, …), first status and mode',
  labelNames: ['method', 'type', 'status', 'mode'] as const,
  registers: [registry],
});

export const statusTransitions = new Counter({
  name: 'kassa_payment_transitions_total',
  help: 'Status changes, by method, the status reached and mode',
  labelNames: ['method', 'status', 'mode'] as const,
  registers: [registry],
});

export const idempotentReplays = new Counter({
  name: 'kassa_idempotent_replays_total',
  help: 'Answers replayed for a reused Idempotency-Reference, by route',
  labelNames: ['route'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'kassa_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome (delivered, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhooksGivenUp = new Counter({
  name: 'kassa_webhook_given_up_total',
  help: 'Webhook deliveries given up after the whole retry schedule (or with no URL left)',
  registers: [registry],
});

/** Read from the database at scrape time (api/cockpit.ts), by one process only. */
export const webhookBacklog = new Gauge({
  name: 'kassa_webhook_backlog',
  help: 'Webhook deliveries not yet delivered nor given up (due now or waiting for a retry)',
  registers: [registry],
});

export const webhookDue = new Gauge({
  name: 'kassa_webhook_due',
  help: 'Webhook deliveries due now and not claimed by a worker',
  registers: [registry],
});

export const webhookOldestDueAge = new Gauge({
  name: 'kassa_webhook_oldest_due_age_seconds',
  help: 'How long the longest-waiting due webhook delivery has been due (0 when none is)',
  registers: [registry],
});

export const acquirerCallDuration = new Histogram({
  name: 'kassa_acquirer_call_duration_seconds',
  help: 'Acquirer calls, by acquirer, call (authorise, capture, …) and outcome (the answer, or error)',
  labelNames: ['acquirer', 'call', 'outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const acquirerCallErrors = new Counter({
  name: 'kassa_acquirer_call_errors_total',
  help: 'Acquirer calls that threw (network, timeout, a malformed answer), by acquirer and call',
  labelNames: ['acquirer', 'call'] as const,
  registers: [registry],
});

export const databasePool = new Gauge({
  name: 'kassa_database_pool_connections',
  help: 'PostgreSQL connections of the processes, by state: open, idle, and requests waiting for one',
  labelNames: ['state'] as const,
  registers: [registry],
});
