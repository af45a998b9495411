/**
 * The console at PUBLIC_URL/dashboard (docs/console.md): sign-in, the payments list and search,
 * one transaction with its actions, the audit log; settings.ts, overview.ts, export.ts and request-log.ts add
 * their pages to the signed-in scope. Server-rendered HTML with the customer pages'
 * strict CSP and no scripts. A session is a random id in an HttpOnly, SameSite=Strict cookie
 * (Secure when PUBLIC_URL is https) kept in the database (operators/sessions.ts); every POST
 * carries the session's synchronizer token, and the sign-in and set-password forms, before
 * there is a session, a token the secrets key derives from a random pre-session cookie. A
 * merchant's account sees and acts on its own merchant only: anything else is answered as not
 * found.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { TransactionRow } from '../store/schema.ts';
import { eventsOf, findTransaction } from '../store/transactions.ts';
import { findPaymentPage } from '../store/payment-pages.ts';
import { findDelivery } from '../store/webhooks.ts';
import { childrenOf, listTransactions } from '../store/transaction-list.ts';
import { deliveriesOf, redeliver, TEST_WEBHOOK_PREFIX } from '../events/admin.ts';
import { paymentMerchant } from '../merchants/merchants.ts';
import { Problem } from '../ground/problem.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import { failureCodes } from '../ground/states.ts';
import { formTokenOf, identifierShaped, randomBase62 } from '../lib/tokens.ts';
import { crossSite, csrfValid, field, newNonce, sendPage, type Form } from '../lib/page-security.ts';
import { serializePayment } from '../payments/serialize.ts';
import { sessionOf, signIn, signOut, SESSION_TTL_MS, type Session } from '../operators/sessions.ts';
import { setPasswordAccount, setPasswordWithLink } from '../operators/accounts.ts';
import { passwordProblem, BUSY_RETRY_AFTER_SECONDS, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../operators/passwords.ts';
import { audit, auditEntries } from '../operators/audit.ts';
import { consoleTranslator, type MessageKey } from './i18n.ts';
import { actionNames, actions, offeredActions, paidByTransfer, testDisputeStages, type ActionContext, type ActionName } from './actions.ts';
import type { Preview } from '../payments/operations/preview.ts';
import { settingsRoutes } from './settings.ts';
import { exportRoutes } from './export.ts';
import { merchantChoices, pageQuery, parseFilters } from './filters.ts';
import type { Query } from './context.ts';
import { overviewRoutes } from './overview.ts';
import { requestLogRoutes } from './request-log.ts';
import { shownPayment } from './capabilities.ts';
import { auditPage, confirmPage, messagePage, paymentPage, paymentsPage, setPasswordPage, signInPage, type ConsoleView } from './views.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: Session & { id: string };
  }
}

interface Deps {
  config: Config;
  store: Store;
}

const SESSION_COOKIE = 'kassa_console';
const FORM_COOKIE = 'kassa_console_form';
const PAGE_SIZE = 50;

export async function consoleRoutes(app: FastifyInstance, { config, store }: Deps) {
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  const { ports } = app;
  const cookieOptions = { path: '/dashboard', httpOnly: true, sameSite: 'strict', secure: config.publicUrl.startsWith('https:') } as const;

  const viewOf = (request: FastifyRequest, session?: Session): ConsoleView => ({
    t: consoleTranslator(request.headers['accept-language']),
    nonce: newNonce(),
    ...(session ? { session: { operator: session.operator, csrfToken: session.csrfToken } } : {}),
  });
  const send = (reply: FastifyReply, view: ConsoleView, body: { toString(): string }, status = 200) =>
    sendPage(reply, { nonce: view.nonce, frameAncestors: "'none'" }, body, status);

  /** The token of the forms shown before a session exists (sign-in, set password), for the pre-session cookie, set here when missing. */
  function formToken(request: FastifyRequest, reply: FastifyReply): string {
    let preSession = request.cookies[FORM_COOKIE];
    if (!preSession || !identifierShaped(preSession)) {
      preSession = randomBase62(32);
      void reply.setCookie(FORM_COOKIE, preSession, cookieOptions);
    }
    return formTokenOf(store.secrets, preSession);
  }
  /**
   * The posted token is the one Kassa derived for the pre-session cookie sent with it. A sibling
   * subdomain can set cookies for this host (it is the same site), so a form it posts (marked
   * `same-site` by the browser) is refused too: it could carry a pair it asked Kassa for.
   */
  function formTokenValid(request: FastifyRequest): boolean {
    const preSession = request.cookies[FORM_COOKIE] ?? '';
    if (crossSite(request) || request.headers['sec-fetch-site'] === 'same-site' || !identifierShaped(preSession)) return false;
    return csrfValid(formTokenOf(store.secrets, preSession), field(request.body, 'csrf'));
  }
  const retryAfter = (reply: FastifyReply, seconds: number) => reply.header('Retry-After', String(seconds));

  app.setErrorHandler(async (error: Error, request, reply) => {
    const view = viewOf(request);
    const unavailable = databaseUnavailable(error, request.log);
    if (unavailable) void reply.headers(unavailable.headers);
    const status = (error instanceof Problem ? error : unavailable)?.status ?? (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500 && !unavailable) request.log.error({ err: error }, 'console error');
    if (status === 404) return send(reply, view, messagePage(view, view.t('notFoundTitle'), view.t('notFound')), 404);
    return send(reply, view, messagePage(view, view.t('errorTitle'), view.t('errorDetail')), status >= 400 ? status : 500);
  });

  app.get('/dashboard', async (_request, reply) => reply.redirect('/dashboard/payments', 303));

  app.get<{ Querystring: Query }>('/dashboard/sign-in', async (request, reply) => {
    const view = viewOf(request);
    const notice = request.query.signedOut !== undefined ? view.t('signedOut') : request.query.passwordSet !== undefined ? view.t('passwordSet') : undefined;
    return send(reply, view, signInPage(view, { formToken: formToken(request, reply), notice }));
  });

  app.post<{ Body: Form }>('/dashboard/sign-in', async (request, reply) => {
    const view = viewOf(request);
    const email = field(request.body, 'email') ?? '';
    const token = formToken(request, reply);
    if (!formTokenValid(request)) return send(reply, view, signInPage(view, { formToken: token, email, problem: view.t('formExpired') }), 403);
    const result = await signIn(store, { email, password: field(request.body, 'password') ?? '', address: request.ip });
    const again = (problem: string, status: number) => send(reply, view, signInPage(view, { formToken: token, email, problem }), status);
    switch (result.outcome) {
      case 'signed-in':
        void reply.setCookie(SESSION_COOKIE, result.sessionId, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
        return reply.redirect('/dashboard/payments', 303);
      // One message whichever part was wrong: the page never tells whether the account exists.
      case 'refused':
        return again(view.t('signInRefused'), 401);
      case 'throttled':
        retryAfter(reply, result.retryAfterSeconds);
        return again(view.t('signInThrottled'), 429);
      case 'busy':
        retryAfter(reply, BUSY_RETRY_AFTER_SECONDS);
        return again(view.t('passwordsBusy'), 429);
    }
  });

  app.get<{ Params: { token: string } }>('/dashboard/set-password/:token', async (request, reply) => {
    const view = viewOf(request);
    const account = identifierShaped(request.params.token) ? await setPasswordAccount(store, request.params.token) : undefined;
    if (!account) return send(reply, view, messagePage(view, view.t('setPasswordTitle'), view.t('linkInvalid')), 404);
    return send(
      reply,
      view,
      setPasswordPage(view, { formToken: formToken(request, reply), token: request.params.token, email: account.email, min: PASSWORD_MIN_LENGTH }),
    );
  });

  app.post<{ Params: { token: string }; Body: Form }>('/dashboard/set-password/:token', async (request, reply) => {
    const view = viewOf(request);
    const account = identifierShaped(request.params.token) ? await setPasswordAccount(store, request.params.token) : undefined;
    if (!account) return send(reply, view, messagePage(view, view.t('setPasswordTitle'), view.t('linkInvalid')), 404);
    const password = field(request.body, 'password') ?? '';
    const state = { formToken: formToken(request, reply), token: request.params.token, email: account.email, min: PASSWORD_MIN_LENGTH };
    const weakness = passwordProblem(password);
    const problem = !formTokenValid(request)
      ? view.t('formExpired')
      : weakness === 'too_short'
        ? view.t('passwordTooShort', { min: PASSWORD_MIN_LENGTH })
        : weakness === 'too_long'
          ? view.t('passwordTooLong', { max: PASSWORD_MAX_LENGTH })
          : password !== field(request.body, 'repeat')
            ? view.t('passwordsDiffer')
            : undefined;
    if (problem) return send(reply, view, setPasswordPage(view, { ...state, problem }), 422);
    if ((await setPasswordWithLink(store, account, password)) === 'busy') {
      retryAfter(reply, BUSY_RETRY_AFTER_SECONDS);
      return send(reply, view, setPasswordPage(view, { ...state, problem: view.t('passwordsBusy') }), 429);
    }
    return reply.redirect('/dashboard/sign-in?passwordSet', 303);
  });

  await app.register(async (signedIn) => {
    signedIn.decorateRequest('consoleSession', null as never);
    signedIn.addHook('onRequest', async (request, reply) => {
      const id = request.cookies[SESSION_COOKIE] ?? '';
      const session = identifierShaped(id) ? await sessionOf(store, id) : undefined;
      if (!session) {
        await reply.redirect('/dashboard/sign-in', 303);
        return reply;
      }
      request.consoleSession = { ...session, id };
    });
    // Every state-changing request carries the session's synchronizer token and comes from Kassa's own pages.
    signedIn.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST') return;
      if (crossSite(request) || !csrfValid(request.consoleSession.csrfToken, field(request.body, 'csrf'))) {
        const view = viewOf(request, request.consoleSession);
        await send(reply, view, messagePage(view, view.t('errorTitle'), view.t('formExpired')), 403);
        return reply;
      }
    });

    signedIn.post('/dashboard/sign-out', async (request, reply) => {
      await signOut(store, request.consoleSession.id);
      void reply.clearCookie(SESSION_COOKIE, cookieOptions);
      return reply.redirect('/dashboard/sign-in?signedOut', 303);
    });

    signedIn.get<{ Querystring: Query }>('/dashboard/payments', async (request, reply) => {
      const session = request.consoleSession;
      const view = viewOf(request, session);
      const { merchantId } = session.operator;
      const merchants = await merchantChoices(store.read, merchantId);
      const parsed = await parseFilters(store.read, request.query, merchantId);
      if ('invalid' in parsed) {
        const problem = view.t('invalidFilters', { fields: parsed.invalid.join(', ') });
        return send(reply, view, paymentsPage(view, { filters: {}, merchants, rows: [], paged: false, problem }), 400);
      }
      const rows = await listTransactions(store.read, parsed.filter, parsed.cursor, PAGE_SIZE + 1);
      const last = rows.length > PAGE_SIZE ? rows[PAGE_SIZE - 1] : undefined;
      const nextQuery = last && pageQuery(parsed.shown, { created: last.created, reference: last.reference });
      return send(reply, view, paymentsPage(view, { filters: parsed.shown, merchants, rows: rows.slice(0, PAGE_SIZE), nextQuery, paged: parsed.cursor !== undefined }));
    });

    signedIn.get<{ Params: { reference: string }; Querystring: Query }>('/dashboard/payments/:reference', async (request, reply) => {
      const view = viewOf(request, request.consoleSession);
      const row = await visibleTransaction(request.consoleSession, request.params.reference);
      const done = request.query.done;
      const notice = done && (actionNames as readonly string[]).concat('redeliver').includes(done) ? view.t(`done_${done}` as MessageKey) : undefined;
      return send(reply, view, await paymentView(view, row, { notice }));
    });

    for (const name of actionNames) {
      signedIn.post<{ Params: { reference: string }; Body: Form }>(`/dashboard/payments/:reference/${name}`, async (request, reply) => {
        const session = request.consoleSession;
        const row = await visibleTransaction(session, request.params.reference);
        const outcome = await perform(name, row, request);
        const view = viewOf(request, session);
        if (outcome.confirm) {
          const transfer = paidByTransfer(row, await findPaymentPage(store.read, row.reference));
          return send(reply, view, confirmPage(view, { row, action: name, ...outcome.confirm, paidByTransfer: transfer }));
        }
        if (outcome.problem === undefined) return reply.redirect(`/dashboard/payments/${row.reference}?done=${name}`, 303);
        const fresh = (await findTransaction(store.read, row.reference))!;
        return send(reply, view, await paymentView(view, fresh, { problem: view.t('actionRefused', { detail: problemText(outcome.problem) }) }), outcome.problem.status);
      });
    }

    signedIn.post<{ Params: { id: string }; Body: Form }>('/dashboard/webhooks/:id/redeliver', async (request, reply) => {
      const session = request.consoleSession;
      const delivery = identifierShaped(request.params.id) ? await findDelivery(store.read, request.params.id) : undefined;
      if (!delivery || (session.operator.merchantId !== null && delivery.merchant_id !== session.operator.merchantId)) throw Problem.notFound('No such delivery.');
      await redeliver(store, delivery.id);
      await audit(store, session.operator, {
        action: 'redeliver',
        merchantId: delivery.merchant_id,
        reference: delivery.reference,
        detail: { delivery: delivery.id },
        address: request.ip,
      });
      // A test webhook has no transaction: its page is its merchant's settings.
      return reply.redirect(
        delivery.reference.startsWith(TEST_WEBHOOK_PREFIX) ? `/dashboard/merchants/${delivery.merchant_id}` : `/dashboard/payments/${delivery.reference}?done=redeliver`,
        303,
      );
    });

    const context = { store, viewOf, send };
    settingsRoutes(signedIn, context);
    overviewRoutes(signedIn, context);
    exportRoutes(signedIn, context);
    requestLogRoutes(signedIn, context);

    signedIn.get<{ Querystring: Query }>('/dashboard/audit', async (request, reply) => {
      const view = viewOf(request, request.consoleSession);
      const before = Number(request.query.before);
      const entries = await auditEntries(store, request.consoleSession.operator, {
        limit: PAGE_SIZE,
        ...(Number.isSafeInteger(before) && before > 0 ? { beforeId: before } : {}),
      });
      const olderQuery = entries.length === PAGE_SIZE ? `before=${entries[PAGE_SIZE - 1].id}` : undefined;
      return send(reply, view, auditPage(view, entries, olderQuery));
    });
  });

  /** The transaction if this account may see it; otherwise not found, as for one that does not exist. */
  async function visibleTransaction(session: Session, reference: string): Promise<TransactionRow> {
    const row = identifierShaped(reference) ? await findTransaction(store.read, reference) : undefined;
    if (!row || (session.operator.merchantId !== null && row.merchant_id !== session.operator.merchantId)) throw Problem.notFound('No such transaction.');
    return row;
  }

  /** The context an action's operation runs in: the transaction's merchant and mode, as the merchant API's caller. */
  async function actionContext(row: TransactionRow, log: ActionContext['log']): Promise<ActionContext> {
    const merchant = await paymentMerchant(store.read, row.merchant_id);
    return { ports, caller: { merchantId: merchant.id, merchantName: merchant.name, mode: row.mode, settings: merchant.settings }, now: Date.now(), log };
  }

  /**
   * Runs the action through its operation and writes the audit log entry, done or refused; an action
   * that moves money, not confirmed yet, answers what it would move instead (docs/console.md "Actions").
   */
  async function perform(
    name: ActionName,
    row: TransactionRow,
    request: FastifyRequest<{ Body: Form }>,
  ): Promise<{ problem?: Problem; confirm?: { preview: Preview; carried: Record<string, string> } }> {
    const action = actions[name];
    const input = action.input(request.body);
    const ctx = await actionContext(row, request.log);
    const entry = { action: name, merchantId: row.merchant_id, reference: row.reference, address: request.ip };
    try {
      if (action.confirmed && field(request.body, 'confirmed') !== 'yes') {
        const preview = await action.preview(row, input, ctx);
        return { confirm: { preview, carried: action.carried(input, preview) } };
      }
      const result = await action.perform(row, input, ctx);
      await audit(store, request.consoleSession.operator, { ...entry, detail: { ...input, result } });
      return {};
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      await audit(store, request.consoleSession.operator, { ...entry, detail: { ...input, refused: problemText(error) } });
      return { problem: error };
    }
  }

  async function paymentView(view: ConsoleView, row: TransactionRow, messages: { notice?: string; problem?: string }) {
    const ctx = await actionContext(row, app.log);
    const children = await childrenOf(store.read, row.reference);
    // An authorisation's refunds are booked on its capture: show them here too.
    const grandchildren = await Promise.all(children.filter((c) => c.type === 'sale').map((c) => childrenOf(store.read, c.reference)));
    const [events, deliveries, page, entries] = await Promise.all([
      eventsOf(store.read, row.reference),
      deliveriesOf(store, { merchantId: row.merchant_id, reference: row.reference }),
      findPaymentPage(store.read, row.reference),
      auditEntries(store, view.session!.operator, { reference: row.reference, limit: PAGE_SIZE }),
    ]);
    return paymentPage(view, {
      row,
      payment: shownPayment(serializePayment(row, ports.links), view.session!.operator, row),
      authentication: row.authentication ? JSON.parse(row.authentication) : null,
      acquirerReference: page?.acquirer_reference ?? null,
      events,
      deliveries,
      related: [...children, ...grandchildren.flat()],
      audit: entries,
      merchantName: ctx.caller.merchantName,
      actions: await offeredActions(row, ctx),
      failureCodes,
      paidByTransfer: paidByTransfer(row, page),
      testDisputeStages: testDisputeStages(row),
      ...messages,
    });
  }
}

const problemText = (problem: Problem) => [problem.detail ?? problem.title, ...(problem.errors ?? []).map((e) => `${e.field} ${e.message}`)].join(' ');
