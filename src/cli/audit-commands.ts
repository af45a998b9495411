/**
 * `kassa audit list` (docs/console.md "Audit log"): the audit trail, newest first, every merchant's
 * and the command line's. Reading it is itself audited, as a view of the console's audit page is.
 * Registered by kassa.ts.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { parseIsoDuration } from '../lib/duration.ts';
import { allAuditEntries, audit, auditOutcomes, auditRecord, type AuditOutcome } from '../operators/audit.ts';
import { commandLineActor, commandLineLog, print, withStoreForReading } from './store.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

/** `--since`: an ISO 8601 time (`2026-11-01T00:00:00Z`) or a duration back from now (`P7D`, `PT1H`). */
export function parseSince(value: string, now = Date.now()): number {
  const duration = parseIsoDuration(value);
  if (duration !== undefined) return now - duration;
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new InvalidArgumentError('must be an ISO 8601 time (2026-11-01T00:00:00Z) or duration (P7D, PT1H)');
  return at;
}

const parseOutcome = (value: string): AuditOutcome => {
  const outcome = auditOutcomes.find((o) => o === value);
  if (!outcome) throw new InvalidArgumentError(`must be one of ${auditOutcomes.join(', ')}`);
  return outcome;
};

const parseLimit = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_LIMIT) throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIMIT}`);
  return Number(value);
};

type ListOptions = { since?: number; actor?: string; action?: string; outcome?: AuditOutcome; limit?: number; json?: boolean };

export function registerAuditCommands(program: Command): void {
  program
    .command('audit')
    .description('read the audit trail')
    .command('list')
    .description('list audit entries, newest first: who did what, allowed, refused or failed, to what, when and from where')
    .option('--since <time>', 'only entries at or after this ISO 8601 time, or this ISO 8601 duration ago (P7D, PT1H)', (value) => parseSince(value))
    .option('--actor <actor>', 'only entries of this actor (an e-mail, or user@host for the command line)')
    .option('--action <action>', 'only entries of this action')
    .option('--outcome <outcome>', auditOutcomes.join(', '), parseOutcome)
    .option('--limit <n>', `at most this many entries (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`, parseLimit)
    .option('--json', 'print one JSON object per line (JSON Lines)')
    .action(({ since, actor, action, outcome, limit, json }: ListOptions) =>
      withStoreForReading(async (store) => {
        const filter = { since, actor, action, outcome };
        const rows = await allAuditEntries(store, { ...filter, limit: limit ?? DEFAULT_LIMIT });
        await audit(store, commandLineLog, commandLineActor(), {
          action: 'kassa audit list',
          merchantId: null,
          detail: Object.fromEntries(
            Object.entries({ ...filter, since: since === undefined ? undefined : new Date(since).toISOString() }).filter(([, v]) => v !== undefined),
          ),
        });
        const records = rows.map(auditRecord);
        if (json) return records.forEach((record) => print(JSON.stringify(record)));
        if (records.length === 0) return print('no audit entries');
        for (const r of records)
          print(`${r.at}  ${r.outcome.padEnd(7)}  ${r.actor}  ${r.action}${r.subject ? `  ${r.subject}` : ''}  from ${r.address}  ${JSON.stringify(r.detail)}`);
      }),
    );
}
