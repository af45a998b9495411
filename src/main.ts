/**
 * Process entry: config → storage (migrated) → demo merchant on first start → HTTP
 * server → background workers. SIGTERM/SIGINT stop it cleanly: no new requests,
 * in-flight ones finish, workers stop, storage closes.
 */
import { loadConfig } from './config.ts';
import { openStore } from './store/store.ts';
import { buildServer } from './server.ts';
import { startWorkers } from './workers.ts';
import { ensureDemoMerchant } from './merchants/demo.ts';

const config = loadConfig();
const store = await openStore(config);
await store.migrate();
const app = await buildServer(config, store);
const demo = config.demoMerchant ? await ensureDemoMerchant(store, config) : undefined;
await app.listen({ port: config.port, host: config.host });
if (demo) process.stdout.write(demo);
const stopWorkers = config.runWorkers ? startWorkers(config, store, app.log) : async () => {};

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    await stopWorkers();
    await app.close();
    await store.close();
    process.exit(0);
  });
}
