/** Console queries: operators (accounts), their sessions, failed sign-ins and the audit log (013_console). */
import type { Db } from './store.ts';
import type { AuditLogRow, OperatorRow } from './schema.ts';

export async function insertOperator(db: Db, row: OperatorRow): Promise<void> {
  await db.insertInto('operators').values(row).execute();
}

export async function findOperatorByEmail(db: Db, email: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findOperatorBySetPasswordHash(db: Db, hash: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('set_password_hash', '=', hash).executeTakeFirst();
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().orderBy('created').orderBy('id').execute();
}

/** Sets the password and spends any outstanding set-password token. */
export async function setOperatorPassword(db: Db, operatorId: string, passwordHash: string): Promise<void> {
  await db.updateTable('operators').set({ password_hash: passwordHash, set_password_hash: null, set_password_expires_at: null }).where('id', '=', operatorId).execute();
}

/** Disables the account and ends its sessions; false when there is no such account. */
export async function disableOperator(db: Db, email: string, at: number): Promise<boolean> {
  const operator = await findOperatorByEmail(db, email);
  if (!operator) return false;
  await db
    .updateTable('operators')
    .set({ disabled_at: operator.disabled_at ?? at, set_password_hash: null, set_password_expires_at: null })
    .where('id', '=', operator.id)
    .execute();
  await db.deleteFrom('console_sessions').where('operator_id', '=', operator.id).execute();
  return true;
}

export async function insertSession(db: Db, row: { id_hash: string; operator_id: string; csrf_token: string; created: number; expires_at: number }): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

/** The unexpired session with this id hash, with its account when that is not disabled. */
export async function findSession(db: Db, idHash: string, now: number) {
  return db
    .selectFrom('console_sessions')
    .innerJoin('operators', 'operators.id', 'console_sessions.operator_id')
    .select(['console_sessions.id_hash', 'console_sessions.csrf_token', 'console_sessions.expires_at', 'operators.id', 'operators.email', 'operators.merchant_id'])
    .where('console_sessions.id_hash', '=', idHash)
    .where('console_sessions.expires_at', '>', now)
    .where('operators.disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessions(db: Db, now: number, limit: number): Promise<number> {
  const expired = db.selectFrom('console_sessions').select('id_hash').where('expires_at', '<=', now).limit(limit);
  const result = await db.deleteFrom('console_sessions').where('id_hash', 'in', expired).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertSignInFailures(db: Db, subjects: string[], at: number): Promise<void> {
  await db
    .insertInto('sign_in_failures')
    .values(subjects.map((subject) => ({ subject, at })))
    .execute();
}

export async function countSignInFailures(db: Db, subject: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('subject', '=', subject)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function clearSignInFailures(db: Db, subject: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('subject', '=', subject).execute();
}

export async function deleteOldSignInFailures(db: Db, before: number, limit: number): Promise<number> {
  const old = db.selectFrom('sign_in_failures').select('id').where('at', '<=', before).limit(limit);
  const result = await db.deleteFrom('sign_in_failures').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertAuditEntry(db: Db, row: Omit<AuditLogRow, 'id'>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** Newest first; a merchant's entries only when `merchantId` is given; entries older than `beforeId` for the next page. */
export async function listAuditEntries(db: Db, filter: { merchantId?: string; reference?: string; beforeId?: number; limit: number }): Promise<AuditLogRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}
