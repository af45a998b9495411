/**
 * The operator's endpoints: `/health` (unchanged, for what already polls it), `/health/live`
 * (the process answers) and `/health/ready` (it should get traffic: the database answers, its
 * schema has every migration of this code, and the background workers run where RUN_WORKERS
 * asks for them). Readiness answers 200 or 503 with the same JSON body naming each part
 * (docs/operations.md "Health").
 */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/store.ts';
import { pendingMigrations } from '../store/migrations.ts';
import type { Cockpit } from '../cockpit.ts';

/** A database that does not answer within this is not ready (a stopped PostgreSQL may leave connects hanging). */
const DATABASE_CHECK_MS = 2000;

interface Deps {
  store: Store;
  cockpit: Cockpit;
}

interface Readiness {
  database: 'ok' | 'unreachable';
  migrations: string;
  workers: string;
}

export async function cockpitRoutes(app: FastifyInstance, { store, cockpit }: Deps) {
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
}

/** The pending migrations, or a rejection when the database does not answer in time. */
function schemaState(store: Store): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_CHECK_MS} ms`)), DATABASE_CHECK_MS);
  });
  return Promise.race([pendingMigrations(store.read, store.dialect, store.secrets), late]).finally(() => clearTimeout(timer));
}
