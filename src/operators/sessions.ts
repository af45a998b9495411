/**
 * Signing in to the console, its server-side sessions and signing out (docs/console.md).
 * A session is a row in the database (the cookie holds a random id, the row its SHA-256), so it
 * survives a restart and works on every HTTP process; it ends after SESSION_TTL_MS, on sign-out,
 * or when the account is disabled. Failed sign-ins are counted per account and per client
 * address in the database too (every process sees them): past the limit, sign-in is refused
 * without checking the password until the window has passed.
 */
import type { Store } from '../store/store.ts';
import { clearSignInFailures, countSignInFailures, deleteSession, findOperatorByEmail, findSession, insertSession, insertSignInFailures } from '../store/operators.ts';
import { randomBase62, sha256Hex } from '../lib/tokens.ts';
import { verifyPassword } from './passwords.ts';
import { emailShaped, normalizeEmail } from './accounts.ts';

export const SESSION_TTL_MS = 8 * 3600 * 1000;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const FAILURES_PER_ACCOUNT = 5;
export const FAILURES_PER_ADDRESS = 20;

/** Who is signed in: the account, and the merchant it is limited to (null: a platform operator). */
export interface Operator {
  operatorId: string;
  email: string;
  merchantId: string | null;
}

export interface Session {
  operator: Operator;
  csrfToken: string;
}

export type SignIn = { outcome: 'signed-in'; sessionId: string } | { outcome: 'refused' } | { outcome: 'throttled' };

export async function signIn(store: Store, attempt: { email: string; password: string; address: string }, now = Date.now()): Promise<SignIn> {
  const email = normalizeEmail(attempt.email);
  // An address no account can have is counted against the client address only.
  const subjects = emailShaped(email) ? [`account:${email}`, `address:${attempt.address}`] : [`address:${attempt.address}`];
  const since = now - FAILURE_WINDOW_MS;
  const counts = await Promise.all(subjects.map((subject) => countSignInFailures(store.read, subject, since)));
  const limits = subjects.map((subject) => (subject.startsWith('account:') ? FAILURES_PER_ACCOUNT : FAILURES_PER_ADDRESS));
  if (counts.some((count, i) => count >= limits[i])) return { outcome: 'throttled' };
  const operator = emailShaped(email) ? await findOperatorByEmail(store.read, email) : undefined;
  const matches = await verifyPassword(attempt.password, operator?.password_hash ?? null);
  if (!operator || !matches || operator.disabled_at !== null) {
    await store.transact((db) => insertSignInFailures(db, subjects, now));
    return { outcome: 'refused' };
  }
  const sessionId = randomBase62(43);
  await store.transact(async (db) => {
    await clearSignInFailures(db, `account:${email}`);
    await insertSession(db, { id_hash: sha256Hex(sessionId), operator_id: operator.id, csrf_token: randomBase62(32), created: now, expires_at: now + SESSION_TTL_MS });
  });
  return { outcome: 'signed-in', sessionId };
}

export async function sessionOf(store: Store, sessionId: string, now = Date.now()): Promise<Session | undefined> {
  const row = await findSession(store.read, sha256Hex(sessionId), now);
  return row && { operator: { operatorId: row.id, email: row.email, merchantId: row.merchant_id }, csrfToken: row.csrf_token };
}

export async function signOut(store: Store, sessionId: string): Promise<void> {
  await store.transact((db) => deleteSession(db, sha256Hex(sessionId)));
}
