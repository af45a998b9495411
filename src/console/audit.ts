/**
 * The console's part of the audit trail (docs/console.md "Audit log"): the audit log page (what
 * was done, newest first, a page at a time, filtered by who, what and outcome; a merchant's account
 * sees its own merchant's), whose every view is itself audited; the entries of signing in and out
 * and of a set-password link used; and every change refused with a problem before its route could
 * write its own entry. The actions write theirs (payment-actions.ts, settings.ts, export.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../ground/problem.ts';
import type { Store } from '../store/store.ts';
import { accountActor, audit, auditEntries, auditOutcomes, printable, type AuditOutcome } from '../operators/audit.ts';
import { normalizeEmail } from '../operators/accounts.ts';
import type { SignIn } from '../operators/sessions.ts';
import { PAGE_SIZE, type ConsoleContext, type Query } from './context.ts';
import { auditPage, type AuditFilters } from './views.ts';

/** The longest e-mail an entry keeps of a sign-in: what was typed could be anything. */
const EMAIL_KEPT = 320;

/** The filters given, each as typed; an outcome only when it is one. */
function auditFilters(query: Query): AuditFilters {
  const given = (value: string | undefined) => (value?.trim() ? printable(value.trim()) : undefined);
  const outcome = auditOutcomes.find((o) => o === query.outcome);
  return { actor: given(query.actor), action: given(query.action), outcome };
}

export function auditRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get<{ Querystring: Query }>('/dashboard/audit', async (request, reply) => {
    const session = request.consoleSession;
    const view = viewOf(request, session);
    const before = Number(request.query.before);
    const filters = auditFilters(request.query);
    const entries = await auditEntries(store, session.operator, {
      ...filters,
      limit: PAGE_SIZE,
      ...(Number.isSafeInteger(before) && before > 0 ? { beforeId: before } : {}),
    });
    await audit(store, request.log, accountActor(session.operator, request.ip), {
      action: 'view_audit',
      merchantId: session.operator.merchantId,
      detail: { ...filters, ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}) },
    });
    const shown = new URLSearchParams(Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined));
    if (entries.length === PAGE_SIZE) shown.set('before', String(entries[PAGE_SIZE - 1].id));
    return send(reply, view, auditPage(view, entries, filters, entries.length === PAGE_SIZE ? shown.toString() : undefined));
  });
}

/** A change refused with a problem its route did not catch (a transaction or merchant the account may not see, say). */
export function auditRefusals(app: FastifyInstance, { store }: ConsoleContext) {
  app.addHook('onError', async (request, _reply, error) => {
    if (request.method !== 'POST' || !(error instanceof Problem)) return;
    const operator = request.consoleSession.operator;
    const params = request.params as Record<string, string | undefined>;
    await audit(store, request.log, accountActor(operator, request.ip), {
      action: (request.routeOptions.url ?? request.url).split('/').pop()!,
      outcome: 'refused',
      merchantId: operator.merchantId,
      subject: params.reference ?? params.merchantId ?? params.id,
      detail: { refused: error.detail ?? error.title },
    });
  });
}

/** A form the console refused because its token was missing or stale (sign-in.ts). */
export async function auditFormRefused(store: Store, request: FastifyRequest): Promise<void> {
  const operator = request.consoleSession.operator;
  await audit(store, request.log, accountActor(operator, request.ip), {
    action: (request.routeOptions.url ?? request.url).split('/').pop()!,
    outcome: 'refused',
    merchantId: operator.merchantId,
    detail: { refused: 'form token missing or stale' },
  });
}

/**
 * A sign-in, as the page answered it. A failure is the same entry whether the account exists or
 * not (no account id, the e-mail as typed), as the page is the same (docs/console.md "Signing in
 * and sessions"); never the password.
 */
export async function auditSignIn(store: Store, request: FastifyRequest, email: string, result: SignIn): Promise<void> {
  const typed = normalizeEmail(email).slice(0, EMAIL_KEPT);
  if (result.outcome === 'signed-in') {
    const { operator } = result;
    await audit(store, request.log, accountActor(operator, request.ip), { action: 'sign_in', merchantId: operator.merchantId, subject: operator.email, detail: {} });
    return;
  }
  const outcome: AuditOutcome = result.outcome === 'throttled' ? 'refused' : 'failed';
  await audit(
    store,
    request.log,
    { operatorId: '', name: typed, address: request.ip },
    { action: 'sign_in', outcome, merchantId: null, subject: typed, detail: { result: result.outcome } },
  );
}

export async function auditSignOut(store: Store, request: FastifyRequest): Promise<void> {
  const operator = request.consoleSession.operator;
  await audit(store, request.log, accountActor(operator, request.ip), { action: 'sign_out', merchantId: operator.merchantId, subject: operator.email, detail: {} });
}
