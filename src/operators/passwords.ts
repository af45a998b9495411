/**
 * Console passwords: scrypt from node:crypto (RFC 7914), a memory-hard hash, with a random salt
 * per password. Stored as `scrypt$N$r$p$salt$hash` (base64) so the cost can be raised later
 * without breaking earlier hashes. Parameters N = 2^15, r = 8, p = 3: one of the equivalent
 * minimums of OWASP's Password Storage Cheat Sheet (32 MiB, three passes), lighter on memory
 * than N = 2^17, p = 1 when several sign-ins run at once.
 *
 * scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), where
 * the SQLite writer's fdatasync of each group commit runs too (docs/decisions.md "SQLite durability
 * without blocking the event loop"): a flood of sign-ins queued there held every payment's commit
 * behind it, for seconds. So a process runs at most PASSWORD_SLOTS password checks and hashes for
 * the console at once, and refuses more at once instead of queueing them (docs/console.md
 * "Signing in and sessions").
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
/** Leaves the thread pool's other threads to the database's flushes, whatever arrives. */
export const PASSWORD_SLOTS = 2;
/** What a busy answer asks the client to wait: a check takes less than that (0.7–0.8 s measured on a 2-core machine at a load of 13). */
export const BUSY_RETRY_AFTER_SECONDS = 1;

let slotsTaken = 0;

/** Runs `work` holding one of this process's PASSWORD_SLOTS; answers `'busy'` at once, without running it, when every slot is taken. */
export async function withPasswordSlot<T>(work: () => Promise<T>): Promise<T | 'busy'> {
  if (slotsTaken >= PASSWORD_SLOTS) return 'busy';
  slotsTaken++;
  try {
    return await work();
  } finally {
    slotsTaken--;
  }
}

const derive = (password: string, salt: Buffer, cost: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Compared in constant time. `null` (no password set, or no account) is checked against a dummy so it takes as long. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = (stored ?? DUMMY).split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected) && stored !== null;
}

/** A hash of no one's password, verified when the account is unknown so the answer's timing does not tell. */
const DUMMY = `scrypt$${COST.N}$${COST.r}$${COST.p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

/** Why a new password is refused by the rules that need no hash (PCI DSS v4.0 8.3.6: 12 characters, letters and digits), or undefined. */
export function passwordProblem(password: string): PasswordProblem | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return 'too_short';
  if (password.length > PASSWORD_MAX_LENGTH) return 'too_long';
  if (!/\p{L}/u.test(password)) return 'no_letter';
  if (!/\p{Nd}/u.test(password)) return 'no_digit';
  return undefined;
}

/** Why a new password is refused: a rule above, or `reused` (one of the account's last PASSWORDS_KEPT, PCI DSS v4.0 8.3.7). */
export type PasswordProblem = 'too_short' | 'too_long' | 'no_letter' | 'no_digit' | 'reused';

/** How many of an account's passwords are kept (their hashes), the current one included: a new one may be none of them. */
export const PASSWORDS_KEPT = 4;

/** Whether the password is one of these hashes'; checked one after the other, within the caller's password slot. */
export async function isOneOf(password: string, hashes: readonly string[]): Promise<boolean> {
  for (const hash of hashes) if (await verifyPassword(password, hash)) return true;
  return false;
}
