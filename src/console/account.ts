/**
 * The signed-in person's own account (docs/console.md "Your account"): changing their password,
 * giving the current one and the new one twice (the rules of operators/passwords.ts; their other
 * sessions end), and signing out everywhere (the form posts to sign-in.ts, which owns the session
 * cookie). CSRF-checked by the session gate like every console form.
 */
import type { FastifyInstance } from 'fastify';
import { html, type SafeHtml } from '../lib/html.ts';
import { field, type Form } from '../lib/page-security.ts';
import { sha256Hex } from '../lib/tokens.ts';
import { changeOwnPassword } from '../operators/password-changes.ts';
import { BUSY_RETRY_AFTER_SECONDS, PASSWORD_MIN_LENGTH, PASSWORDS_KEPT } from '../operators/passwords.ts';
import type { ConsoleContext, Query } from './context.ts';
import { retryAfter } from './sign-in.ts';
import { csrfField, layout, notices, passwordProblemText, type ConsoleView } from './views.ts';

function accountPage(view: ConsoleView, messages: { notice?: string; problem?: string }): SafeHtml {
  const { t } = view;
  const email = view.session?.operator.email ?? '';
  return layout(
    view,
    t('accountTitle'),
    html`<main id="content" class="narrow">
<h1>${t('accountTitle')}</h1>
${notices(messages)}
<h2>${t('changePasswordTitle')}</h2>
<p>${t('changePasswordIntro', { min: PASSWORD_MIN_LENGTH, count: PASSWORDS_KEPT })}</p>
<form method="post" action="/dashboard/account/password" class="stack">
${csrfField(view)}
<input type="hidden" name="username" value="${email}" autocomplete="username">
<div class="field"><label for="current">${t('currentPassword')}</label><input type="password" id="current" name="current" autocomplete="current-password" required></div>
<div class="field"><label for="password">${t('newPassword')}</label><input type="password" id="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></div>
<div class="field"><label for="repeat">${t('repeatPassword')}</label><input type="password" id="repeat" name="repeat" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></div>
<button type="submit">${t('changePassword')}</button>
</form>
<h2>${t('sessionsTitle')}</h2>
<p>${t('signOutEverywhereIntro')}</p>
<form method="post" action="/dashboard/sign-out-everywhere">${csrfField(view)}<button type="submit">${t('signOutEverywhere')}</button></form>
</main>`,
  );
}

export function accountRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get<{ Querystring: Query }>('/dashboard/account', async (request, reply) => {
    const view = viewOf(request, request.consoleSession);
    return send(reply, view, accountPage(view, { notice: request.query.passwordChanged !== undefined ? view.t('passwordChanged') : undefined }));
  });

  app.post<{ Body: Form }>('/dashboard/account/password', async (request, reply) => {
    const session = request.consoleSession;
    const view = viewOf(request, session);
    const password = field(request.body, 'password') ?? '';
    const refused = (problem: string, status: number) => send(reply, view, accountPage(view, { problem }), status);
    if (password !== field(request.body, 'repeat')) return refused(passwordProblemText(view.t, 'differ'), 422);
    const change = await changeOwnPassword(
      store,
      { operator: session.operator, idHash: sha256Hex(session.id) },
      { current: field(request.body, 'current') ?? '', password },
      { address: request.ip, log: request.log },
    );
    switch (change.outcome) {
      case 'set':
        return reply.redirect('/dashboard/account?passwordChanged', 303);
      case 'refused':
        return refused(passwordProblemText(view.t, change.problem), 422);
      case 'busy':
        retryAfter(reply, BUSY_RETRY_AFTER_SECONDS);
        return refused(view.t('passwordsBusy'), 429);
    }
  });
}
