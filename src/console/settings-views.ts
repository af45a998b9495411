/** The settings pages: the merchants (platform operators) and one merchant's settings, each change a plain form. */
import { html, trusted, type SafeHtml } from '../lib/html.ts';
import { cardBrands } from '../ground/card-brand.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { brandName } from '../ground/card-brand.ts';
import type { MerchantOverview } from '../merchants/merchants.ts';
import { vaultPaymentPaths } from '../merchants/merchants.ts';
import type { DeliveryView } from '../events/admin.ts';
import type { MessageKey } from './i18n.ts';
import { csrfField, deliveryView, layout, type ConsoleView } from './views.ts';

export interface SettingsMessages {
  notice?: string;
  /** A refused change: the form field at fault (as an `invalidSetting` problem names it) and why. */
  problem?: { field?: string; reason: string };
  /** The webhook URL as typed in a refused change, shown again to be corrected. */
  typedUrl?: string;
  /** A new key or secret, shown in this answer only. */
  shownOnce?: { label: MessageKey; value: string };
}

/** The label of each form field a change can be refused for. */
const fieldLabels: Record<string, MessageKey> = { url: 'webhookUrl', enable: 'paymentMethods', brands: 'cardBrands', path: 'vaultPath', mode: 'mode' };

export function merchantsPage(view: ConsoleView, merchants: MerchantOverview[]): SafeHtml {
  const { t } = view;
  return layout(
    view,
    t('merchantsTitle'),
    html`<main id="content"><h1>${t('merchantsTitle')}</h1>
<div class="table-wrap" tabindex="0" role="region" aria-label="${t('merchantsTitle')}"><table><caption>${t('merchantsCaption')}</caption>
<thead><tr><th scope="col">${t('merchant')}</th><th scope="col">${t('merchantId')}</th><th scope="col">${t('testKey')}</th><th scope="col">${t('liveKey')}</th></tr></thead><tbody>
${merchants.map(
  (m) =>
    html`<tr><td><a href="/dashboard/merchants/${m.id}">${m.name}</a></td><td>${m.id}</td><td>${prefixText(view, m.keyPrefixes.test)}</td><td>${prefixText(view, m.keyPrefixes.live)}</td></tr>`,
)}
</tbody></table></div></main>`,
  );
}

const prefixText = (view: ConsoleView, prefix: string | undefined) => (prefix ? `${prefix}…` : view.t('noKey'));

export function settingsPage(
  view: ConsoleView,
  state: SettingsMessages & { merchant: MerchantOverview; webhookUrl: string | null; testDeliveries: DeliveryView[] },
): SafeHtml {
  const { t } = view;
  const { merchant, problem } = state;
  const base = `/dashboard/merchants/${merchant.id}`;
  // The field at fault is marked invalid and pointed at the message (WCAG 3.3.1).
  const invalid = (name: string, hint?: string) => {
    const describedBy = [hint, problem?.field === name ? 'settings-problem' : undefined].filter(Boolean).join(' ');
    return html`${problem?.field === name ? trusted(' aria-invalid="true"') : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}`;
  };
  const form = (change: string, body: SafeHtml) => html`<form method="post" action="${base}/${change}">${csrfField(view)}${body}</form>`;
  return layout(
    view,
    t('settingsTitle', { name: merchant.name }),
    html`<main id="content">
<h1>${t('settingsTitle', { name: merchant.name })}</h1>
<p>${t('merchantId')}: ${merchant.id}</p>
${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
${
  problem
    ? html`<div class="problem" role="alert" id="settings-problem"><p>${t('notSaved', { field: problem.field && fieldLabels[problem.field] ? t(fieldLabels[problem.field]) : t('settings'), reason: problem.reason })}</p></div>`
    : ''
}
${
  state.shownOnce
    ? html`<section class="card secret" aria-labelledby="secret-title"><h2 id="secret-title">${t(state.shownOnce.label)}</h2><p>${t('shownOnce')}</p><p><code class="secret-value">${state.shownOnce.value}</code></p></section>`
    : ''
}
<section class="card" aria-labelledby="keys-title">
<h2 id="keys-title">${t('apiKeys')}</h2>
<p>${t('apiKeysHint')}</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="${t('apiKeys')}"><table><thead><tr><th scope="col">${t('mode')}</th><th scope="col">${t('activeKey')}</th><th scope="col">${t('actions')}</th></tr></thead><tbody>
${(['test', 'live'] as const).map(
  (mode) =>
    html`<tr><td>${mode}</td><td><code>${prefixText(view, merchant.keyPrefixes[mode])}</code></td><td>${form('api-key', html`<input type="hidden" name="mode" value="${mode}"><button type="submit" class="quiet">${t(mode === 'live' ? 'rotateLiveKey' : 'rotateTestKey')}</button>`)}</td></tr>`,
)}
</tbody></table></div>
</section>
<section class="card" aria-labelledby="webhook-title">
<h2 id="webhook-title">${t('webhookTitle')}</h2>
${form(
  'webhook-url',
  html`<div class="field"><label for="s-url">${t('webhookUrl')}</label><span class="hint" id="s-url-hint">${t('webhookUrlHint')}</span><input type="url" id="s-url" name="url" class="wide-input" value="${state.typedUrl ?? state.webhookUrl ?? ''}"${invalid('url', 's-url-hint')}></div><button type="submit">${t('save')}</button>`,
)}
<h3>${t('webhookSecret')}</h3>
<p>${t('webhookSecretHint')}</p>
${form('webhook-secret', html`<button type="submit" class="quiet">${t('rotateWebhookSecret')}</button>`)}
<h3>${t('testWebhook')}</h3>
<p>${t('testWebhookHint')}</p>
${form(
  'test-webhook',
  html`<div class="field"><label for="s-test-mode">${t('mode')}</label><select id="s-test-mode" name="mode"${invalid('mode')}><option value="test">test</option><option value="live">live</option></select></div><button type="submit" class="quiet">${t('sendTestWebhook')}</button>`,
)}
${state.testDeliveries.length === 0 ? html`<p>${t('noTestWebhooks')}</p>` : state.testDeliveries.map((d) => deliveryView(view, d))}
</section>
<section class="card" aria-labelledby="methods-title">
<h2 id="methods-title">${t('paymentMethods')}</h2>
<p id="s-methods-hint">${t('paymentMethodsHint')}</p>
${form(
  'payment-methods',
  html`<fieldset${invalid('enable', 's-methods-hint')}><legend>${t('paymentMethodsLegend')}</legend>${paymentMethods.map(
    (method) =>
      html`<div class="check"><input type="checkbox" id="s-method-${method}" name="methods" value="${method}"${merchant.settings.methods.includes(method) ? trusted(' checked') : ''}><label for="s-method-${method}">${method}</label></div>`,
  )}</fieldset><button type="submit">${t('save')}</button>`,
)}
</section>
<section class="card" aria-labelledby="brands-title">
<h2 id="brands-title">${t('cardBrands')}</h2>
${form(
  'card-brands',
  html`<fieldset${invalid('brands')}><legend>${t('cardBrandsLegend')}</legend>${cardBrands.map(
    (brand) =>
      html`<div class="check"><input type="checkbox" id="s-brand-${brand}" name="brands" value="${brand}"${merchant.settings.cardBrands.includes(brand) ? trusted(' checked') : ''}><label for="s-brand-${brand}">${brandName(brand)}</label></div>`,
  )}</fieldset><button type="submit">${t('save')}</button>`,
)}
</section>
<section class="card" aria-labelledby="vault-title">
<h2 id="vault-title">${t('vaultPath')}</h2>
${form(
  'vault-path',
  html`<fieldset${invalid('path')}><legend>${t('vaultPathLegend')}</legend>${vaultPaymentPaths.map(
    (path) =>
      html`<div class="check"><input type="radio" id="s-path-${path}" name="path" value="${path}"${merchant.settings.vaultPaymentPath === path ? trusted(' checked') : ''} aria-describedby="s-path-${path}-hint"><label for="s-path-${path}">${path}</label><span class="hint" id="s-path-${path}-hint">${t(path === 'direct' ? 'vaultDirect' : 'vaultConfirm')}</span></div>`,
  )}</fieldset><button type="submit">${t('save')}</button>`,
)}
</section>
</main>`,
  );
}
