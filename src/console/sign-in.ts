/**
 * Signing in and the session (docs/console.md "Signing in and sessions"): the sign-in and
 * set-password forms, shown before a session exists, and for the signed-in scope the session
 * check, the synchronizer token every POST carries, and signing out. A session is a random id in an
 * HttpOnly, SameSite=Strict cookie (Secure when PUBLIC_URL is https) kept in the database
 * (operators/sessions.ts); the forms before a session carry a token the secrets key derives from a
 * random pre-session cookie. Signing out everywhere ends every session of the account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formTokenOf, identifierShaped, randomBase62 } from '../lib/tokens.ts';
import { crossSite, csrfValid, field, type Form } from '../lib/page-security.ts';
import { sessionOf, signIn, signOut, signOutEverywhere, type Session } from '../operators/sessions.ts';
import { setPasswordAccount } from '../operators/accounts.ts';
import { setPasswordWithLink } from '../operators/password-changes.ts';
import { BUSY_RETRY_AFTER_SECONDS, PASSWORD_MIN_LENGTH } from '../operators/passwords.ts';
import type { ConsoleContext, Query } from './context.ts';
import { auditFormRefused, auditSignIn, auditSignOut } from './audit.ts';
import { messagePage, passwordProblemText, setPasswordPage, signInPage } from './views.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: Session & { id: string };
  }
}

const SESSION_COOKIE = 'kassa_console';
const FORM_COOKIE = 'kassa_console_form';

/** The console's cookies' options: Secure when PUBLIC_URL is https. */
export type CookieOptions = ReturnType<typeof consoleCookies>;
export const consoleCookies = (publicUrl: string) => ({ path: '/dashboard', httpOnly: true, sameSite: 'strict', secure: publicUrl.startsWith('https:') }) as const;

export const retryAfter = (reply: FastifyReply, seconds: number) => reply.header('Retry-After', String(seconds));

/** The forms shown before a session exists: sign-in and set password (from an invitation or reset link). */
export function signInRoutes(app: FastifyInstance, { store, security, viewOf, send }: ConsoleContext, cookieOptions: CookieOptions) {
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
    const result = await signIn(store, security, { email, password: field(request.body, 'password') ?? '', address: request.ip, log: request.log });
    await auditSignIn(store, request, email, result);
    const again = (problem: string, status: number) => send(reply, view, signInPage(view, { formToken: token, email, problem }), status);
    switch (result.outcome) {
      case 'signed-in':
        void reply.setCookie(SESSION_COOKIE, result.sessionId, { ...cookieOptions, maxAge: security.sessionLifetimeMs / 1000 });
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
    if (!formTokenValid(request)) return send(reply, view, setPasswordPage(view, { ...state, problem: view.t('formExpired') }), 422);
    if (password !== field(request.body, 'repeat')) return send(reply, view, setPasswordPage(view, { ...state, problem: passwordProblemText(view.t, 'differ') }), 422);
    const change = await setPasswordWithLink(store, account, password, { address: request.ip, log: request.log });
    switch (change.outcome) {
      case 'set':
        return reply.redirect('/dashboard/sign-in?passwordSet', 303);
      case 'refused':
        return send(reply, view, setPasswordPage(view, { ...state, problem: passwordProblemText(view.t, change.problem) }), 422);
      case 'busy':
        retryAfter(reply, BUSY_RETRY_AFTER_SECONDS);
        return send(reply, view, setPasswordPage(view, { ...state, problem: view.t('passwordsBusy') }), 429);
    }
  });
}

/** The signed-in scope's gate: no session, the sign-in page; a POST without the session's token or from another site, refused. And signing out. */
export function sessionRoutes(signedIn: FastifyInstance, { store, security, viewOf, send }: ConsoleContext, cookieOptions: CookieOptions) {
  signedIn.decorateRequest('consoleSession', null as never);
  signedIn.addHook('onRequest', async (request, reply) => {
    const id = request.cookies[SESSION_COOKIE] ?? '';
    const session = identifierShaped(id) ? await sessionOf(store, security, id) : undefined;
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
      await auditFormRefused(store, request);
      await send(reply, view, messagePage(view, view.t('errorTitle'), view.t('formExpired')), 403);
      return reply;
    }
  });

  signedIn.post('/dashboard/sign-out', async (request, reply) => {
    await auditSignOut(store, request);
    await signOut(store, request.consoleSession.id);
    void reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return reply.redirect('/dashboard/sign-in?signedOut', 303);
  });

  signedIn.post('/dashboard/sign-out-everywhere', async (request, reply) => {
    await signOutEverywhere(store, request.consoleSession.operator, { address: request.ip, log: request.log });
    void reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return reply.redirect('/dashboard/sign-in?signedOut', 303);
  });
}
