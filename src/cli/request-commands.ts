/**
 * `kassa requests` (docs/api.md "Request log"): a merchant's latest merchant API requests made with
 * an API key, newest first, as the request log keeps them. Registered by kassa.ts.
 */
import { Command, InvalidArgumentError } from 'commander';
import { print, withStoreForReading } from './store.ts';
import { listRequestLog, type RequestLogRow } from '../store/request-log.ts';
import type { Mode } from '../store/schema.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

const describe = (row: RequestLogRow) =>
  [new Date(row.at).toISOString(), row.mode, row.key_prefix, row.method, row.route, row.status, `${row.duration_ms} ms`, row.request_id, row.problem_title ?? '']
    .join('  ')
    .trimEnd();

export function registerRequestCommands(program: Command, parseMode: (value: string) => Mode): void {
  program
    .command('requests')
    .description("list a merchant's latest API requests made with its keys (the request log), newest first; never bodies or query strings")
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--mode <mode>', 'test or live (default both)', parseMode)
    .option('--limit <n>', `at most this many requests (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`, (value) => {
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_LIMIT) throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIMIT}`);
      return Number(value);
    })
    .option('--json', 'print JSON')
    .action(({ merchant, mode, limit, json }: { merchant: string; mode?: Mode; limit?: number; json?: boolean }) =>
      withStoreForReading(async (store) => {
        const rows = await listRequestLog(store.read, { merchantId: merchant, ...(mode ? { mode } : {}) }, limit ?? DEFAULT_LIMIT);
        if (json) return print(JSON.stringify(rows));
        print(rows.length === 0 ? 'no requests in the request log' : rows.map(describe).join('\n'));
      }),
    );
}
