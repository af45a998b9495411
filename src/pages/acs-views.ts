/** The test-mode issuer's pages (acs-pages.ts serves them): its one-time-code form and the page that takes the shopper back. */
import { TEST_ONE_TIME_CODE } from '../threeds/acs-simulator.ts';
import { html, type SafeHtml } from '../lib/html.ts';
import { moneyText, type Translate } from './i18n.ts';
import { autosubmitScript } from './assets.ts';
import { layout } from './views.ts';

export interface View {
  t: Translate;
  nonce: string;
}

export function bankPage(view: View, action: string, hidden: Record<string, string>, intro: string): SafeHtml {
  const { t } = view;
  const body = html`<main class="bank">
<p class="logo">Demo Bank</p>
<h1>${t('acsTitle')}</h1>
<p>${intro}</p>
<p class="test-banner" role="note">${t('acsTestCode', { code: TEST_ONE_TIME_CODE })}</p>
<form method="post" action="${action}">
${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="field">
<label for="otp">${t('acsCode')}</label>
<input type="text" id="otp" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required autofocus>
</div>
<button type="submit" class="primary">${t('acsSubmit')}</button>
<button type="submit" name="cancel" value="1" class="secondary">${t('acsCancel')}</button>
</form>
</main>`;
  return layout(view, t('acsTitle'), body);
}

export function returnPage(view: View, action: string, fields: Record<string, string>): SafeHtml {
  const { t } = view;
  const body = html`<main class="bank">
<p class="logo">Demo Bank</p>
<form method="post" action="${action}" data-autosubmit>
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<p>${t('acsDone')}</p>
<button type="submit" class="primary">${t('acsContinue')}</button>
</form>
</main>`;
  return layout(view, t('acsDone'), body, [autosubmitScript]);
}

/**
 * The amount as the issuer page's language writes it. The simulated Directory Server keeps the
 * AReq's amount as the decimal and its currency (`25.11 EUR`, ds-simulator.ts), as a real ACS
 * receives purchaseAmount and purchaseCurrency; anything else is shown as it is.
 */
export function localAmount(t: Translate, text: string): string {
  const match = /^(\d+(?:\.\d+)?) ([A-Z]{3})$/.exec(text);
  return match ? moneyText(t, match[1], match[2]) : text;
}
