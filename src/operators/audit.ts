/**
 * The console's audit log (docs/console.md): every action an account takes — who, what, on
 * which payment, when, from which address — appended in its own unit of work once the action
 * is done or refused. The table refuses edits (013_console).
 */
import type { Store } from '../store/store.ts';
import type { AuditLogRow } from '../store/schema.ts';
import { insertAuditEntry, listAuditEntries } from '../store/operators.ts';
import type { Operator } from './accounts.ts';

export interface AuditEntry {
  action: string;
  merchantId: string | null;
  reference?: string;
  /** The action's parameters and result; never a secret. */
  detail: Record<string, unknown>;
  address: string;
}

export async function audit(store: Store, operator: Operator, entry: AuditEntry, now = Date.now()): Promise<void> {
  await store.transact((db) =>
    insertAuditEntry(db, {
      at: now,
      operator_id: operator.operatorId,
      operator_email: operator.email,
      merchant_id: entry.merchantId,
      action: entry.action,
      reference: entry.reference ?? null,
      detail: JSON.stringify(entry.detail),
      address: entry.address,
    }),
  );
}

/** What the account may see: everything for a platform operator, its merchant's entries otherwise. */
export async function auditEntries(store: Store, operator: Operator, filter: { reference?: string; beforeId?: number; limit: number }): Promise<AuditLogRow[]> {
  return listAuditEntries(store.read, { ...filter, ...(operator.merchantId === null ? {} : { merchantId: operator.merchantId }) });
}
