/**
 * Signing in to the console, its server-side sessions and signing out (docs/console.md).
 * A session is a row in the database (the cookie holds a random id, the row its SHA-256), so it
 * survives a restart and works on every HTTP process; it ends after SESSION_TTL_MS, on sign-out,
 * or when the account is disabled. Sign-in attempts are counted per account and per client
 * address in the database too (every process sees them), each one BEFORE its password is
 * checked, and it is checked only when the count including it is within the limit: however many
 * arrive at once, on however many processes, no more than the limit are ever checked in a window.
 * A successful sign-in clears its account's count and takes its attempt back from its address's,
 * so people signing in from one office are not throttled by their own successes.
 */
import type { Store } from '../store/store.ts';
import {
  clearSignInAttempts,
  countSignInAttempt,
  deleteSession,
  findOperatorByEmail,
  findSession,
  insertSession,
  withdrawSignInAttempt,
  type SignInWindow,
} from '../store/operators.ts';
import { randomBase62, sha256Hex } from '../lib/tokens.ts';
import { verifyPassword, withPasswordSlot } from './passwords.ts';
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

/** `busy`: every password slot of this process was taken (passwords.ts); nothing was counted or checked. */
export type SignIn = { outcome: 'signed-in'; sessionId: string } | { outcome: 'refused' } | { outcome: 'throttled'; retryAfterSeconds: number } | { outcome: 'busy' };

type Counted = { subject: string; limit: number; window: SignInWindow };

/** Seconds until every window over its limit has ended; 0 when none is over, and the password may be checked. */
function throttledFor(counted: Counted[], now: number): number {
  const over = counted.filter((c) => c.window.attempts > c.limit);
  return over.length === 0 ? 0 : Math.max(...over.map((c) => Math.ceil((c.window.window_started + FAILURE_WINDOW_MS - now) / 1000)));
}

export async function signIn(store: Store, attempt: { email: string; password: string; address: string }, now = Date.now()): Promise<SignIn> {
  const email = normalizeEmail(attempt.email);
  // An address no account can have is counted against the client address only.
  const account = emailShaped(email) ? `account:${email}` : undefined;
  const address = `address:${attempt.address}`;
  const subjects = [...(account ? [{ subject: account, limit: FAILURES_PER_ACCOUNT }] : []), { subject: address, limit: FAILURES_PER_ADDRESS }];
  const result = await withPasswordSlot(async (): Promise<SignIn> => {
    // One unit, the account's row before the address's in every unit, so two units never wait for each other's second row.
    const counted = await store.transact(async (db) => {
      const windows: Counted[] = [];
      for (const { subject, limit } of subjects) windows.push({ subject, limit, window: await countSignInAttempt(db, subject, now, FAILURE_WINDOW_MS) });
      return windows;
    });
    const retryAfterSeconds = throttledFor(counted, now);
    if (retryAfterSeconds > 0) return { outcome: 'throttled', retryAfterSeconds };
    const operator = account ? await findOperatorByEmail(store.read, email) : undefined;
    // An unknown account costs the same check (passwords.ts), so the answer's timing does not tell.
    const matches = await verifyPassword(attempt.password, operator?.password_hash ?? null);
    if (!account || !operator || !matches || operator.disabled_at !== null) return { outcome: 'refused' };
    const sessionId = randomBase62(43);
    const addressWindow = counted.find((c) => c.subject === address)!.window;
    await store.transact(async (db) => {
      await clearSignInAttempts(db, account);
      await withdrawSignInAttempt(db, address, addressWindow);
      await insertSession(db, { id_hash: sha256Hex(sessionId), operator_id: operator.id, csrf_token: randomBase62(32), created: now, expires_at: now + SESSION_TTL_MS });
    });
    return { outcome: 'signed-in', sessionId };
  });
  return result === 'busy' ? { outcome: 'busy' } : result;
}

export async function sessionOf(store: Store, sessionId: string, now = Date.now()): Promise<Session | undefined> {
  const row = await findSession(store.read, sha256Hex(sessionId), now);
  return row && { operator: { operatorId: row.id, email: row.email, merchantId: row.merchant_id }, csrfToken: row.csrf_token };
}

export async function signOut(store: Store, sessionId: string): Promise<void> {
  await store.transact((db) => deleteSession(db, sha256Hex(sessionId)));
}
