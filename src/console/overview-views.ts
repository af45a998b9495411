/**
 * The overview page: one volume chart, drawn on the server as SVG (no scripts under the console's
 * CSP; docs/decisions.md) — a bar of payments per day made of a part per method, and a line for the
 * day's success rate — with the same numbers as a table for screen readers and keyboards, and the
 * period's totals by method; beside each count the money its successful payments took, per currency
 * (amounts in different currencies are never added), in one mode (test money is never added to
 * live: docs/console.md "Test and live").
 */
import { html, type SafeHtml } from '../lib/html.ts';
import type { DailyAmount, DailyMethodCount } from '../store/payment-stats.ts';
import type { openDisputeTotals } from '../store/disputes.ts';
import { DAY_MS } from '../store/payment-stats.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { layout, modeLabel, modeSwitch, money, type ConsoleView } from './views.ts';
import type { Translate } from './i18n.ts';

export interface OverviewFilters {
  from: string;
  to: string;
  merchant?: string;
  mode?: string;
}

export interface OverviewState {
  filters: OverviewFilters;
  merchants?: { id: string; name: string }[];
  /** The period's days, epoch days, oldest first; empty when the filters are not valid. */
  days: number[];
  counts: DailyMethodCount[];
  /** What the successful payments took, per day, method and currency. */
  paid: DailyAmount[];
  /** The disputes open now (ground/dispute-stages.ts `openStages`), per currency. */
  disputes: OpenDisputes[];
  problem?: string;
}

type OpenDisputes = Awaited<ReturnType<typeof openDisputeTotals>>[number];

/** How many disputes are open and what they put at stake, per currency (never added across currencies), with a link to the list of disputes. */
function openDisputesCard(view: ConsoleView, disputes: OpenDisputes[], filters: OverviewFilters): SafeHtml {
  const { t } = view;
  const list = new URLSearchParams({ type: 'chargeback', ...(filters.merchant ? { merchant: filters.merchant } : {}), ...(filters.mode ? { mode: filters.mode } : {}) });
  const count = disputes.reduce((sum, d) => sum + d.disputes, 0);
  return html`<section class="card" aria-labelledby="disputes-title">
<h2 id="disputes-title">${t('openDisputes')}</h2>
<p class="hint">${t('openDisputesHint')}</p>
${
  count === 0
    ? html`<p>${t('noOpenDisputes')}</p>`
    : html`<dl><dt>${t('openDisputes')}</dt><dd>${count}</dd><dt>${t('disputesAtStake')}</dt><dd>${disputes.map((d, i) => html`${i > 0 ? html`<br>` : ''}${money(t, { amount_minor: d.amountMinor, currency: d.currency })}`)}</dd></dl>`
}
<p><a href="/dashboard/payments?${list.toString()}">${t('listDisputes')}</a></p>
</section>`;
}

interface Totals {
  payments: number;
  successful: number;
  failed: number;
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const add = (a: Totals, b: Totals): Totals => ({ payments: a.payments + b.payments, successful: a.successful + b.successful, failed: a.failed + b.failed });
const none: Totals = { payments: 0, successful: 0, failed: 0 };
/** Each currency's sum over `paid`, in the page's language; one line per currency. */
function amountsText(paid: DailyAmount[], t: Translate, none: string): SafeHtml | string {
  const byCurrency = new Map<string, number>();
  for (const p of paid) byCurrency.set(p.currency, (byCurrency.get(p.currency) ?? 0) + p.amountMinor);
  if (byCurrency.size === 0) return none;
  return html`${[...byCurrency].sort(([a], [b]) => a.localeCompare(b)).map(([currency, minor], i) => html`${i > 0 ? html`<br>` : ''}${money(t, { amount_minor: minor, currency })}`)}`;
}

/** Successful ÷ finished (successful + failed); undefined while none finished. */
const rateOf = (t: Totals) => (t.successful + t.failed === 0 ? undefined : t.successful / (t.successful + t.failed));

export function overviewPage(view: ConsoleView, state: OverviewState): SafeHtml {
  const { t } = view;
  const { filters } = state;
  const percent = new Intl.NumberFormat(t('htmlLang'), { style: 'percent', maximumFractionDigits: 1 });
  const rateText = (totals: Totals) => {
    const rate = rateOf(totals);
    return rate === undefined ? '–' : percent.format(rate);
  };
  const methods = [...new Set(state.counts.map((c) => c.method))].sort();
  const byMethod = methods.map((method) => ({ method, totals: state.counts.filter((c) => c.method === method).reduce(add, none) }));
  const total = byMethod.map((m) => m.totals).reduce(add, none);
  const paidText = (paid: DailyAmount[]) => amountsText(paid, t, t('noAmounts'));
  const totalsRow = (label: SafeHtml | string, totals: Totals, paid: DailyAmount[]) =>
    html`<tr><th scope="row">${label}</th><td>${totals.payments}</td><td>${totals.successful}</td><td>${totals.failed}</td><td>${rateText(totals)}</td><td class="amount">${paidText(paid)}</td></tr>`;
  const headRow = (first: string) =>
    html`<thead><tr><th scope="col">${first}</th><th scope="col">${t('totalPayments')}</th><th scope="col">${t('successful')}</th><th scope="col">${t('failed')}</th><th scope="col">${t('successRate')}</th><th scope="col">${t('amountsPaid')}</th></tr></thead>`;
  const option = (value: string, label: string, chosen: string | undefined) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`;

  return layout(
    view,
    t('overviewTitle'),
    html`<main id="content">
<h1>${t('overviewTitle')} ${modeLabel(t, filters.mode)}</h1>
${modeSwitch(view, '/dashboard/overview', { ...filters }, filters.mode)}
<p>${t('overviewHint')}</p>
${state.problem ? html`<div class="problem" role="alert"><p>${state.problem}</p></div>` : ''}
<section class="card" aria-labelledby="period-title">
<h2 id="period-title">${t('period')}</h2>
<form method="get" action="/dashboard/overview" class="filters">
<div class="field"><label for="o-from">${t('createdFrom')}</label><input type="date" id="o-from" name="from" value="${filters.from}"></div>
<div class="field"><label for="o-to">${t('createdTo')}</label><input type="date" id="o-to" name="to" value="${filters.to}"></div>
${
  state.merchants
    ? html`<div class="field"><label for="o-merchant">${t('merchant')}</label><select id="o-merchant" name="merchant"><option value="">${t('any')}</option>${state.merchants.map((m) => option(m.id, `${m.name} (${m.id})`, filters.merchant))}</select></div>`
    : ''
}
<input type="hidden" name="mode" value="${filters.mode ?? ''}">
<div class="field"><button type="submit">${t('showPeriod')}</button></div>
</form>
</section>
${state.days.length === 0 ? '' : openDisputesCard(view, state.disputes, filters)}
${
  state.days.length === 0
    ? ''
    : total.payments === 0
      ? html`<p>${t('noPaymentsInPeriod')}</p>`
      : html`${volumeChart(view, state.days, methods, state.counts, {
          rateText,
          paidOn: (day) => paidText(state.paid.filter((p) => p.day === day)),
        })}
<section class="card" aria-labelledby="methods-title">
<h2 id="methods-title">${t('byMethod')}</h2>
<div class="table-wrap" tabindex="0" role="region" aria-label="${t('byMethod')}"><table>${headRow(t('method'))}<tbody>
${byMethod.map((m) =>
  totalsRow(
    html`${methodKey(m.method)} ${m.method}`,
    m.totals,
    state.paid.filter((p) => p.method === m.method),
  ),
)}
</tbody><tfoot>${totalsRow(t('total'), total, state.paid)}</tfoot></table></div>
<p class="hint">${t('amountsHint')}</p>
</section>`
}
</main>`,
  );
}

const WIDTH = 640;
const HEIGHT = 220;
const PLOT = { left: 44, right: 596, top: 14, bottom: 184 };

/**
 * Each method's colour in the chart, by its place in the methods table (ground/payment-method.ts),
 * so a method keeps its colour from period to period; every one at least 3:1 against the white
 * background (WCAG 1.4.11), the last for a method the table does not name.
 */
const methodColours = ['#1a56b8', '#b35c00', '#117a65', '#8e3b9e', '#b0004a', '#5a6b00', '#6b4f2a', '#555f6d'];
const colourOf = (method: string) => {
  const place = (paymentMethods as readonly string[]).indexOf(method);
  return methodColours[place < 0 ? methodColours.length - 1 : place % methodColours.length];
};
/** A method's colour as a key beside its name (the name says it; the swatch is decoration). */
const methodKey = (method: string) =>
  html`<svg class="key" width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" fill="${colourOf(method)}"></rect></svg>`;

/**
 * The one volume chart: a bar per day, made of a part per method, and a line for the day's success
 * rate; its numbers as a table below it, each method's payments a column.
 */
function volumeChart(
  view: ConsoleView,
  days: number[],
  methods: string[],
  counts: DailyMethodCount[],
  parts: { rateText: (t: Totals) => string; paidOn: (day: number) => SafeHtml | string },
): SafeHtml {
  const { t } = view;
  const countOf = (day: number, method: string) => counts.find((c) => c.day === day && c.method === method);
  const dayTotals = new Map(days.map((day) => [day, counts.filter((c) => c.day === day).reduce(add, none)]));
  const max = Math.max(1, ...[...dayTotals.values()].map((d) => d.payments));
  const slot = (PLOT.right - PLOT.left) / days.length;
  const x = (i: number) => PLOT.left + slot * i;
  const y = (share: number) => PLOT.bottom - (PLOT.bottom - PLOT.top) * share;
  const bars = days.map((day, i) => {
    let below = 0;
    return methods.map((method) => {
      const n = countOf(day, method)?.payments ?? 0;
      if (n === 0) return '';
      const part = html`<rect class="bar" fill="${colourOf(method)}" x="${(x(i) + slot * 0.15).toFixed(1)}" y="${y((below + n) / max).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(y(below / max) - y((below + n) / max)).toFixed(1)}"></rect>`;
      below += n;
      return part;
    });
  });
  // The line is broken on days with no finished payment: there is no rate to draw.
  let path = '';
  let drawing = false;
  const rates = days.map((day) => rateOf(dayTotals.get(day)!));
  rates.forEach((rate, i) => {
    if (rate === undefined) {
      drawing = false;
      return;
    }
    path += `${drawing ? 'L' : 'M'}${(x(i) + slot / 2).toFixed(1)} ${y(rate).toFixed(1)} `;
    drawing = true;
  });
  const dots = rates.map((rate, i) =>
    rate === undefined ? '' : html`<circle class="rate-dot" cx="${(x(i) + slot / 2).toFixed(1)}" cy="${y(rate).toFixed(1)}" r="2.5"></circle>`,
  );
  const first = isoDay(days[0]);
  const last = isoDay(days[days.length - 1]);
  const shownDays = days.filter((day) => dayTotals.get(day)!.payments > 0);
  return html`<section class="card" aria-labelledby="chart-heading">
<h2 id="chart-heading">${t('chartTitle')}</h2>
<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" focusable="false">
<title id="chart-title">${t('chartTitle')}</title>
<desc id="chart-desc">${t('chartDesc', { days: days.length, from: first, to: last, max, methods: methods.join(', ') })}</desc>
<line class="axis" x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}"></line>
<line class="grid" x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.right}" y2="${PLOT.top}"></line>
<line class="grid" x1="${PLOT.left}" y1="${y(0.5)}" x2="${PLOT.right}" y2="${y(0.5)}"></line>
<text x="${PLOT.left - 6}" y="${PLOT.bottom + 4}" text-anchor="end">0</text>
<text x="${PLOT.left - 6}" y="${PLOT.top + 4}" text-anchor="end">${max}</text>
<text x="${PLOT.right + 6}" y="${PLOT.bottom + 4}">0%</text>
<text x="${PLOT.right + 6}" y="${y(0.5) + 4}">50%</text>
<text x="${PLOT.right + 6}" y="${PLOT.top + 4}">100%</text>
<text x="${PLOT.left}" y="${HEIGHT - 14}">${first}</text>
<text x="${PLOT.right}" y="${HEIGHT - 14}" text-anchor="end">${last}</text>
${bars}
<path class="rate" d="${path.trim()}"></path>
${dots}
</svg>
<ul class="legend">${methods.map((method) => html`<li>${methodKey(method)} ${method}</li>`)}<li><span class="key-rate" aria-hidden="true"></span> ${t('successRate')}</li></ul>
<details><summary>${t('chartData')}</summary>
<div class="table-wrap" tabindex="0" role="region" aria-label="${t('chartData')}"><table><thead><tr><th scope="col">${t('day')}</th><th scope="col">${t('totalPayments')}</th>${methods.map((method) => html`<th scope="col">${method}</th>`)}<th scope="col">${t('successful')}</th><th scope="col">${t('failed')}</th><th scope="col">${t('successRate')}</th><th scope="col">${t('amountsPaid')}</th></tr></thead><tbody>
${shownDays.map((day) => {
  const totals = dayTotals.get(day)!;
  return html`<tr><th scope="row">${isoDay(day)}</th><td>${totals.payments}</td>${methods.map((method) => html`<td>${countOf(day, method)?.payments ?? 0}</td>`)}<td>${totals.successful}</td><td>${totals.failed}</td><td>${parts.rateText(totals)}</td><td class="amount">${parts.paidOn(day)}</td></tr>`;
})}
</tbody></table></div>
</details>
</section>`;
}
