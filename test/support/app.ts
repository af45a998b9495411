/**
 * Test support: a Kassa app on a fresh database of the chosen backend. Every API test
 * runs once per backend: SQLite in a temporary directory, and PostgreSQL in a database
 * of its own created for the test and dropped after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { buildServer } from '../../src/server.ts';
import { changePaymentMethods, createMerchant, type CreatedMerchant } from '../../src/merchants/merchants.ts';
import { paymentMethods } from '../../src/ground/payment-method.ts';
import { randomBase62 } from '../../src/lib/tokens.ts';
import { acceptedRequestBreach, contractBreach } from './contract.ts';

export type Backend = 'sqlite' | 'postgres';

/** KASSA_TEST_BACKENDS=sqlite skips PostgreSQL on a machine without it; CI runs both. */
export const backends = (process.env.KASSA_TEST_BACKENDS ?? 'sqlite,postgres').split(',') as Backend[];
export const POSTGRES_ADMIN_URL = process.env.KASSA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const SESSION_WAIT_MS = 5000;

export interface TestDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A new, empty database: its settings as environment variables (DATA_DIR or DATABASE_URL), with
 * a KEY_DIR of its own for the key files Kassa makes (beside DATA_DIR, as in a deployment).
 */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-test-'));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  const keyDir = path.join(dir, 'keys');
  if (backend === 'sqlite') {
    return { env: { DATA_DIR: path.join(dir, 'data'), KEY_DIR: keyDir }, drop: async () => removeDir() };
  }
  const name = `kassa_test_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), KEY_DIR: keyDir },
    drop: async () => {
      removeDir();
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      // pg's Pool.end() resolves before its clients have finished closing, and a client still
      // closing when the database is dropped WITH (FORCE) raises an unhandled error: wait for
      // the server to list no session (bounded; a killed process's sessions are then forced).
      for (let waited = 0; waited < SESSION_WAIT_MS; waited += 10) {
        const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A Kysely of its own on a test database, as the migrator has one: for a migration test to build
 * the schema an earlier version left, or to run one migration's step on it. `T`: the schema as that
 * version has it.
 */
export function rawDatabase<T>(backend: Backend, database: TestDatabase): Kysely<T> {
  if (backend === 'sqlite') {
    fs.mkdirSync(database.env.DATA_DIR, { recursive: true });
    return new Kysely<T>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path.join(database.env.DATA_DIR, 'kassa.db')) }) });
  }
  return new Kysely<T>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.env.DATABASE_URL }) }) });
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  config: Config;
  merchant: CreatedMerchant;
  /** The merchant API as the test merchant (its test key). */
  client: MerchantApi;
  database: TestDatabase;
  close(): Promise<void>;
}

/**
 * PostgreSQL deployments configure VAULT_KEY (without it the vault is refused), so the tests do
 * too; SQLite tests use the key file Kassa makes in KEY_DIR. `VAULT_KEY: ''` turns it off.
 */
const vaultEnv = (backend: Backend) => (backend === 'postgres' ? { VAULT_KEY: randomBytes(32).toString('base64'), VAULT_KEY_ID: 'test-1' } : {});

export async function startTestApp(backend: Backend, env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase(backend);
  const config = loadConfig({ PUBLIC_URL: 'http://kassa.test', API_KEY_CACHE_MS: '0', ...vaultEnv(backend), ...database.env, ...env });
  const store = await openStore(config);
  await store.migrate();
  const app = await buildServer(config, store, { logger: false });
  const breaches = checkAnswers(app);
  const merchant = await createMerchant(store, 'Test Shop');
  // Every known method, as the demo merchant: a test of a method Kassa adds needs no setup; a merchant of createMerchant gets the new merchants' set.
  await changePaymentMethods(store, merchant.merchantId, { enable: paymentMethods });
  return {
    app,
    store,
    config,
    merchant,
    database,
    client: api(app, merchant.testApiKey),
    async close() {
      await app.close();
      await store.close();
      await database.drop();
      assert.deepEqual(breaches, [], 'answers of the merchant API that break its OpenAPI document');
    },
  };
}

/**
 * Every answer the app sends, to a test's inject or to a browser, is checked against the API's
 * OpenAPI document (contract.ts); what breaks it is listed, and the suite's close fails on it.
 */
function checkAnswers(app: FastifyInstance): string[] {
  const breaches: string[] = [];
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      const breach = contractBreach(request, { statusCode: reply.statusCode, headers: reply.getHeaders(), body: payload.toString() });
      if (breach) breaches.push(breach);
      const accepted = acceptedRequestBreach(request, reply.statusCode);
      if (accepted) breaches.push(accepted);
    }
    return payload;
  });
  return breaches;
}

/** The test app of the enclosing describe: started before its tests, closed after them. */
export function suiteApp(backend: Backend, env: Record<string, string> = {}): TestApp {
  return suiteResource(
    () => startTestApp(backend, env),
    (app) => app.close(),
  );
}

/**
 * Something a whole describe shares (an app, a browser harness): started in before(),
 * closed in after(). The object returned reads through to it, so a suite can hold it from
 * the start.
 */
export function suiteResource<T extends object>(start: () => Promise<T>, close: (resource: T) => Promise<void>): T {
  let current: T | undefined;
  before(async () => {
    current = await start();
  });
  after(async () => {
    if (current) await close(current);
  });
  return new Proxy({} as T, {
    get: (_, name) => {
      if (!current) throw new Error('a suite resource starts in before(): use it inside hooks and tests');
      return Reflect.get(current, name);
    },
  });
}

export const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

export interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
}

/** What the request helpers need of Kassa: Fastify's inject, or the same over real HTTP (`httpInjector`). */
export interface Injector {
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
}

export type MerchantApi = ReturnType<typeof api>;

export function api(app: Injector, defaultKey: string) {
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown, options: CallOptions = {}): Promise<LightMyRequestResponse> => {
    const response = await app.inject({
      method,
      url: `/api/v1${url}`,
      headers: {
        authorization: basic(options.key ?? defaultKey),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    // The answer keeps the API's OpenAPI document, or the test fails here.
    const breach = contractBreach({ method, url: `/api/v1${url}` }, { statusCode: response.statusCode, headers: response.headers, body: response.body });
    if (breach) throw new Error(breach);
    return response;
  };
  return {
    post: (url: string, body: unknown, options?: CallOptions) => call('POST', url, body, options),
    get: (url: string, options?: CallOptions) => call('GET', url, undefined, options),
  };
}

export const cardPayment = (overrides: Record<string, unknown> = {}) => ({
  amount: '10.00',
  currency: 'EUR',
  method: 'card',
  returnUrl: 'https://shop.example/return',
  ...overrides,
});
