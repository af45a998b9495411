/**
 * One transaction's console page (docs/console.md "Payments"): its payment object with Kassa's terms
 * in the page's language, dispute, refusal and 3-D Secure details, related transactions, events,
 * webhook deliveries, audit entries and the forms of the actions offered; and the confirmation an
 * action that moves money asks for.
 */
import { html, trusted, type SafeHtml } from '../lib/html.ts';
import type { ListedTransaction } from '../store/transaction-list.ts';
import type { AuditLogRow } from '../store/schema.ts';
import type { DeliveryView } from '../events/admin.ts';
import { LEFT_OUT_FIELD } from '../threeds/echo.ts';
import type { LeftOutField } from '../threeds/fields.ts';
import type { AcquirerRefusal } from '../acquirer/connector.ts';
import { term, type MessageKey, type TermKind, type Translate } from './i18n.ts';
import { testOutcomeNames, type ActionName, type TestOutcome } from './actions.ts';
import { auditTable, csrfField, deliveryView, layout, modeLabel, money, notices, raw, statusText, time, type ConsoleView } from './views.ts';
export interface PaymentPageState {
  row: ListedTransaction;
  merchantName: string;
  payment: Record<string, unknown>;
  authentication: { protocolVersion?: string; transStatus?: string; eci?: string; transStatusReason?: string } | null;
  acquirerReference: string | null;
  events: { at: number; from_status: string | null; to_status: string; failure_code: string | null; cause: string; detail: string | null }[];
  deliveries: DeliveryView[];
  related: ListedTransaction[];
  audit: AuditLogRow[];
  actions: Record<ActionName, boolean>;
  failureCodes: readonly string[];
  /** Paid by a bank transfer (its own method, or chosen on a landing page): a test completion's success is its money arriving. */
  paidByTransfer: boolean;
  /** The stages the test dispute form offers (actions.ts `testDisputeStages`). */
  testDisputeStages: readonly string[];
  notice?: string;
  problem?: string;
}

/** The button of each outcome a tester gives a test payment (docs/console.md "Actions"). */
const testOutcomeLabels = {
  paid: 'completion_paid',
  failed: 'completion_failed',
  cancelled: 'completion_cancelled',
  expired: 'completion_expired',
} as const satisfies Record<TestOutcome, MessageKey>;

/** A bank transfer is paid when its money arrives, days later (docs/payment-methods.md): its success button says so. */
const testOutcomeLabel = (outcome: TestOutcome, paidByTransfer: boolean): MessageKey =>
  outcome === 'paid' && paidByTransfer ? 'completion_arrived' : testOutcomeLabels[outcome];

/** A dispute's stage, reason and deadline (`details` of a chargeback, docs/disputes.md), and the payment it disputes. */
function disputeOf(t: Translate, row: ListedTransaction, payment: Record<string, unknown>): SafeHtml | string {
  if (row.type !== 'chargeback') return '';
  const details = payment.details as { stage: string; reasonCode?: string; reason?: string; schemeCode?: string; defensePeriodEndsAt?: string };
  const item = (label: MessageKey, value: string | undefined) => (value === undefined ? '' : html`<dt>${t(label)}</dt><dd>${value}</dd>`);
  return html`<section class="card" aria-labelledby="dispute-title">
<h2 id="dispute-title">${t('disputeTitle')}</h2>
<dl><dt>${t('disputeStage')}</dt><dd>${term(t, 'stage', details.stage)} (${details.stage})</dd>${item('reasonCode', details.reasonCode)}${item('reason', details.reason)}${item('schemeCode', details.schemeCode)}${item('defensePeriodEndsAt', details.defensePeriodEndsAt)}<dt>${t('disputedPayment')}</dt><dd><a href="/dashboard/payments/${row.parent_reference ?? ''}">${row.parent_reference ?? ''}</a></dd></dl>
</section>`;
}

/** An authorisation whose reversal the acquirer never answered, held for an operator (`details.acquirerOutcomeUnknown`, docs/acquirers.md "Claims and leases"). */
function reversalHeldOf(t: Translate, payment: Record<string, unknown>): SafeHtml | string {
  if ((payment.details as { acquirerOutcomeUnknown?: string } | undefined)?.acquirerOutcomeUnknown !== 'reversal') return '';
  return html`<section class="card" aria-labelledby="reversal-held-title">
<h2 id="reversal-held-title">${t('reversalHeldTitle')}</h2>
<p class="notice" role="status">${t('reversalHeldText')}</p>
</section>`;
}

/** The payment object's fields whose values are Kassa's terms, shown in the page's language with the value itself. */
const termFields: Partial<Record<string, TermKind>> = { status: 'status', type: 'type', failureCode: 'failureCode' };

/** The payment object's times are milliseconds since 1970 (docs/api.md#the-payment-object): shown as UTC dates, the number itself in the raw object. */
const showField = (t: Translate, key: string, value: unknown): SafeHtml | string =>
  (key === 'created' || key === 'lastUpdate') && typeof value === 'number'
    ? time(value)
    : typeof value === 'object' && value !== null
      ? raw(t, value)
      : termFields[key]
        ? `${term(t, termFields[key], String(value))} (${String(value)})`
        : String(value);

/** The 3-D Secure fields the issuer did not get, each with why, named as in the payment object (docs/threeds.md). */
function leftOutFields(payment: Record<string, unknown>): SafeHtml | string {
  const entries = payment[LEFT_OUT_FIELD] as LeftOutField[] | undefined;
  return entries === undefined
    ? ''
    : html`<dl><dt>${LEFT_OUT_FIELD}</dt><dd><ul>${entries.map((e) => html`<li><code>${e.field}</code> ${e.message}</li>`)}</ul></dd></dl>`;
}

/** Why the acquirer refused the payment and whether the card may be tried again (`details.acquirerRefusal`, docs/api.md#the-details-object). */
function acquirerRefusalOf(t: Translate, payment: Record<string, unknown>): SafeHtml | string {
  const refusal = (payment.details as { acquirerRefusal?: AcquirerRefusal } | undefined)?.acquirerRefusal;
  if (!refusal) return '';
  const item = (label: MessageKey, value: string | undefined) => (value === undefined ? '' : html`<dt>${t(label)}</dt><dd>${value}</dd>`);
  return html`<h3>${t('acquirerRefusal')}</h3><dl>${item('refusalReason', refusal.reason)}${item('refusalCode', refusal.code)}${item('merchantAdviceCode', refusal.merchantAdviceCode)}<dt>${t('retryAdvice')}</dt><dd class="retry-${refusal.retry.replaceAll(' ', '-')}">${term(t, 'retry', refusal.retry)}</dd></dl>`;
}

export function paymentPage(view: ConsoleView, state: PaymentPageState): SafeHtml {
  const { t } = view;
  const { row, authentication, actions } = state;
  const reference = row.reference;
  const action = (name: string, title: MessageKey, fields: SafeHtml = html``) =>
    html`<form method="post" action="/dashboard/payments/${reference}/${name}" aria-label="${t(title)}">${csrfField(view)}${fields}<button type="submit">${t(title)}</button></form>`;
  const anyAction = Object.values(actions).some(Boolean);
  return layout(
    view,
    t('paymentTitle', { reference }),
    html`<main id="content">
<p><a href="/dashboard/payments">${t('backToList')}</a></p>
<h1>${t('paymentTitle', { reference })}</h1>
${notices(state)}
<section class="card" aria-labelledby="summary-title">
<h2 id="summary-title" class="visually-hidden">${t('amount')}</h2>
<p><strong>${money(t, row)}</strong> · ${statusText(t, row)} · ${term(t, 'type', row.type)} · ${row.method} · ${modeLabel(t, row.mode)} · ${state.merchantName} (${row.merchant_id})</p>
</section>
${disputeOf(t, row, state.payment)}
${reversalHeldOf(t, state.payment)}
<section class="card" aria-labelledby="actions-title">
<h2 id="actions-title">${t('actions')}</h2>
${
  anyAction
    ? html`<div class="actions">
${actions.refund ? action('refund', 'refund', html`<div class="field"><label for="refund-amount">${t('refundAmount')}</label><span class="hint" id="refund-amount-hint">${t('refundAmountHint')}</span><input type="text" id="refund-amount" name="amount" inputmode="decimal" aria-describedby="refund-amount-hint"></div>`) : ''}
${actions.capture ? action('capture', 'capture', html`<div class="field"><label for="capture-amount">${t('captureAmount')}</label><span class="hint" id="capture-amount-hint">${t('captureAmountHint')}</span><input type="text" id="capture-amount" name="amount" inputmode="decimal" aria-describedby="capture-amount-hint"></div>`) : ''}
${actions.reversal ? action('reversal', 'reversal') : ''}
${actions.cancel ? action('cancel', 'cancel') : ''}
${
  actions.complete
    ? html`<form method="post" action="/dashboard/payments/${reference}/complete" aria-label="${t('complete')}">${csrfField(view)}<fieldset aria-describedby="complete-hint"><legend>${t('complete')}</legend><span class="hint" id="complete-hint">${t('completeHint')}</span><div class="choices">${testOutcomeNames.map(
        (outcome) =>
          html`<button type="submit" name="outcome" value="${outcome}"${outcome === 'paid' ? '' : trusted(' class="quiet"')}>${t(testOutcomeLabel(outcome, state.paidByTransfer))}</button>`,
      )}</div></fieldset></form>`
    : ''
}
${
  actions.dispute
    ? action(
        'dispute',
        'dispute',
        html`<span class="hint" id="dispute-hint">${t('disputeHint')}</span><div class="field"><label for="dispute-stage">${t('disputeStage')}</label><select id="dispute-stage" name="stage" aria-describedby="dispute-hint">${state.testDisputeStages.map((stage) => html`<option value="${stage}">${term(t, 'stage', stage)}</option>`)}</select></div>
${row.type === 'chargeback' ? '' : html`<div class="field"><label for="dispute-amount">${t('disputeAmount')}</label><span class="hint" id="dispute-amount-hint">${t('disputeAmountHint')}</span><input type="text" id="dispute-amount" name="amount" inputmode="decimal" aria-describedby="dispute-amount-hint"></div>`}`,
      )
    : ''
}
${actions.accept ? action('accept', 'accept', html`<span class="hint">${t('acceptHint')}</span>`) : ''}
${
  actions.resolve
    ? action(
        'resolve',
        'resolve',
        html`<div class="field"><label for="resolve-outcome">${t('outcome')}</label><select id="resolve-outcome" name="outcome">${(['success', 'failed'] as const).map((outcome) => html`<option value="${outcome}">${term(t, 'status', outcome)}</option>`)}</select></div>
<div class="field"><label for="resolve-code">${t('failureCode')}</label><select id="resolve-code" name="failureCode"><option value=""></option>${state.failureCodes.map((code) => html`<option value="${code}">${term(t, 'failureCode', code)}</option>`)}</select></div>
<div class="field"><label for="resolve-reason">${t('reason')}</label><span class="hint" id="resolve-reason-hint">${t('reasonHint')}</span><input type="text" id="resolve-reason" name="reason" required maxlength="500" aria-describedby="resolve-reason-hint"></div>`,
      )
    : ''
}
</div>`
    : html`<p>${t('noActions')}</p>`
}
</section>
<section class="card" aria-labelledby="object-title">
<h2 id="object-title">${t('paymentObject')}</h2>
<dl>${Object.entries(state.payment).map(([key, value]) => html`<dt>${key}</dt><dd>${showField(t, key, value)}</dd>`)}</dl>
${raw(t, state.payment)}
</section>
<section class="card" aria-labelledby="threeds-title">
<h2 id="threeds-title">${t('threeDS')}</h2>
${
  authentication
    ? html`<dl><dt>${t('protocolVersion')}</dt><dd>${authentication.protocolVersion ?? ''}</dd><dt>${t('transStatus')}</dt><dd>${authentication.transStatus ?? ''}${authentication.transStatusReason ? ` (${authentication.transStatusReason})` : ''}</dd><dt>${t('eci')}</dt><dd>${authentication.eci ?? ''}</dd></dl>`
    : html`<p>${t('threeDSNone')}</p>`
}
${leftOutFields(state.payment)}
<h2>${t('acquirer')}</h2>
${state.acquirerReference ? html`<dl><dt>${t('acquirerReference')}</dt><dd>${state.acquirerReference}</dd></dl>` : html`<p>${t('acquirerNone')}</p>`}
${acquirerRefusalOf(t, state.payment)}
</section>
<section class="card" aria-labelledby="events-title">
<h2 id="events-title">${t('timeline')}</h2>
<div class="table-wrap" tabindex="0" role="region" aria-label="${t('timeline')}"><table><thead><tr><th scope="col">${t('at')}</th><th scope="col">${t('change')}</th><th scope="col">${t('cause')}</th></tr></thead><tbody>
${state.events.map(
  (e) =>
    html`<tr><td>${time(e.at)}</td><td>${e.from_status ? term(t, 'status', e.from_status) : '–'} → ${term(t, 'status', e.to_status)}${e.failure_code ? ` / ${term(t, 'failureCode', e.failure_code)}` : ''}</td><td>${term(t, 'cause', e.cause)}${e.detail ? html`<span class="hint">${e.detail}</span>` : ''}</td></tr>`,
)}
</tbody></table></div>
</section>
${relatedSection(
  view,
  'related',
  state.related.filter((r) => r.type !== 'chargeback'),
  (r) => term(t, 'type', r.type),
)}
${
  disputable.includes(row.type) || state.related.some((r) => r.type === 'chargeback')
    ? relatedSection(
        view,
        'disputes',
        state.related.filter((r) => r.type === 'chargeback'),
        (r) => term(t, 'stage', (JSON.parse(r.details) as { stage: string }).stage),
      )
    : ''
}
<section class="card" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">${t('webhooks')}</h2>
${state.deliveries.length === 0 ? html`<p>${t('noWebhooks')}</p>` : state.deliveries.map((d) => deliveryView(view, d))}
</section>
<section class="card" aria-labelledby="audit-title">
<h2 id="audit-title">${t('auditTitle')}</h2>
${auditTable(view, state.audit)}
</section>
</main>`,
  );
}

/** The transactions a payment can be disputed as (a refund, an enrollment or a dispute cannot). */
const disputable: readonly string[] = ['sale', 'authorise'];

/**
 * A section of the transactions made from this one: its refunds and captures, or its disputes, each
 * kind on its own (docs/console.md "Payments"); `kind` says what each is (a type, a dispute's stage).
 */
function relatedSection(view: ConsoleView, title: 'related' | 'disputes', rows: ListedTransaction[], kind: (row: ListedTransaction) => string): SafeHtml {
  const { t } = view;
  return html`<section class="card" aria-labelledby="${title}-title">
<h2 id="${title}-title">${t(title)}</h2>
${
  rows.length === 0
    ? html`<p>${t('noRelated')}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t(title)}"><table><thead><tr><th scope="col">${t('reference')}</th><th scope="col">${t('created')}</th><th scope="col">${t(title === 'disputes' ? 'disputeStage' : 'type')}</th><th scope="col">${t('status')}</th><th scope="col">${t('amount')}</th></tr></thead><tbody>
${rows.map((r) => html`<tr><td><a href="/dashboard/payments/${r.reference}">${r.reference}</a></td><td>${time(r.created)}</td><td>${kind(r)}</td><td>${statusText(t, r)}</td><td>${money(t, r)}</td></tr>`)}
</tbody></table></div>`
}
</section>`;
}

/**
 * The confirmation an action that moves money asks for (docs/console.md "Actions"): the amount and
 * currency the operation would move, and a form posting the same values, now confirmed, with the
 * same CSRF token.
 */
export function confirmPage(
  view: ConsoleView,
  state: {
    row: ListedTransaction;
    action: ActionName;
    preview: { amountMinor: number; currency: string };
    carried: Record<string, string>;
    paidByTransfer: boolean;
  },
): SafeHtml {
  const { t } = view;
  const { row, action, preview, carried } = state;
  const amount = money(t, { amount_minor: preview.amountMinor, currency: preview.currency });
  // A test completion was previewed with one of the tester's outcomes, so its words are known.
  const outcome =
    action === 'complete'
      ? t(testOutcomeLabel(carried.outcome as TestOutcome, state.paidByTransfer))
      : action === 'dispute'
        ? term(t, 'stage', carried.stage ?? '')
        : term(t, 'status', carried.outcome ?? '');
  const question = t(`confirm_${action}` as MessageKey, { amount, reference: row.reference, outcome });
  return layout(
    view,
    t('confirmTitle', { action: t(action) }),
    html`<main id="content">
<h1>${t('confirmTitle', { action: t(action) })}</h1>
<section class="card confirm">
<p><strong>${question}</strong></p>
${carried.reason ? html`<p>${t('confirmReason', { reason: carried.reason })}</p>` : ''}
<form method="post" action="/dashboard/payments/${row.reference}/${action}">${csrfField(view)}${Object.entries(carried).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
    )}<input type="hidden" name="confirmed" value="yes"><button type="submit">${t(action)}</button> <a href="/dashboard/payments/${row.reference}">${t('confirmBack')}</a></form>
</section>
</main>`,
  );
}
