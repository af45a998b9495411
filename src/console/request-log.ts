/**
 * GET /dashboard/requests: the request log (docs/console.md "API requests", docs/api.md "Request
 * log"), the merchant API requests made with a merchant's keys, newest first, in one mode at a time
 * (the default one when none is asked, docs/console.md "Test and live"), filtered by status class,
 * route pattern and request id. A merchant's account sees its own merchant only; a platform
 * operator any merchant, or all.
 */
import type { FastifyInstance } from 'fastify';
import type { Mode } from '../store/schema.ts';
import { listRequestLog, type RequestLogFilter, type RequestLogRow } from '../store/request-log.ts';
import { identifierShaped } from '../lib/tokens.ts';
import { html, type SafeHtml } from '../lib/html.ts';
import type { ConsoleContext, Query } from './context.ts';
import { defaultMode, merchantChoices } from './filters.ts';
import { layout, merchantSelect, modeLabel, modeSwitch, modes, select, time, type ConsoleView } from './views.ts';

const PAGE_SIZE = 50;
const statusClasses = ['2xx', '4xx', '5xx'] as const;
/** A route pattern as Fastify names it (`/api/v1/cancel/:token`); request-id.ts's safe characters for a request id. */
const ROUTE = /^\/[A-Za-z0-9/:_-]{0,100}$/;
const REQUEST_ID = /^[A-Za-z0-9\-_.:+=/@]{1,128}$/;

interface RequestFilters {
  merchant?: string;
  mode?: string;
  status?: string;
  route?: string;
  requestId?: string;
}

interface RequestLogState {
  filters: RequestFilters;
  merchants?: { id: string; name: string }[];
  rows: RequestLogRow[];
  olderQuery?: string;
  problem?: string;
}

/** The filters from the query string, each checked; the names of the ones that are not valid otherwise. */
function parseRequestFilters(query: Query, ownMerchant: string | null): { shown: RequestFilters; beforeId?: number; invalid: string[] } {
  const invalid: string[] = [];
  const value = (name: string, shape: (raw: string) => boolean) => {
    const raw = query[name]?.trim() || undefined;
    if (raw !== undefined && !shape(raw)) invalid.push(name);
    return raw;
  };
  const shown: RequestFilters = {
    merchant: ownMerchant === null ? value('merchant', identifierShaped) : undefined,
    mode: value('mode', (raw) => (modes as readonly string[]).includes(raw)),
    status: value('status', (raw) => (statusClasses as readonly string[]).includes(raw)),
    route: value('route', (raw) => ROUTE.test(raw)),
    requestId: value('requestId', (raw) => REQUEST_ID.test(raw)),
  };
  const before = value('before', (raw) => /^\d{1,15}$/.test(raw));
  return { shown, ...(before !== undefined ? { beforeId: Number(before) } : {}), invalid };
}

const queryOf = (filters: RequestFilters, extra: Record<string, string> = {}) =>
  new URLSearchParams([...Object.entries(filters).filter((entry): entry is [string, string] => !!entry[1]), ...Object.entries(extra)]).toString();

function requestTable(view: ConsoleView, rows: RequestLogRow[], platform: boolean): SafeHtml {
  const { t } = view;
  if (rows.length === 0) return html`<p>${t('noRequests')}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t('requestsCaption')}"><table><caption>${t('requestsCaption')}</caption><thead><tr><th scope="col">${t('at')}</th>${
    platform ? html`<th scope="col">${t('merchant')}</th>` : ''
  }<th scope="col">${t('method')}</th><th scope="col">${t('route')}</th><th scope="col">${t('statusCode')}</th><th scope="col">${t('duration')}</th><th scope="col">${t('keyPrefix')}</th><th scope="col">${t('requestId')}</th><th scope="col">${t('error')}</th></tr></thead><tbody>
${rows.map(
  (r) =>
    html`<tr><td>${time(r.at)}</td>${platform ? html`<td>${r.merchant_id}</td>` : ''}<td>${r.method}</td><td>${r.route}</td><td>${r.status}</td><td>${r.duration_ms} ms</td><td>${r.key_prefix}…</td><td>${r.request_id}</td><td class="wrap">${r.problem_title ?? ''}</td></tr>`,
)}
</tbody></table></div>`;
}

function requestLogPage(view: ConsoleView, state: RequestLogState): SafeHtml {
  const { t } = view;
  const { filters } = state;
  const platform = state.merchants !== undefined;
  return layout(
    view,
    t('requestsTitle'),
    html`<main id="content">
<h1>${t('requestsTitle')} ${modeLabel(t, filters.mode)}</h1>
${modeSwitch(view, '/dashboard/requests', { ...filters }, filters.mode)}
<p>${t('requestsHint')}</p>
${state.problem ? html`<div class="problem" role="alert"><p>${state.problem}</p></div>` : ''}
<form method="get" action="/dashboard/requests" class="filters" role="search">
${platform ? merchantSelect(view, state.merchants!, filters.merchant) : ''}
${select(view, 'status', t('statusClass'), statusClasses, filters.status)}
<div class="field"><label for="f-route">${t('route')}</label><input id="f-route" name="route" value="${filters.route ?? ''}" placeholder="/api/v1/payment"></div>
<div class="field"><label for="f-requestId">${t('requestId')}</label><input id="f-requestId" name="requestId" value="${filters.requestId ?? ''}"></div>
<input type="hidden" name="mode" value="${filters.mode ?? ''}">
<div class="field"><button type="submit">${t('apply')}</button></div>
</form>
${requestTable(view, state.rows, platform)}
<nav class="pager" aria-label="${t('requestsTitle')}">${state.olderQuery ? html`<a href="/dashboard/requests?${state.olderQuery}" rel="next">${t('olderEntries')}</a>` : ''}</nav>
</main>`,
  );
}

export function requestLogRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get<{ Querystring: Query }>('/dashboard/requests', async (request, reply) => {
    const session = request.consoleSession;
    const view = viewOf(request, session);
    const { merchantId } = session.operator;
    const merchants = await merchantChoices(store.read, merchantId);
    const { shown, beforeId, invalid } = parseRequestFilters(request.query, merchantId);
    if (invalid.length > 0) {
      const problem = view.t('invalidFilters', { fields: invalid.join(', ') });
      return send(reply, view, requestLogPage(view, { filters: shown, merchants, rows: [], problem }), 400);
    }
    const scope = merchantId ?? shown.merchant;
    const mode = (shown.mode as Mode | undefined) ?? (await defaultMode(store.read, scope));
    const filter: RequestLogFilter = {
      ...(scope !== undefined ? { merchantId: scope } : {}),
      mode,
      ...(shown.status ? { statusClass: Number(shown.status[0]) as 2 | 4 | 5 } : {}),
      ...(shown.route ? { route: shown.route } : {}),
      ...(shown.requestId ? { requestId: shown.requestId } : {}),
      ...(beforeId !== undefined ? { beforeId } : {}),
    };
    const rows = await listRequestLog(store.read, filter, PAGE_SIZE);
    const filters = { ...shown, mode };
    const olderQuery = rows.length === PAGE_SIZE ? queryOf(filters, { before: String(rows[PAGE_SIZE - 1]!.id) }) : undefined;
    return send(reply, view, requestLogPage(view, { filters, merchants, rows, olderQuery }));
  });
}
