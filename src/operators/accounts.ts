/**
 * Console accounts (docs/console.md): a platform operator (no merchant: sees and acts on every
 * merchant) or a merchant's user (that merchant only). Made and disabled with `kassa operator`;
 * the password is set by the person through a one-time link, or read from standard input.
 */
import type { Store } from '../store/store.ts';
import type { OperatorRow } from '../store/schema.ts';
import { findMerchant } from '../store/merchants.ts';
import { disableOperator, findOperatorByEmail, findOperatorBySetPasswordHash, insertOperator, insertPasswordHistory, listOperators } from '../store/operators.ts';
import { randomBase62, sha256Hex } from '../lib/tokens.ts';
import { Problem } from '../ground/problem.ts';
import { hashPassword, passwordProblem, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORDS_KEPT, type PasswordProblem } from './passwords.ts';

/** How long a set-password link works. */
export const SET_PASSWORD_TTL_MS = 7 * 24 * 3600 * 1000;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
/** Whether a (normalized) address could be an account's; anything else is never looked up (PostgreSQL refuses text with NUL). */
export const emailShaped = (email: string) => EMAIL.test(email) && !email.includes('\0');
export const setPasswordUrlOf = (publicUrl: string, token: string) => `${publicUrl}/dashboard/set-password/${token}`;

/** Who is signed in: the account, and the merchant it is limited to (null: a platform operator). */
export interface Operator {
  operatorId: string;
  email: string;
  merchantId: string | null;
}

export interface CreatedOperator {
  operatorId: string;
  email: string;
  /** The one-time link, when no password was given. */
  setPasswordUrl?: string;
}

export async function createOperator(
  store: Store,
  account: { email: string; merchantId?: string; password?: string; publicUrl: string },
  now = Date.now(),
): Promise<CreatedOperator> {
  const email = normalizeEmail(account.email);
  if (!emailShaped(email)) throw new Problem('invalidSetting', '--email must be an e-mail address');
  if (account.password !== undefined) refuseWeak(passwordProblem(account.password));
  const token = account.password === undefined ? `sp_${randomBase62(43)}` : undefined;
  const row: OperatorRow = {
    id: `op_${randomBase62(16)}`,
    email,
    merchant_id: account.merchantId ?? null,
    password_hash: account.password === undefined ? null : await hashPassword(account.password),
    set_password_hash: token ? sha256Hex(token) : null,
    set_password_expires_at: token ? now + SET_PASSWORD_TTL_MS : null,
    created: now,
    disabled_at: null,
  };
  await store.transact(async (db) => {
    if (account.merchantId !== undefined && !(await findMerchant(db, account.merchantId)))
      throw new Problem('invalidSetting', `no merchant with id ${account.merchantId}`);
    if (await findOperatorByEmail(db, email)) throw new Problem('invalidSetting', `an account with e-mail ${email} exists already`);
    await insertOperator(db, row);
    if (row.password_hash !== null) await insertPasswordHistory(db, row.id, row.password_hash, now);
  });
  return { operatorId: row.id, email, ...(token ? { setPasswordUrl: setPasswordUrlOf(account.publicUrl, token) } : {}) };
}

export interface OperatorView {
  operatorId: string;
  email: string;
  merchantId: string | null;
  created: number;
  disabled: boolean;
  passwordSet: boolean;
}

export async function operatorsOf(store: Store): Promise<OperatorView[]> {
  return (await listOperators(store.read)).map((row) => ({
    operatorId: row.id,
    email: row.email,
    merchantId: row.merchant_id,
    created: row.created,
    disabled: row.disabled_at !== null,
    passwordSet: row.password_hash !== null,
  }));
}

/** Disables the account for good and ends its sessions at once. */
export async function disableAccount(store: Store, email: string, now = Date.now()): Promise<void> {
  const found = await store.transact((db) => disableOperator(db, normalizeEmail(email), now));
  if (!found) throw new Problem('invalidSetting', `no account with e-mail ${normalizeEmail(email)}`);
}

/** The account a set-password link is for, while the link is unused and unexpired. */
export async function setPasswordAccount(store: Store, token: string, now = Date.now()): Promise<OperatorRow | undefined> {
  const row = await findOperatorBySetPasswordHash(store.read, sha256Hex(token));
  return row && row.disabled_at === null && (row.set_password_expires_at ?? 0) > now ? row : undefined;
}

/** What each password rule says, for the command line (the console has its own words, console/messages/). */
const RULES: Record<PasswordProblem, string> = {
  too_short: `the password must be at least ${PASSWORD_MIN_LENGTH} characters`,
  too_long: `the password must be at most ${PASSWORD_MAX_LENGTH} characters`,
  no_letter: 'the password must contain a letter',
  no_digit: 'the password must contain a digit',
  reused: `the password must not be one of the account's last ${PASSWORDS_KEPT}`,
};

/** Refuses a password that breaks a rule, naming it. */
export function refuseWeak(problem: PasswordProblem | undefined): void {
  if (problem) throw new Problem('invalidSetting', RULES[problem]);
}
