/**
 * The console at PUBLIC_URL/dashboard (docs/console.md), assembled here from its route files:
 * sign-in.ts (the forms before a session, the session gate, signing out), payments.ts (the list and
 * one transaction), payment-actions.ts (the actions on it), settings.ts, overview.ts, export.ts,
 * request-log.ts, audit.ts and account.ts (one's own password and sessions). Server-rendered HTML with the customer pages' strict CSP and no
 * scripts; every POST carries a synchronizer token (sign-in.ts). A merchant's account sees and acts
 * on its own merchant only: anything else is answered as not found. One error page for all of it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { Problem } from '../ground/problem.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import { newNonce, sendPage } from '../lib/page-security.ts';
import type { Session } from '../operators/sessions.ts';
import { consoleTranslator } from './i18n.ts';
import type { ConsoleContext } from './context.ts';
import { consoleCookies, sessionRoutes, signInRoutes } from './sign-in.ts';
import { paymentPages, paymentRoutes } from './payments.ts';
import { paymentActionRoutes } from './payment-actions.ts';
import { settingsRoutes } from './settings.ts';
import { exportRoutes } from './export.ts';
import { overviewRoutes } from './overview.ts';
import { requestLogRoutes } from './request-log.ts';
import { auditRefusals, auditRoutes } from './audit.ts';
import { accountRoutes } from './account.ts';
import { messagePage, type ConsoleView } from './views.ts';

interface Deps {
  config: Config;
  store: Store;
}

export async function consoleRoutes(app: FastifyInstance, { config, store }: Deps) {
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  const context: ConsoleContext = {
    store,
    security: config.console,
    viewOf: (request: FastifyRequest, session?: Session): ConsoleView => ({
      t: consoleTranslator(request.headers['accept-language']),
      nonce: newNonce(),
      ...(session ? { session: { operator: session.operator, csrfToken: session.csrfToken } } : {}),
    }),
    send: (reply: FastifyReply, view: ConsoleView, body: { toString(): string }, status = 200) =>
      sendPage(reply, { nonce: view.nonce, frameAncestors: "'none'" }, body, status),
  };
  const { viewOf, send } = context;
  const cookieOptions = consoleCookies(config.publicUrl);

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
  signInRoutes(app, context, cookieOptions);

  await app.register(async (signedIn) => {
    sessionRoutes(signedIn, context, cookieOptions);
    auditRefusals(signedIn, context);
    const payments = paymentPages(signedIn, context);
    paymentRoutes(signedIn, context, payments);
    paymentActionRoutes(signedIn, context, payments);
    settingsRoutes(signedIn, context);
    overviewRoutes(signedIn, context);
    exportRoutes(signedIn, context);
    requestLogRoutes(signedIn, context);
    auditRoutes(signedIn, context);
    accountRoutes(signedIn, context);
  });
}
