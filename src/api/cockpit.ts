/**
 * The operator's endpoints. `/health` (unchanged, for what already polls it), `/health/live` (the
 * process answers) and `/health/ready` (it should get traffic: the database answers, its schema
 * has every migration of this code, and the background workers run where RUN_WORKERS asks for
 * them), 200 or 503 with the same JSON body naming each part. `/metrics`: Prometheus text for
 * all of this Kassa's processes, behind METRICS_TOKEN (docs/operations.md "Health", "Metrics").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { pendingMigrations } from '../store/migrations.ts';
import { httpRequestDuration, registry } from '../lib/metrics.ts';
import { Problem } from '../ground/problem.ts';

/** A database that does not answer within this is not ready (a stopped PostgreSQL may leave connects hanging). */
const DATABASE_CHECK_MS = 2000;

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
  database: 'ok' | 'unreachable';
  migrations: string;
  workers: string;
}

export async function cockpitRoutes(app: FastifyInstance, { config, store, cockpit }: Deps) {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/health/live', async () => ({ status: 'ok' }));
  app.get('/health/ready', async (request, reply) => {
    const [schema, workers] = await Promise.all([
      schemaState(store).catch((err: unknown) => request.log.warn({ err }, 'readiness: database check failed')),
      cockpit.workers(),
    ]);
    const checks: Readiness = {
      database: schema ? 'ok' : 'unreachable',
      migrations: !schema ? 'unknown' : schema.length === 0 ? 'current' : `pending: ${schema.join(', ')}`,
      workers,
    };
    const ready = checks.database === 'ok' && checks.migrations === 'current' && (workers === 'running' || workers === 'off');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
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

const unauthorised = new Problem(401, 'Unauthorized', 'Send the metrics token (METRICS_TOKEN) as Authorization: Bearer <token>.', undefined, {
  'WWW-Authenticate': 'Bearer realm="kassa-metrics"',
});

/** The pending migrations, or a rejection when the database does not answer in time. */
function schemaState(store: Store): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_CHECK_MS} ms`)), DATABASE_CHECK_MS);
  });
  return Promise.race([pendingMigrations(store.read, store.dialect, store.secrets), late]).finally(() => clearTimeout(timer));
}

/** Every answer's time by method, route pattern (`/pay/:token`, never the token) and status; `unmatched` for addresses no route has. */
export function installRequestMetrics(app: FastifyInstance) {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    httpRequestDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
}
