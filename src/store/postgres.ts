/**
 * The PostgreSQL adapter: a connection pool, units of work that become transactions only
 * when they must, and the inserts of many units sent as one statement.
 */
import pg from 'pg';
import { Kysely, PostgresDialect, sql, type PostgresPoolClient } from 'kysely';
import type { Database } from './schema.ts';
import { migrateToLatest, sealedSecretsHeldInClear } from './migrations.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { isDeferrable, nameStatement, runDirectly, statementName, type QueryOutcome } from './prepared.ts';
import { raisedByDatabase } from './unavailable.ts';

// PostgreSQL BIGINT (int8) would otherwise arrive as a string; our bigints are epoch ms and minor units, well inside 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

/**
 * PostgreSQL units of work cost round trips, and round trips are what limits a create
 * (measured: four per payment — BEGIN, two inserts, COMMIT — held it near 1.6k/s).
 * So a unit's inserts that nobody reads back (prepared with `deferrable`) are held and
 * sent at the end. A unit that only inserts needs no connection of its own: its inserts
 * join those of the other such units that finish in the same turn of the event loop,
 * and all go as ONE statement of data-modifying CTEs — atomic without BEGIN/COMMIT, one
 * round trip, one commit for them all (measured: the socket write and the statement's
 * own cost were a fifth of a PostgreSQL create). When that statement fails (say one
 * unit's unique violation), each unit's inserts are sent again on their own, so every
 * unit still succeeds or fails alone. The first statement of a unit that is not such an
 * insert takes a connection, opens a real transaction and sends the unit's held inserts
 * first, so the unit still reads its own writes.
 *
 * Units are reusable objects, each with a Kysely instance bound to it, made once: a
 * query finds its unit without an async-context lookup (which taxes every promise in the
 * process), and prepared queries skip Kysely's executor there and on the read pool.
 */
export function openPostgres(databaseUrl: string, poolSize: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection the server ends (a restart's 57P01, a failover, a reset) raises 'error' on its
  // client whether it is idle in the pool or checked out between two queries; unheard, pg's event
  // would stop the process (docs/operations.md "When the database is away"). Heard here, the query
  // under way fails on its own, and the pool drops the broken client when it comes back (pg-pool
  // discards a client that is no longer queryable) and connects anew on next use.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const read = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => {
          const client = await connect(pool);
          return {
            query: (text: unknown, values?: unknown[]) => (typeof text === 'string' ? namedQuery(client, text, values) : client.query(text as pg.Submittable)),
            release: () => client.release(),
          } as unknown as PostgresPoolClient;
        },
        end: () => pool.end(),
      },
    }),
  });
  runDirectly(read, async (sql, parameters) => outcomeOf(await namedQuery(pool, sql, parameters)));
  const inserts = new InsertBatcher(pool);
  const idle: PostgresUnit[] = [];
  return {
    dialect: 'postgres' as const,
    read,
    transact: async <T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T> => {
      const unit = idle.pop() ?? new PostgresUnit(pool);
      try {
        const result = await work(unit.db);
        if (unit.client) await unit.commit();
        else await inserts.send(unit.takeHeld());
        return result;
      } catch (error) {
        await unit.rollback();
        throw error;
      } finally {
        unit.release();
        if (idle.length < MAX_IDLE_UNITS) idle.push(unit);
      }
    },
    notices: [],
    poolUse: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    migrate: async (secrets: SecretBox) => {
      const applied = await migrateToLatest(read, 'postgres', secrets);
      // The rows 007 rewrote leave their versions in clear behind as dead tuples until vacuumed:
      // rewritten now, once (an exclusive lock for as long as it takes, at the upgrade only).
      if (sealedSecretsHeldInClear(applied)) await sql`VACUUM FULL transactions, merchant_webhooks, idempotency_records, acs_sim_transactions`.execute(read);
      return applied;
    },
    close: () => read.destroy(),
  };
}

const MAX_IDLE_UNITS = 256;
/** A server that does not take a connection within this (unreachable host, full queue) fails the request rather than holding it. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Units per combined insert statement (a create holds ~45 parameters; PostgreSQL allows 65,535). */
const MAX_UNITS_PER_STATEMENT = 100;

/**
 * What pg rejects with, marked as the database's (store/unavailable.ts): its socket errors are
 * Node's own, the same `ECONNRESET` an acquirer's connection gives.
 */
const fromPg = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((error: unknown) => {
    throw raisedByDatabase(error);
  });

/** A connection of the pool. */
const connect = (pool: pg.Pool) => fromPg(pool.connect());

/** Runs a query with its server-side name when it is a prepared one (parsed and planned once per connection). */
function namedQuery(client: pg.PoolClient | pg.Pool, text: string, values?: unknown[]) {
  const name = statementName(text);
  return fromPg(name ? client.query({ name, text, values }) : client.query(text, values));
}

/** What Kysely's PostgreSQL connection returns for a result. */
function outcomeOf(result: pg.QueryResult): QueryOutcome {
  const changed = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command) && result.rowCount !== null;
  return { rows: result.rows ?? [], numAffectedRows: changed ? BigInt(result.rowCount!) : undefined };
}

type HeldInsert = { text: string; values: unknown[] };

/** Sends inserts as one statement: one as it is, several as data-modifying CTEs. */
async function sendInserts(client: pg.PoolClient, held: HeldInsert[]): Promise<void> {
  if (held.length === 0) return;
  if (held.length === 1) {
    await namedQuery(client, held[0].text, held[0].values);
    return;
  }
  let offset = 0;
  const values: unknown[] = [];
  const parts = held.map((insert, i) => {
    // Kysely writes parameters as $1…$n and values never appear in the SQL text, so renumbering is safe.
    const text = insert.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    offset += insert.values.length;
    values.push(...insert.values);
    return `held_${i} as (${text})`;
  });
  const text = `with ${parts.join(', ')} select 1`;
  nameStatement(text);
  await namedQuery(client, text, values);
}

/** Collects the held inserts of units that finish in one turn of the event loop and sends them together. */
class InsertBatcher {
  private waiting: { held: HeldInsert[]; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly pool: pg.Pool) {}

  send(held: HeldInsert[]): Promise<void> {
    if (held.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ held, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush() {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_UNITS_PER_STATEMENT);
      let client: pg.PoolClient;
      try {
        client = await connect(this.pool);
      } catch (error) {
        for (const unit of batch) unit.reject(error);
        continue;
      }
      try {
        await sendInserts(
          client,
          batch.flatMap((unit) => unit.held),
        );
        for (const unit of batch) unit.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        // One statement is all or nothing: find out which units fail by sending each on its own.
        else for (const unit of batch) await sendInserts(client, unit.held).then(unit.resolve, unit.reject);
      } finally {
        client.release();
      }
    }
  }
}

/** One unit of work's state; reused by later units once it is released. */
class PostgresUnit {
  readonly db: Kysely<Database>;
  /** Taken at the unit's first statement that is not a held insert; the unit is then a transaction on it. */
  client: pg.PoolClient | undefined;
  private held: HeldInsert[] = [];
  private broken = false;

  constructor(private readonly pool: pg.Pool) {
    const connection = { query: (text: unknown, values?: unknown[]) => this.query(text, values ?? []), release: () => {} } as unknown as PostgresPoolClient;
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: async () => connection, end: async () => {} } }) });
    runDirectly(this.db, async (sql, parameters) => outcomeOf(await this.query(sql, parameters)));
  }

  async query(text: unknown, values: unknown[]): Promise<pg.QueryResult> {
    if (typeof text !== 'string') throw new Error('streaming queries are not supported inside a unit of work');
    if (isDeferrable(text)) {
      this.held.push({ text, values });
      return { command: 'INSERT', rowCount: 1, rows: [], oid: 0, fields: [] };
    }
    if (!this.client) {
      this.client = await connect(this.pool);
      await namedQuery(this.client, 'BEGIN');
    }
    await sendInserts(this.client, this.takeHeld());
    return namedQuery(this.client, text, values);
  }

  takeHeld(): HeldInsert[] {
    return this.held.splice(0);
  }

  async commit() {
    await sendInserts(this.client!, this.takeHeld());
    await namedQuery(this.client!, 'COMMIT');
  }

  async rollback() {
    if (this.client) await this.client.query('ROLLBACK').catch(() => (this.broken = true));
  }

  release() {
    this.held = [];
    // A connection whose ROLLBACK failed is in an unknown state: the pool closes it.
    this.client?.release(this.broken || undefined);
    this.client = undefined;
    this.broken = false;
  }
}
