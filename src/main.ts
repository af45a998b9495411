/**
 * Process entry. With HTTP_PROCESSES=1 one process does everything: config → storage
 * (migrated) → demo merchant on first start → HTTP server → background workers.
 *
 * With more (the default on a multi-core machine: one per core), a primary process
 * opens and migrates storage, creates the demo merchant, runs the background workers
 * and forks the HTTP processes, which share the port (Node's cluster deals connections
 * out round-robin). Everything they share lives in the database, already safe with
 * several processes (every state change is a compare-and-set); the card-sealing key,
 * which they must agree on, the primary hands to all of them. The secrets key and the vault
 * key they share through SECRETS_KEY and VAULT_KEY or else the key files in KEY_DIR, made
 * once by the first process that needs one (store/secrets.ts, vault/keys.ts). The primary
 * replaces an HTTP process that dies; an HTTP process exits when its primary is gone. The
 * primary also answers what readiness and /metrics ask of it (cockpit.ts): its workers' state, and
 * every process's metrics added up.
 *
 * SIGTERM/SIGINT stop cleanly: no new requests, in-flight ones finish, workers stop,
 * storage closes, exit 0.
 */
import cluster, { type Worker } from 'node:cluster';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from './config.ts';
import type { FastifyInstance } from 'fastify';
import { openStore, type Store } from './store/store.ts';
import { NotEnoughSpace } from './lib/private-files.ts';
import { SettingError } from './lib/settings.ts';
import { buildServer, standardOutput } from './server.ts';
import { startWorkers } from './workers.ts';
import { buildPorts } from './payments/ports.ts';
import { ensureDemoMerchant } from './merchants/demo.ts';
import { SECRETS_KEY_FILE } from './store/secrets.ts';
import { vaultKeyFile } from './vault/keys.ts';
import { httpProcess, primary, singleProcess, workersHere } from './cockpit.ts';
import { collectProcessMetrics } from './lib/metrics.ts';

async function openMigrated(config: Config, poolSize?: number) {
  const store = await openStore({ ...config, databasePoolSize: poolSize ?? config.databasePoolSize });
  await store.migrate();
  const demo = config.demoMerchant ? await ensureDemoMerchant(store, config) : undefined;
  return { store, demo, notices: [...config.unknownSettings, ...store.notices, ...keyFilesBesideTheDatabase(config)] };
}

/**
 * Key files that lie in DATA_DIR, where a copy of the database folder would carry them with
 * what they protect (docs/operations.md "Files and keys"): KEY_DIR set inside it, or a vault
 * key file an earlier version made there and not moved yet. Said at every start until moved.
 */
function keyFilesBesideTheDatabase(config: Config): string[] {
  if (config.databaseUrl) return [];
  const keyFiles = [config.secretsKey ? undefined : path.join(config.keyDir, SECRETS_KEY_FILE), vaultKeyFile(config)];
  return keyFiles
    .filter((file) => file !== undefined && fs.existsSync(file) && !path.relative(config.dataDir, file).startsWith('..'))
    .map((file) => `the key file ${file} lies in DATA_DIR beside the database: move it to a KEY_DIR apart from DATA_DIR (docs/operations.md "Files and keys")`);
}

/** Runs `stop` once, on the first of `signals` or when the returned trigger is called, then exits 0. */
function stopOn(signals: NodeJS.Signals[], stop: (cause: string) => Promise<void>) {
  let stopping = false;
  const trigger = async (cause: string) => {
    if (stopping) return;
    stopping = true;
    await stop(cause);
    process.exit(0);
  };
  for (const signal of signals) process.on(signal, () => void trigger(signal));
  return { trigger, stopping: () => stopping };
}

async function runSingleProcess(config: Config) {
  const { store, demo, notices } = await openMigrated(config);
  const workers = workersHere(config.runWorkers);
  // One set of ports for the server and the workers: the simulators keep what they answered in memory.
  const ports = buildPorts(config, store);
  const app = await buildServer(config, store, { cockpit: singleProcess(store, workers.state), ports });
  for (const notice of notices) app.log.warn(notice);
  await app.listen({ port: config.port, host: config.host });
  if (demo) process.stdout.write(demo);
  const stopWorkers = config.runWorkers ? startWorkers(config, ports, app.log) : async () => {};
  workers.set('running');
  stopOn(['SIGTERM', 'SIGINT'], async (signal) => {
    app.log.info({ signal }, 'stopping');
    workers.set('stopping');
    await stopWorkers();
    await app.close();
    await store.close();
  });
}

/** The primary's own pool serves only the background workers. */
const PRIMARY_POOL_SIZE = 4;
const STOP_GRACE_MS = 15_000;
const RESTART_DELAY_MS = 1000;

async function runPrimary(config: Config) {
  const log = pino({ level: config.logLevel }, standardOutput());
  const { store, demo, notices } = await openMigrated(config, PRIMARY_POOL_SIZE);
  for (const notice of notices) log.warn(notice);
  // Every HTTP process must seal and unseal card data with the same key (a 3-D Secure step may end on another one).
  const env = { CARD_SEAL_KEY: config.cardSealKey.toString('hex') };
  const workers = workersHere(config.runWorkers);
  const answerHttpProcess = primary(store, workers.state);
  const fork = () => answerHttpProcess(cluster.fork(env));
  let stopping = false;
  let ready = false;

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!ready && signal === null) {
      // Failing on its own before the service was up is a configuration problem: restarting would only repeat it.
      log.fatal({ httpProcess: worker.process.pid, code }, 'an HTTP process could not start');
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.kill('SIGKILL');
      void store.close().finally(() => process.exit(1));
      return;
    }
    log.error({ httpProcess: worker.process.pid, code, signal }, 'an HTTP process ended; starting another');
    setTimeout(() => stopping || fork(), RESTART_DELAY_MS).unref();
  });
  // Up once as many processes listen as were asked for (a replacement for one killed meanwhile counts).
  await new Promise<void>((resolve) => {
    let listening = 0;
    cluster.on('listening', () => ++listening === config.httpProcesses && resolve());
    for (let i = 0; i < config.httpProcesses; i++) fork();
  });
  ready = true;
  log.info({ processes: config.httpProcesses, port: config.port }, 'listening');
  if (demo) process.stdout.write(demo);

  const stopWorkers = config.runWorkers ? startWorkers(config, buildPorts(config, store), log) : async () => {};
  workers.set('running');
  stopOn(['SIGTERM', 'SIGINT'], async (signal) => {
    stopping = true;
    workers.set('stopping');
    log.info({ signal }, 'stopping');
    await Promise.all(Object.values(cluster.workers ?? {}).map((worker) => stopHttpProcess(worker!)));
    await stopWorkers();
    await store.close();
  });
}

function stopHttpProcess(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    const force = setTimeout(() => worker.kill('SIGKILL'), STOP_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    worker.send('stop');
  });
}

async function runHttpProcess(config: Config) {
  let app: FastifyInstance | undefined;
  let store: Store | undefined;
  // Listening for the stop before anything else: the primary may stop a process that is still starting.
  const { trigger, stopping } = stopOn(['SIGTERM'], async (cause) => {
    app?.log.info({ cause }, 'stopping');
    await app?.close();
    await store?.close();
  });
  process.on('message', (message) => {
    if (message === 'stop') void trigger('primary');
  });
  // Ctrl-C reaches every process of the group: the primary decides and tells this one.
  process.on('SIGINT', () => {});
  // The primary is gone (killed): nothing would supervise or stop this process any more.
  process.on('disconnect', () => stopping() || process.exit(1));
  // The primary migrated and checkpoints; this process serves HTTP only.
  store = await openStore(config, { checkpoints: false });
  app = await buildServer(config, store, { cockpit: httpProcess(store) });
  if (!stopping()) await app.listen({ port: config.port, host: config.host });
}

try {
  const config = loadConfig();
  collectProcessMetrics();
  if (cluster.isWorker) await runHttpProcess(config);
  else if (config.httpProcesses > 1) await runPrimary(config);
  else await runSingleProcess(config);
} catch (error) {
  // What the operator must fix before Kassa can start (a setting, the disk) is one line, not a stack.
  if (!(error instanceof NotEnoughSpace) && !(error instanceof SettingError)) throw error;
  process.stderr.write(`kassa: ${error.message}\n`);
  process.exit(1);
}
