/**
 * The operator's endpoints. `/health` (unchanged, for what already polls it), `/health/live` (the
 * process answers) and `/health/ready` (it should get traffic: the database answers and takes a
 * write, its schema has every migration of this code, and the background workers run where
 * RUN_WORKERS asks for them), 200 or 503 with the same JSON body naming each part. `/metrics`:
 * Prometheus text for all of this Kassa's processes, behind METRICS_TOKEN (docs/operations.md
 * "Health", "Metrics").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { pendingMigrations } from '../store/migrations.ts';
import { writeReadinessProbe } from '../store/readiness-probe.ts';
import { httpRequestDuration, registry } from '../lib/metrics.ts';
import { Problem } from '../ground/problem.ts';

/** A database that does not answer within this is not ready (a stopped PostgreSQL may leave connects hanging). */
const DATABASE_CHECK_MS = 2000;
/** Probes within this of a check share its answer: a probe every few milliseconds still costs one write a second. */
export const DATABASE_CHECK_SHARED_MS = 1000;

/** What main.ts knows of the other processes (src/cockpit.ts). */
interface Cockpit {
  /** `running`, `off` (RUN_WORKERS=false), or what keeps them from running. */
  workers(): Promise<string>;
  /** The Prometheus text of every process of this Kassa, added up. */
  metrics(): Promise<string>;
}

interface Deps {
  config: Config;
  store: Store;
  cockpit: Cockpit;
}

interface Readiness {
  database: 'ok' | 'unreachable' | 'not writable';
  migrations: string;
  workers: string;
}

/** What the database check found; `reason` when it failed: the driver's code, never its message (which may name hosts). */
interface DatabaseCheck {
  database: Readiness['database'];
  pending?: string[];
  reason?: string;
}

export async function cockpitRoutes(app: FastifyInstance, { config, store, cockpit }: Deps) {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/health/live', async () => ({ status: 'ok' }));
  const checkDatabase = sharedCheck(store, app.log);
  app.get('/health/ready', async (_request, reply) => {
    const [database, workers] = await Promise.all([checkDatabase(), cockpit.workers()]);
    const { pending } = database;
    const checks: Readiness = {
      database: database.database,
      migrations: !pending ? 'unknown' : pending.length === 0 ? 'current' : `pending: ${pending.join(', ')}`,
      workers,
    };
    const ready = checks.database === 'ok' && checks.migrations === 'current' && (workers === 'running' || workers === 'off');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks, ...(database.reason ? { reason: database.reason } : {}) });
  });
  // Without a token there is no /metrics: the figures say how much a merchant sells and when.
  const token = config.metricsToken;
  if (token) {
    const expected = digest(token);
    app.get('/metrics', async (request, reply) => {
      if (!bearerMatches(request, expected)) throw unauthorised;
      return reply.type(registry.contentType).send(await cockpit.metrics());
    });
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compared as digests: constant time whatever the lengths. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const [scheme, credentials] = (request.headers.authorization ?? '').split(' ', 2);
  return scheme?.toLowerCase() === 'bearer' && credentials !== undefined && timingSafeEqual(digest(credentials), expected);
}

const unauthorised = new Problem('unauthorized', {
  detail: 'Send the metrics token (METRICS_TOKEN) as Authorization: Bearer <token>.',
  headers: {
    'WWW-Authenticate': 'Bearer realm="kassa-metrics"',
  },
});

/**
 * The database's part of readiness: its pending migrations read, then (with none pending, so the
 * probe's table is there) one row written in a unit of work of its own, as every request's writes
 * are. Reading alone would call ready a database that takes no write (PostgreSQL out of space,
 * SQLite's disk full past its preallocated WAL). On SQLite the filesystem's free space is asked
 * first: a full disk still takes a one-row write for a while after it refuses every create
 * (store/sqlite.ts ROOM_TO_GROW_BYTES). One check runs at a time, its answer shared for
 * DATABASE_CHECK_SHARED_MS; a check still under way after DATABASE_CHECK_MS answers not ready,
 * and the next probe waits for it rather than starting another.
 */
function sharedCheck(store: Store, log: FastifyBaseLogger): () => Promise<DatabaseCheck> {
  let running: Promise<DatabaseCheck> | undefined;
  let answered: { check: DatabaseCheck; until: number } | undefined;
  const probe = async (): Promise<DatabaseCheck> => {
    let pending: string[];
    try {
      pending = await pendingMigrations(store.read, store.dialect, store.secrets);
    } catch (err) {
      log.warn({ err }, 'readiness: the database does not answer');
      return { database: 'unreachable', reason: reasonOf(err) };
    }
    if (pending.length > 0) return { database: 'ok', pending };
    try {
      if (store.roomToGrow?.() === false) {
        log.warn('readiness: the database has no room to grow: its filesystem is full');
        return { database: 'not writable', pending, reason: 'ENOSPC' };
      }
      await store.transact((db) => writeReadinessProbe(db, Date.now()));
      return { database: 'ok', pending };
    } catch (err) {
      log.warn({ err }, 'readiness: the database takes no write');
      return { database: 'not writable', pending, reason: reasonOf(err) };
    }
  };
  return async () => {
    if (answered && Date.now() < answered.until) return answered.check;
    running ??= probe().finally(() => (running = undefined));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DatabaseCheck>((resolve) => {
      timer = setTimeout(() => resolve({ database: 'unreachable', reason: `no answer within ${DATABASE_CHECK_MS} ms` }), DATABASE_CHECK_MS);
    });
    const check = await Promise.race([running, late]).finally(() => clearTimeout(timer));
    answered = { check, until: Date.now() + DATABASE_CHECK_SHARED_MS };
    return check;
  };
}

const reasonOf = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'no code: the log says why';
};

/** Every answer's time by method, route pattern (`/pay/:token`, never the token) and status; `unmatched` for addresses no route has. */
export function installRequestMetrics(app: FastifyInstance) {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    httpRequestDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
}
