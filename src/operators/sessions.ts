/**
 * Signing in to the console, its server-side sessions and signing out (docs/console.md).
 * A session is a row in the database (the cookie holds a random id, the row its SHA-256), so it
 * survives a restart and works on every HTTP process; it ends CONSOLE_SESSION_LIFETIME after its
 * sign-in, after CONSOLE_IDLE_TIMEOUT unused, on sign-out (of this session, or of all the account's),
 * when the account's password is changed elsewhere, or when the account is disabled (PCI DSS v4.0
 * 8.2.8). Sign-in attempts are counted per account and per client
 * address in the database too (every process sees them), each one BEFORE its password is
 * checked, and it is checked only when the count including it is within the limit: however many
 * arrive at once, on however many processes, no more than the limit are ever checked in a window.
 * A successful sign-in clears its account's count and takes its attempt back from its address's,
 * so people signing in from one office are not throttled by their own successes. The failure
 * that brings an account's count to CONSOLE_LOCKOUT_ATTEMPTS locks it for CONSOLE_LOCKOUT_DURATION
 * (PCI DSS v4.0 8.3.4): every attempt is then answered as throttled, the right password too, as
 * for an address no account has (docs/console.md "Signing in and sessions").
 */
import type { Store } from '../store/store.ts';
import type { ConsoleSecurity } from '../config.ts';
import {
  clearSignInAttempts,
  countSignInAttempt,
  deleteSession,
  deleteSessionsOf,
  findOperatorByEmail,
  findSession,
  insertSession,
  lockSignInSubject,
  touchSession,
  withdrawSignInAttempt,
  type SignInWindow,
} from '../store/operators.ts';
import { randomBase62, sha256Hex } from '../lib/tokens.ts';
import { verifyPassword, withPasswordSlot } from './passwords.ts';
import { emailShaped, normalizeEmail, type Operator } from './accounts.ts';
import { accountActor, audit, type AuditFrom } from './audit.ts';

/** A client address's window: at most FAILURES_PER_ADDRESS attempts in it, whichever accounts they name. */
export const ADDRESS_WINDOW_MS = 15 * 60 * 1000;
export const FAILURES_PER_ADDRESS = 20;
/**
 * How stale a session's recorded last use may be. Writing it on every request would make every
 * console page a database write (on SQLite a commit behind the payments' own); once a minute is
 * enough for a timeout of minutes, and errs on the safe side: a session may end up to this much
 * before its idle timeout, never after.
 */
export const LAST_USE_PRECISION_MS = 60 * 1000;

export interface Session {
  operator: Operator;
  csrfToken: string;
}

/** `busy`: every password slot of this process was taken (passwords.ts); nothing was counted or checked. */
export type SignIn =
  | { outcome: 'signed-in'; sessionId: string; operator: Operator }
  | { outcome: 'refused' }
  | { outcome: 'throttled'; retryAfterSeconds: number }
  | { outcome: 'busy' };

type Counted = { subject: string; limit: number; windowMs: number; window: SignInWindow };

/** Seconds until every window over its limit has ended; 0 when none is over, and the password may be checked. */
function throttledFor(counted: Counted[], now: number): number {
  const over = counted.filter((c) => c.window.attempts > c.limit);
  return over.length === 0 ? 0 : Math.max(...over.map((c) => Math.ceil((c.window.window_started + c.windowMs - now) / 1000)));
}

export async function signIn(store: Store, security: ConsoleSecurity, attempt: { email: string; password: string } & AuditFrom, now = Date.now()): Promise<SignIn> {
  const email = normalizeEmail(attempt.email);
  // An address no account can have is counted against the client address only.
  const account = emailShaped(email) ? `account:${email}` : undefined;
  const address = `address:${attempt.address}`;
  const subjects = [
    ...(account ? [{ subject: account, limit: security.lockoutAttempts, windowMs: security.lockoutMs }] : []),
    { subject: address, limit: FAILURES_PER_ADDRESS, windowMs: ADDRESS_WINDOW_MS },
  ];
  const result = await withPasswordSlot(async (): Promise<SignIn> => {
    // One unit, the account's row before the address's in every unit, so two units never wait for each other's second row.
    const counted = await store.transact(async (db) => {
      const windows: Counted[] = [];
      for (const subject of subjects) windows.push({ ...subject, window: await countSignInAttempt(db, subject.subject, now, subject.windowMs) });
      return windows;
    });
    const retryAfterSeconds = throttledFor(counted, now);
    if (retryAfterSeconds > 0) return { outcome: 'throttled', retryAfterSeconds };
    const operator = account ? await findOperatorByEmail(store.read, email) : undefined;
    // An unknown account costs the same check (passwords.ts), so the answer's timing does not tell.
    const matches = await verifyPassword(attempt.password, operator?.password_hash ?? null);
    if (!account || !operator || !matches || operator.disabled_at !== null) {
      const accountWindow = counted[0].subject === account ? counted[0].window : undefined;
      // The failure that reaches the limit locks the account: its window starts again, so the lock lasts the whole duration from now.
      if (account && accountWindow?.attempts === security.lockoutAttempts) {
        await store.transact((db) => lockSignInSubject(db, account, now, security.lockoutAttempts));
        if (operator)
          await audit(
            store,
            attempt.log,
            { operatorId: operator.id, name: operator.email, address: attempt.address },
            {
              action: 'account_locked',
              merchantId: operator.merchant_id,
              subject: operator.email,
              detail: { failures: security.lockoutAttempts, until: now + security.lockoutMs },
            },
            now,
          );
      }
      return { outcome: 'refused' };
    }
    const sessionId = randomBase62(43);
    const addressWindow = counted.find((c) => c.subject === address)!.window;
    await store.transact(async (db) => {
      await clearSignInAttempts(db, account);
      await withdrawSignInAttempt(db, address, addressWindow);
      await insertSession(db, {
        id_hash: sha256Hex(sessionId),
        operator_id: operator.id,
        csrf_token: randomBase62(32),
        created: now,
        expires_at: now + security.sessionLifetimeMs,
        last_used: now,
      });
    });
    return { outcome: 'signed-in', sessionId, operator: { operatorId: operator.id, email: operator.email, merchantId: operator.merchant_id } };
  });
  return result === 'busy' ? { outcome: 'busy' } : result;
}

/** The live session with this id, its last use moved to now when the one recorded is older than LAST_USE_PRECISION_MS. */
export async function sessionOf(store: Store, security: ConsoleSecurity, sessionId: string, now = Date.now()): Promise<Session | undefined> {
  const idHash = sha256Hex(sessionId);
  const row = await findSession(store.read, idHash, now, now - security.idleTimeoutMs);
  if (!row) return undefined;
  if (now - row.last_used >= LAST_USE_PRECISION_MS) await store.transact((db) => touchSession(db, idHash, now));
  return { operator: { operatorId: row.id, email: row.email, merchantId: row.merchant_id }, csrfToken: row.csrf_token };
}

export async function signOut(store: Store, sessionId: string): Promise<void> {
  await store.transact((db) => deleteSession(db, sha256Hex(sessionId)));
}

/** Ends every session of the account, this one included ("Sign out everywhere"), audited. */
export async function signOutEverywhere(store: Store, operator: Operator, from: AuditFrom, now = Date.now()): Promise<void> {
  const ended = await store.transact((db) => deleteSessionsOf(db, operator.operatorId));
  await audit(
    store,
    from.log,
    accountActor(operator, from.address),
    { action: 'sign_out_everywhere', merchantId: operator.merchantId, subject: operator.email, detail: { sessions: ended } },
    now,
  );
}
