/**
 * Setting a password on an account that exists (docs/console.md "Passwords"): through a
 * set-password link, by the signed-in person changing their own, and the reset link that
 * `kassa operator reset-password` hands out. A new password keeps the rules of passwords.ts and is
 * none of the account's last PASSWORDS_KEPT (their hashes are kept, PCI DSS v4.0 8.3.7); every
 * change ends the account's other sessions and is audited. The hashes checked run in one password
 * slot (passwords.ts): `'busy'` when every slot of this process is taken.
 */
import type { Store } from '../store/store.ts';
import type { OperatorRow } from '../store/schema.ts';
import { deleteSessionsOf, findOperatorByEmail, findOperatorById, passwordHistory, setOperatorPassword, setSetPasswordToken } from '../store/operators.ts';
import { randomBase62, sha256Hex } from '../lib/tokens.ts';
import { Problem } from '../ground/problem.ts';
import { hashPassword, isOneOf, passwordProblem, verifyPassword, withPasswordSlot, PASSWORDS_KEPT, type PasswordProblem } from './passwords.ts';
import { normalizeEmail, setPasswordUrlOf, SET_PASSWORD_TTL_MS, type Operator } from './accounts.ts';
import { audit, type AuditFrom } from './audit.ts';

export type PasswordChange = { outcome: 'set' } | { outcome: 'refused'; problem: PasswordProblem | 'wrong_current' } | { outcome: 'busy' };

/**
 * Sets `password` on the account unless a rule refuses it, or `current` (when given) is not its
 * password now; then ends its sessions but `keptSessionIdHash`'s, and audits the change.
 */
async function setNewPassword(
  store: Store,
  account: OperatorRow,
  change: { password: string; current?: string; keptSessionIdHash?: string; action: string; from: AuditFrom },
  now: number,
): Promise<PasswordChange> {
  const ruleBroken = passwordProblem(change.password);
  if (ruleBroken) return { outcome: 'refused', problem: ruleBroken };
  const result = await withPasswordSlot(async (): Promise<PasswordChange | string> => {
    if (change.current !== undefined && !(await verifyPassword(change.current, account.password_hash))) return { outcome: 'refused', problem: 'wrong_current' };
    if (await isOneOf(change.password, await passwordHistory(store.read, account.id))) return { outcome: 'refused', problem: 'reused' };
    return hashPassword(change.password);
  });
  if (result === 'busy') return { outcome: 'busy' };
  if (typeof result !== 'string') return result;
  const ended = await store.transact(async (db) => {
    await setOperatorPassword(db, account.id, result, now, PASSWORDS_KEPT);
    return deleteSessionsOf(db, account.id, change.keptSessionIdHash);
  });
  await audit(
    store,
    change.from.log,
    { operatorId: account.id, name: account.email, address: change.from.address },
    { action: change.action, merchantId: account.merchant_id, subject: account.email, detail: { sessionsEnded: ended } },
    now,
  );
  return { outcome: 'set' };
}

/** Sets the password through the link, which is spent by it; the account's sessions end (a link may answer a forgotten or leaked password). */
export function setPasswordWithLink(store: Store, account: OperatorRow, password: string, from: AuditFrom, now = Date.now()): Promise<PasswordChange> {
  return setNewPassword(store, account, { password, action: 'set_password', from }, now);
}

/** The signed-in person changes their own password, giving the current one; their other sessions end, this one goes on. */
export async function changeOwnPassword(
  store: Store,
  session: { operator: Operator; idHash: string },
  passwords: { current: string; password: string },
  from: AuditFrom,
  now = Date.now(),
): Promise<PasswordChange> {
  const account = await findOperatorById(store.read, session.operator.operatorId);
  if (!account) throw new Problem('notFound', 'No such account.');
  return setNewPassword(store, account, { ...passwords, keptSessionIdHash: session.idHash, action: 'change_password', from }, now);
}

/**
 * A new one-time set-password link for an account (`kassa operator reset-password`), replacing any
 * outstanding one; the current password works until the link is used. Audited as done from the
 * command line.
 */
export async function issueSetPasswordLink(store: Store, email: string, publicUrl: string, now = Date.now()): Promise<string> {
  const account = await findOperatorByEmail(store.read, normalizeEmail(email));
  if (!account || account.disabled_at !== null) throw new Problem('invalidSetting', `no active account with e-mail ${normalizeEmail(email)}`);
  const token = `sp_${randomBase62(43)}`;
  await store.transact((db) => setSetPasswordToken(db, account.id, sha256Hex(token), now + SET_PASSWORD_TTL_MS));
  await audit(
    store,
    undefined,
    { operatorId: account.id, name: account.email, address: 'command line' },
    { action: 'reset_password_link', merchantId: account.merchant_id, subject: account.email, detail: { by: 'command line' } },
    now,
  );
  return setPasswordUrlOf(publicUrl, token);
}
