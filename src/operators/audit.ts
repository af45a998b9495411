/**
 * The audit trail (docs/console.md "Audit log"): who did what, allowed, refused or failed, to
 * which payment or subject, when, from where — the console's actions, sign-ins and sign-outs,
 * set-password links used, exports, views of the trail itself, and the `kassa` commands that
 * change something. Each entry is appended in its own unit of work (the table refuses edits,
 * 013_console) and written as one log line with `audit: true` for a central log
 * (docs/operations.md "Logs"). Neither ever holds a secret: callers pass what the action took
 * and answered, never a password, token or key.
 */
import type { Store } from '../store/store.ts';
import type { AuditLogRow, AuditOutcome } from '../store/schema.ts';
import { insertAuditEntry, listAuditEntries, type AuditFilter } from '../store/operators.ts';
import type { Operator } from './accounts.ts';

export type { AuditOutcome };
export const auditOutcomes: readonly AuditOutcome[] = ['allowed', 'refused', 'failed'];

/** Where an account's own action came from: the client address, and the logger its audit line goes to. */
export interface AuditFrom {
  address: string;
  log?: AuditLog;
}

/** Who acted, and from where. */
export interface Actor {
  /** The console account; '' for none (the command line, a sign-in that failed). */
  operatorId: string;
  /** The account's e-mail, the e-mail a sign-in was tried with, or `user@host` at the command line. */
  name: string;
  /** The client's address; the host's name at the command line. */
  address: string;
}

export const accountActor = (operator: Operator, address: string): Actor => ({ operatorId: operator.operatorId, name: operator.email, address });

export interface AuditEntry {
  action: string;
  /** `allowed` unless said. */
  outcome?: AuditOutcome;
  merchantId: string | null;
  /** The payment acted on. */
  reference?: string;
  /** What else the action was done to: a merchant, an account, an e-mail, a delivery. */
  subject?: string;
  /** The action's parameters and result; never a secret. */
  detail: Record<string, unknown>;
}

/** Where the log line goes: the server's pino logger, or the command line's. */
export interface AuditLog {
  info(fields: Record<string, unknown>, message: string): void;
}

/** An entry as it is read and shipped: the fields `kassa audit list --json` prints and the log line carries. */
export const auditRecord = (row: Omit<AuditLogRow, 'id'>) => ({
  at: new Date(row.at).toISOString(),
  actor: row.operator_email,
  action: row.action,
  outcome: row.outcome,
  subject: row.subject ?? row.reference,
  merchantId: row.merchant_id,
  reference: row.reference,
  address: row.address,
  detail: JSON.parse(row.detail) as Record<string, unknown>,
});

/**
 * Text as typed (an e-mail at a sign-in, a filter, a path) with its control characters shown as
 * U+FFFD: PostgreSQL's text holds no NUL, and a log line keeps to one line.
 */
export const printable = (text: string): string => Array.from(text, (c) => (c < ' ' || c === '\x7f' ? '\uFFFD' : c)).join('');

/** Appends an entry and writes its log line; `log` undefined only where no logger is at hand (a direct call of the operators' functions). */
export async function audit(store: Store, log: AuditLog | undefined, actor: Actor, entry: AuditEntry, now = Date.now()): Promise<void> {
  const row = {
    at: now,
    operator_id: actor.operatorId,
    operator_email: printable(actor.name),
    merchant_id: entry.merchantId,
    action: printable(entry.action),
    outcome: entry.outcome ?? 'allowed',
    reference: entry.reference ?? null,
    subject: entry.subject === undefined ? null : printable(entry.subject),
    detail: JSON.stringify(entry.detail),
    address: actor.address,
  } as const;
  await store.transact((db) => insertAuditEntry(db, row));
  log?.info({ audit: true, ...auditRecord(row) }, 'audit');
}

/** What the account may see: everything for a platform operator, its merchant's entries otherwise. */
export async function auditEntries(store: Store, operator: Operator, filter: Omit<AuditFilter, 'merchantId'>): Promise<AuditLogRow[]> {
  return listAuditEntries(store.read, { ...filter, ...(operator.merchantId === null ? {} : { merchantId: operator.merchantId }) });
}

/** Every entry, for the command line (`kassa audit list`). */
export const allAuditEntries = (store: Store, filter: Omit<AuditFilter, 'merchantId'>): Promise<AuditLogRow[]> => listAuditEntries(store.read, filter);
