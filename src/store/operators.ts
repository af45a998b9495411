/** Console queries: operators (accounts), their sessions, password history (031_console_security), sign-in attempts (020_sign_in_attempts) and the audit log (013_console). */
import type { Db, Dialect } from './store.ts';
import type { Insertable } from 'kysely';
import type { AuditLogRow, AuditLogTable, AuditOutcome, OperatorRow } from './schema.ts';

export async function insertOperator(db: Db, row: OperatorRow): Promise<void> {
  await db.insertInto('operators').values(row).execute();
}

export async function findOperatorByEmail(db: Db, email: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findOperatorById(db: Db, id: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOperatorBySetPasswordHash(db: Db, hash: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('set_password_hash', '=', hash).executeTakeFirst();
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().orderBy('created').orderBy('id').execute();
}

/** Sets the password, spends any outstanding set-password token, and keeps the hash in the history with at most `kept` hashes in all. */
export async function setOperatorPassword(db: Db, operatorId: string, passwordHash: string, at: number, kept: number): Promise<void> {
  await db.updateTable('operators').set({ password_hash: passwordHash, set_password_hash: null, set_password_expires_at: null }).where('id', '=', operatorId).execute();
  await insertPasswordHistory(db, operatorId, passwordHash, at);
  const keptIds = db.selectFrom('password_history').select('id').where('operator_id', '=', operatorId).orderBy('id', 'desc').limit(kept);
  await db.deleteFrom('password_history').where('operator_id', '=', operatorId).where('id', 'not in', keptIds).execute();
}

export async function insertPasswordHistory(db: Db, operatorId: string, passwordHash: string, at: number): Promise<void> {
  await db.insertInto('password_history').values({ operator_id: operatorId, password_hash: passwordHash, set_at: at }).execute();
}

/** The account's kept password hashes, newest first. */
export async function passwordHistory(db: Db, operatorId: string): Promise<string[]> {
  const rows = await db.selectFrom('password_history').select('password_hash').where('operator_id', '=', operatorId).orderBy('id', 'desc').execute();
  return rows.map((row) => row.password_hash);
}

/** Gives the account a new set-password token (a reset link), replacing any outstanding one. */
export async function setSetPasswordToken(db: Db, operatorId: string, tokenHash: string, expiresAt: number): Promise<void> {
  await db.updateTable('operators').set({ set_password_hash: tokenHash, set_password_expires_at: expiresAt }).where('id', '=', operatorId).execute();
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

export async function insertSession(
  db: Db,
  row: { id_hash: string; operator_id: string; csrf_token: string; created: number; expires_at: number; last_used: number },
): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

/** The session with this id hash, unexpired and used since `idleSince`, with its account when that is not disabled. */
export async function findSession(db: Db, idHash: string, now: number, idleSince: number) {
  return db
    .selectFrom('console_sessions')
    .innerJoin('operators', 'operators.id', 'console_sessions.operator_id')
    .select(['console_sessions.id_hash', 'console_sessions.csrf_token', 'console_sessions.last_used', 'operators.id', 'operators.email', 'operators.merchant_id'])
    .where('console_sessions.id_hash', '=', idHash)
    .where('console_sessions.expires_at', '>', now)
    .where('console_sessions.last_used', '>', idleSince)
    .where('operators.disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function touchSession(db: Db, idHash: string, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ last_used: now }).where('id_hash', '=', idHash).execute();
}

/** Ends every session of the account, but the one with `keptIdHash` when given; answers how many ended. */
export async function deleteSessionsOf(db: Db, operatorId: string, keptIdHash?: string): Promise<number> {
  let query = db.deleteFrom('console_sessions').where('operator_id', '=', operatorId);
  if (keptIdHash !== undefined) query = query.where('id_hash', '!=', keptIdHash);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

/** Deletes up to `limit` sessions that have expired or gone unused since `idleSince`. */
export async function deleteExpiredSessions(db: Db, now: number, idleSince: number, limit: number): Promise<number> {
  const expired = db
    .selectFrom('console_sessions')
    .select('id_hash')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_used', '<=', idleSince)]))
    .limit(limit);
  const result = await db.deleteFrom('console_sessions').where('id_hash', 'in', expired).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface SignInWindow {
  attempts: number;
  window_started: number;
}

/**
 * Counts one sign-in attempt against `subject` and answers its window with the attempt in it; a
 * window that has ended starts again at `now`. One upsert: on PostgreSQL a concurrent one for the
 * same subject waits for this unit to end and then counts on top of it, on SQLite units run one
 * at a time, so no two attempts ever read the same count.
 */
export async function countSignInAttempt(db: Db, subject: string, now: number, windowMs: number): Promise<SignInWindow> {
  return db
    .insertInto('sign_in_attempts')
    .values({ subject, window_started: now, attempts: 1 })
    .onConflict((conflict) =>
      conflict.column('subject').doUpdateSet((eb) => {
        const ended = eb('sign_in_attempts.window_started', '<=', now - windowMs);
        return {
          attempts: eb
            .case()
            .when(ended)
            .then(1)
            .else(eb('sign_in_attempts.attempts', '+', 1))
            .end(),
          window_started: eb.case().when(ended).then(now).else(eb.ref('sign_in_attempts.window_started')).end(),
        };
      }),
    )
    .returning(['attempts', 'window_started'])
    .executeTakeFirstOrThrow();
}

/** Takes one attempt back from `subject`'s window, if that window is still the one it was counted in. */
export async function withdrawSignInAttempt(db: Db, subject: string, window: SignInWindow): Promise<void> {
  await db
    .updateTable('sign_in_attempts')
    .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
    .where('subject', '=', subject)
    .where('window_started', '=', window.window_started)
    .where('attempts', '>', 0)
    .execute();
}

/**
 * Locks the subject: its window starts again now, with `limit` attempts in it, so every further
 * attempt is over the limit until the window ends (operators/sessions.ts).
 */
export async function lockSignInSubject(db: Db, subject: string, now: number, limit: number): Promise<void> {
  await db.updateTable('sign_in_attempts').set({ window_started: now, attempts: limit }).where('subject', '=', subject).execute();
}

export async function clearSignInAttempts(db: Db, subject: string): Promise<void> {
  await db.deleteFrom('sign_in_attempts').where('subject', '=', subject).execute();
}

/**
 * Deletes up to `limit` windows that have ended. On PostgreSQL it takes their rows first and skips
 * those a unit holds: a sign-in's unit holds its account's row while it counts its address's
 * (operators/sessions.ts), and a purge waiting for the one while holding the other was a deadlock
 * (40P01); a window skipped goes at the next purge. On SQLite units run one at a time.
 */
export async function deleteEndedSignInWindows(db: Db, dialect: Dialect, startedBefore: number, limit: number): Promise<number> {
  let ended = db.selectFrom('sign_in_attempts').select('subject').where('window_started', '<=', startedBefore).limit(limit);
  if (dialect === 'postgres') ended = ended.forUpdate().skipLocked();
  const result = await db.deleteFrom('sign_in_attempts').where('subject', 'in', ended).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertAuditEntry(db: Db, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** Which audit entries to list: each field given narrows the list. */
export interface AuditFilter {
  merchantId?: string;
  reference?: string;
  /** The actor as stored (`operator_email`), exactly. */
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  /** Entries at or after this time (ms since the epoch). */
  since?: number;
  beforeId?: number;
  limit: number;
}

/** Newest first; entries older than `beforeId` for the next page. */
export async function listAuditEntries(db: Db, filter: AuditFilter): Promise<AuditLogRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  if (filter.actor !== undefined) query = query.where('operator_email', '=', filter.actor);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}
