/**
 * The console's pages as template functions (the customer pages' approach: lib/html.ts escapes
 * every value). Every text comes from the translations; every state-changing form carries the
 * session's CSRF token. Wide tables scroll sideways in their own region on a phone, focusable and
 * labelled so a keyboard can scroll them too (WCAG 2.1.1).
 */
import { html, htmlDocument, trusted, type SafeHtml } from '../lib/html.ts';
import { amountText } from '../ground/amount.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import type { ListedTransaction } from '../store/transaction-list.ts';
import type { AuditLogRow } from '../store/schema.ts';
import type { DeliveryView } from '../events/admin.ts';
import type { Operator } from '../operators/accounts.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORDS_KEPT, type PasswordProblem } from '../operators/passwords.ts';
import { auditOutcomes, type AuditOutcome } from '../operators/audit.ts';
import { consoleStylesheet } from './assets.ts';
import { outcomesOf } from './outcomes.ts';
import { term, type MessageKey, type Translate } from './i18n.ts';
import type { Mode } from '../store/schema.ts';

export interface ConsoleView {
  t: Translate;
  nonce: string;
  /** Signed in: the account and its session's CSRF token. */
  session?: { operator: Operator; csrfToken: string };
}

/** A time as a UTC date people read (`2026-11-26 12:04:05 UTC`); the API's epoch milliseconds only behind a raw toggle. */
export const time = (ms: number | null | undefined) => (ms === null || ms === undefined ? '' : `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`);

/**
 * An amount as the console shows it everywhere — list, transaction, confirmation, overview — in
 * the page's language: `€2.11`, `€ 2,11` in Dutch (ground/amount.ts `amountText`). The one money
 * format of the console's pages (docs/console.md "Quality"); the CSV export writes plain decimals.
 */
export const money = (t: Translate, amount: { amount_minor: number; currency: string }) => amountText(amount, t('htmlLang'));

export const csrfField = (view: ConsoleView) => html`<input type="hidden" name="csrf" value="${view.session?.csrfToken ?? ''}">`;

export function layout(view: ConsoleView, title: string, body: SafeHtml): SafeHtml {
  const { t, session } = view;
  return htmlDocument({
    lang: t('htmlLang'),
    nonce: view.nonce,
    title: `${title} – ${t('console')}`,
    stylesheet: consoleStylesheet,
    body: html`<a class="skip" href="#content">${t('skipToContent')}</a>
${
  session
    ? html`<header class="bar">
<span class="brand">${t('console')}</span>
<nav aria-label="${t('navigation')}"><ul><li><a href="/dashboard/overview">${t('navOverview')}</a></li><li><a href="/dashboard/payments">${t('navPayments')}</a></li><li><a href="/dashboard/requests">${t('navRequests')}</a></li><li><a href="/dashboard/merchants">${t('navSettings')}</a></li><li><a href="/dashboard/audit">${t('navAudit')}</a></li></ul></nav>
<span class="who"><a href="/dashboard/account">${t('signedInAs', { email: session.operator.email })}</a>${session.operator.merchantId ? ` (${session.operator.merchantId})` : ` (${t('allMerchants')})`}</span>
<form method="post" action="/dashboard/sign-out">${csrfField(view)}<button type="submit" class="quiet">${t('signOut')}</button></form>
</header>`
    : ''
}
${body}`,
  });
}

export const notices = (messages: { notice?: string; problem?: string }) =>
  html`${messages.notice ? html`<p class="notice" role="status">${messages.notice}</p>` : ''}${messages.problem ? html`<div class="problem" role="alert"><p>${messages.problem}</p></div>` : ''}`;

export function signInPage(view: ConsoleView, state: { formToken: string; email?: string; problem?: string; notice?: string }): SafeHtml {
  const { t } = view;
  return layout(
    view,
    t('signInTitle'),
    html`<main id="content" class="narrow">
<h1>${t('console')}: ${t('signInTitle')}</h1>
${notices(state)}
<form method="post" action="/dashboard/sign-in" class="stack">
<input type="hidden" name="csrf" value="${state.formToken}">
<div class="field"><label for="email">${t('email')}</label><input type="email" id="email" name="email" autocomplete="username" required value="${state.email ?? ''}"></div>
<div class="field"><label for="password">${t('password')}</label><input type="password" id="password" name="password" autocomplete="current-password" required></div>
<button type="submit">${t('signIn')}</button>
</form>
</main>`,
  );
}

/** What a refused new password is told: the rule it breaks (operators/passwords.ts). */
export function passwordProblemText(t: Translate, problem: PasswordProblem | 'wrong_current' | 'differ'): string {
  switch (problem) {
    case 'too_short':
      return t('passwordTooShort', { min: PASSWORD_MIN_LENGTH });
    case 'too_long':
      return t('passwordTooLong', { max: PASSWORD_MAX_LENGTH });
    case 'no_letter':
      return t('passwordNeedsLetter');
    case 'no_digit':
      return t('passwordNeedsDigit');
    case 'reused':
      return t('passwordReused', { count: PASSWORDS_KEPT });
    case 'wrong_current':
      return t('currentPasswordWrong');
    case 'differ':
      return t('passwordsDiffer');
  }
}

export function setPasswordPage(view: ConsoleView, state: { formToken: string; token: string; email: string; min: number; problem?: string }): SafeHtml {
  const { t } = view;
  return layout(
    view,
    t('setPasswordTitle'),
    html`<main id="content" class="narrow">
<h1>${t('setPasswordTitle')}</h1>
<p>${t('setPasswordIntro', { email: state.email, min: state.min })}</p>
${notices(state)}
<form method="post" action="/dashboard/set-password/${state.token}" class="stack">
<input type="hidden" name="csrf" value="${state.formToken}">
<input type="hidden" name="username" value="${state.email}" autocomplete="username">
<div class="field"><label for="password">${t('newPassword')}</label><input type="password" id="password" name="password" autocomplete="new-password" minlength="${state.min}" required></div>
<div class="field"><label for="repeat">${t('repeatPassword')}</label><input type="password" id="repeat" name="repeat" autocomplete="new-password" minlength="${state.min}" required></div>
<button type="submit">${t('setPassword')}</button>
</form>
</main>`,
  );
}

export function messagePage(view: ConsoleView, title: string, message: string): SafeHtml {
  return layout(view, title, html`<main id="content"><h1>${title}</h1><section class="card"><p>${message}</p></section></main>`);
}

export interface ListFilters {
  merchant?: string;
  mode?: string;
  status?: string;
  method?: string;
  type?: string;
  from?: string;
  to?: string;
  q?: string;
}

/** The modes a page shows one at a time, live first (docs/console.md "Test and live"). */
export const modes = ['live', 'test'] as const satisfies readonly Mode[];

export const filterChoices = {
  status: ['pending', 'success', 'failed', 'manualintervention'],
  // An enrollment's transaction shows `vault` as its method (docs/api.md#vault-enrollment).
  method: [...paymentMethods, 'vault'],
  type: ['sale', 'authorise', 'credit', 'token', 'chargeback'],
} as const;

const terms = (t: Translate, kind: 'status' | 'type', values: readonly string[]) => values.map((value) => ({ value, label: term(t, kind, value) }));

/** A platform operator's choice of one merchant, or any. */
export const merchantSelect = (view: ConsoleView, merchants: readonly { id: string; name: string }[], chosen: string | undefined): SafeHtml =>
  select(
    view,
    'merchant',
    view.t('merchant'),
    merchants.map((m) => ({ value: m.id, label: `${m.name} (${m.id})` })),
    chosen,
  );

export function select(
  view: ConsoleView,
  name: string,
  label: string,
  options: readonly (string | { value: string; label: string })[],
  chosen: string | undefined,
): SafeHtml {
  return html`<div class="field"><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">${view.t('any')}</option>${options.map(
    (o) => {
      const { value, label: text } = typeof o === 'string' ? { value: o, label: o } : o;
      return html`<option value="${value}"${value === chosen ? trusted(' selected') : ''}>${text}</option>`;
    },
  )}</select></div>`;
}

/** The transaction's own status, and beside it what happened to it since (outcomes.ts): captured, refunded, disputed. */
export const statusText = (t: Translate, row: ListedTransaction) =>
  html`<span class="status-${row.status}">${term(t, 'status', row.status)}${row.failure_code ? ` / ${term(t, 'failureCode', row.failure_code)}` : ''}</span>${outcomesOf(
    row,
  ).map((outcome) => html` <span class="outcome outcome-${outcome}">${term(t, 'outcome', outcome)}</span>`)}`;

/** Raw values (JSON as the API answers it) behind a toggle that needs no script. */
export const raw = (t: Translate, value: unknown) => html`<details class="raw"><summary>${t('raw')}</summary><pre>${JSON.stringify(value, null, 2)}</pre></details>`;

export function paymentsPage(
  view: ConsoleView,
  state: { filters: ListFilters; merchants?: { id: string; name: string }[]; rows: ListedTransaction[]; nextQuery?: string; paged: boolean; problem?: string },
): SafeHtml {
  const { t } = view;
  const { filters } = state;
  const platform = state.merchants !== undefined;
  const merchantNames = new Map(state.merchants?.map((m) => [m.id, m.name]));
  return layout(
    view,
    t('paymentsTitle'),
    html`<main id="content" class="wide">
<h1>${t('paymentsTitle')} ${modeLabel(t, filters.mode)}</h1>
${modeSwitch(view, '/dashboard/payments', { ...filters, after: undefined }, filters.mode)}
${notices(state)}
<section class="card" aria-labelledby="filters-title">
<h2 id="filters-title">${t('filters')}</h2>
<form method="get" action="/dashboard/payments" class="filters" role="search">
<div class="field wide"><label for="f-q">${t('search')}</label><span class="hint" id="f-q-hint">${t('searchHint')}</span><input type="search" id="f-q" name="q" value="${filters.q ?? ''}" aria-describedby="f-q-hint"></div>
${platform ? merchantSelect(view, state.merchants!, filters.merchant) : ''}
<input type="hidden" name="mode" value="${filters.mode ?? ''}">
${select(view, 'status', t('status'), terms(t, 'status', filterChoices.status), filters.status)}
${select(view, 'method', t('method'), filterChoices.method, filters.method)}
${select(view, 'type', t('type'), terms(t, 'type', filterChoices.type), filters.type)}
<div class="field"><label for="f-from">${t('createdFrom')}</label><input type="date" id="f-from" name="from" value="${filters.from ?? ''}"></div>
<div class="field"><label for="f-to">${t('createdTo')}</label><input type="date" id="f-to" name="to" value="${filters.to ?? ''}"></div>
<div class="field"><button type="submit">${t('apply')}</button> <a href="/dashboard/payments?${firstPageQuery({ mode: filters.mode })}">${t('reset')}</a></div>
</form>
</section>
<p><a href="/dashboard/payments.csv?${firstPageQuery(filters)}" download>${t('exportCsv')}</a></p>
${
  state.rows.length === 0
    ? html`<p>${t('noPayments')}${otherMode(filters.mode) ? html` <a href="/dashboard/payments?${firstPageQuery({ ...filters, mode: otherMode(filters.mode) })}">${t(otherMode(filters.mode) === 'test' ? 'lookInTest' : 'lookInLive')}</a>` : ''}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t('listCaption')}"><table class="list">
<caption>${t('listCaption')}</caption>
<thead><tr><th scope="col" class="amount">${t('amount')}</th><th scope="col" class="status">${t('status')}</th><th scope="col" class="reference">${t('reference')}</th><th scope="col" class="more created">${t('created')}</th>${platform ? html`<th scope="col" class="more">${t('merchant')}</th>` : ''}<th scope="col" class="more type">${t('type')}</th><th scope="col" class="more method">${t('method')}</th><th scope="col" class="more">${t('orderReference')}</th></tr></thead>
<tbody>
${state.rows.map(
  (row) =>
    html`<tr>${cut(money(t, row), 'amount')}<td class="status">${statusText(t, row)}</td><td><a href="/dashboard/payments/${row.reference}" title="${row.reference}">${row.reference}</a></td>${cut(time(row.created), 'more')}${platform ? cut(merchantNames.get(row.merchant_id) ?? row.merchant_id, 'more') : ''}${cut(term(t, 'type', row.type), 'more')}${cut(`${row.method}${row.brand ? ` (${row.brand})` : ''}`, 'more')}${cut(row.merchant_order_reference ?? '', 'more')}</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="${t('paymentsTitle')}">
${state.paged ? html`<a href="/dashboard/payments?${firstPageQuery(filters)}">${t('firstPage')}</a>` : ''}
${state.nextQuery ? html`<a href="/dashboard/payments?${state.nextQuery}" rel="next">${t('nextPage')}</a>` : ''}
</nav>
</main>`,
  );
}

/**
 * A cell of the list that its column may cut to fit a 1280 px screen (docs/console.md "Payments"):
 * the whole value stays its text, for screen readers and copying, and its title, shown on hover.
 */
const cut = (value: string, className: string) => html`<td class="${className}" title="${value}">${value}</td>`;

const firstPageQuery = (filters: ListFilters) => new URLSearchParams(Object.entries(filters).filter((entry): entry is [string, string] => !!entry[1])).toString();

const modeLabels = { live: 'liveData', test: 'testData' } as const satisfies Record<Mode, MessageKey>;
const otherMode = (mode: string | undefined): Mode | undefined => (mode === 'live' ? 'test' : mode === 'test' ? 'live' : undefined);

/** What a page shows is always labelled with its mode: test data never passes for live (docs/console.md "Test and live"). */
export const modeLabel = (t: Translate, mode: string | undefined): SafeHtml | string =>
  mode === 'live' || mode === 'test' ? html`<span class="mode-label mode-${mode}">${t(modeLabels[mode])}</span>` : '';

/** The Test/Live switch: the same page with the same filters in the other mode, one click away; the mode shown marked current. */
export function modeSwitch(view: ConsoleView, path: string, query: Record<string, string | undefined>, mode: string | undefined): SafeHtml {
  const { t } = view;
  return html`<nav class="modes" aria-label="${t('modeSwitch')}"><ul>${modes.map(
    (each) =>
      html`<li><a href="${path}?${firstPageQuery({ ...query, mode: each })}"${each === mode ? trusted(' aria-current="page"') : ''}>${t(modeLabels[each])}</a></li>`,
  )}</ul></nav>`;
}

export function deliveryView(view: ConsoleView, d: DeliveryView): SafeHtml {
  const { t } = view;
  return html`<article class="delivery" aria-label="${d.id}">
<h3>${t('delivery', { id: d.id, event: d.event, state: d.state })}</h3>
${
  d.attemptLog.length === 0
    ? html`<p>${t('noAttempts')}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t('attempts')} ${d.id}"><table><caption>${t('attempts')}</caption><thead><tr><th scope="col">${t('at')}</th><th scope="col">${t('statusCode')}</th><th scope="col">${t('duration')}</th><th scope="col">${t('error')}</th></tr></thead><tbody>
${d.attemptLog.map((a) => html`<tr><td>${time(a.at)}</td><td>${a.statusCode ?? '–'}</td><td>${a.durationMs} ms</td><td class="wrap">${a.error ?? ''}</td></tr>`)}
</tbody></table></div>`
}
${d.nextAttemptAt ? html`<p>${t('nextAttempt', { time: time(d.nextAttemptAt) })}</p>` : ''}
<form method="post" action="/dashboard/webhooks/${d.id}/redeliver">${csrfField(view)}<button type="submit" class="quiet" aria-label="${t('redeliver')} ${d.id}">${t('redeliver')}</button></form>
</article>`;
}

export function auditTable(view: ConsoleView, entries: AuditLogRow[]): SafeHtml {
  const { t } = view;
  if (entries.length === 0) return html`<p>${t('noAudit')}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t('auditCaption')}"><table><caption>${t('auditCaption')}</caption><thead><tr><th scope="col">${t('at')}</th><th scope="col">${t('who')}</th><th scope="col">${t('what')}</th><th scope="col">${t('outcome')}</th><th scope="col">${t('reference')}</th><th scope="col">${t('from')}</th><th scope="col">${t('details')}</th></tr></thead><tbody>
${entries.map(
  (e) =>
    html`<tr><td>${time(e.at)}</td><td>${e.operator_email}</td><td>${e.action}</td><td class="audit-${e.outcome}">${term(t, 'auditOutcome', e.outcome)}</td><td>${e.reference ? html`<a href="/dashboard/payments/${e.reference}">${e.reference}</a>` : e.subject}</td><td>${e.address}</td><td class="wrap">${raw(t, JSON.parse(e.detail))}</td></tr>`,
)}
</tbody></table></div>`;
}

/** The audit log page's filters (docs/console.md "Audit log"): each narrows the list to the exact value. */
export interface AuditFilters {
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
}

export function auditPage(view: ConsoleView, entries: AuditLogRow[], filters: AuditFilters, olderQuery?: string): SafeHtml {
  const { t } = view;
  const outcomes = auditOutcomes.map((value) => ({ value, label: term(t, 'auditOutcome', value) }));
  return layout(
    view,
    t('auditTitle'),
    html`<main id="content"><h1>${t('auditTitle')}</h1><form method="get" action="/dashboard/audit" class="filters" role="search">
<div class="field"><label for="f-actor">${t('who')}</label><input id="f-actor" name="actor" value="${filters.actor ?? ''}"></div>
<div class="field"><label for="f-action">${t('what')}</label><input id="f-action" name="action" value="${filters.action ?? ''}"></div>
${select(view, 'outcome', t('outcome'), outcomes, filters.outcome)}
<div class="field"><button type="submit">${t('apply')}</button></div>
</form>${auditTable(view, entries)}<nav class="pager" aria-label="${t('auditTitle')}">${olderQuery ? html`<a href="/dashboard/audit?${olderQuery}" rel="next">${t('olderEntries')}</a>` : ''}</nav></main>`,
  );
}
