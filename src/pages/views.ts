/**
 * The customer pages as template functions: the card form, the landing page, the
 * challenge pop-up, the 3DS1 redirect step, the outcome. Every text comes from the
 * translations; every value is escaped by `html`.
 *
 * Over 400 lines (427) for now: the pages share the layout, the summary, the CSRF and browser-fact
 * fields and the cancel form, and the card form and the stored card share its error summary; the 3-D
 * Secure step pages (challenge, frames, notify, 3DS method) are the part to move to a file of their
 * own next (the test issuer's are in acs-views.ts, a method's simulator in method-views.ts).
 */
import { html, htmlDocument, jsonScriptData, trusted, type SafeHtml } from '../lib/html.ts';
import { autosubmitScript, browserFactsScript, cardScript, challengeScript, methodScript, notifyScript, stylesheet } from './assets.ts';
import { formatDateTime, formatNumber, type MessageKey, type Translate } from './i18n.ts';
import { brandMark, methodMark } from './marks.ts';
import type { OfferedMethod } from '../ground/payment-method.ts';
import type { CardError, CardField } from '../payments/requests/card-input.ts';
import { brandName, ruleOf } from '../ground/card-brand.ts';
import type { CardBrand } from '../ground/card-brand.ts';

export interface PaymentView {
  t: Translate;
  nonce: string;
  /** The payUrl's capability token. */
  token: string;
  csrf: string;
  merchantName: string;
  amountText: string;
  description?: string | null;
  testMode: boolean;
  returnUrl?: string | null;
  /** A vault enrollment stores a card: no amount, "save" instead of "pay". */
  enrollment?: boolean;
}

export function layout(view: Pick<PaymentView, 't' | 'nonce'>, title: string, body: SafeHtml, scripts: string[] = [], head: SafeHtml = html``): SafeHtml {
  const { t, nonce } = view;
  return htmlDocument({
    lang: t('htmlLang'),
    nonce,
    title,
    stylesheet,
    // Kassa's own icon on every page (served by site.ts), so no browser asks the shop's or another site's.
    head: html`<link rel="icon" href="/favicon.svg" type="image/svg+xml">${head}`,
    body: html`${body}
${scripts.map((script) => html`<script nonce="${nonce}">${trusted(script)}</script>`)}`,
  });
}

/**
 * What a page's test banner tells its tester (docs/pages.md "Test mode"): the card numbers only
 * where a card is typed, the method choice's own on the landing page; `none` where the page shows
 * its own (the wallet button's, a method's outcome buttons).
 */
export type TestBanner = 'testMode' | 'testModeCard' | 'testModeEnrollment' | 'testModeStoredCard' | 'testModeChoice' | 'none';

export function summary(view: PaymentView, banner: TestBanner = 'testMode'): SafeHtml {
  const { t } = view;
  return html`<header class="summary">
<p class="merchant">${t('payTo', { merchant: view.merchantName })}</p>
${view.enrollment ? html`<p class="amount">${t('enrollTitle')}</p>` : html`<p class="amount"><span class="visually-hidden">${t('amount')}: </span>${view.amountText}</p>`}
${view.description ? html`<p class="description">${view.description}</p>` : ''}
</header>
${view.testMode && banner !== 'none' ? html`<p class="test-banner" role="note">${t(banner)}</p>` : ''}`;
}

export const csrfField = (view: PaymentView) => html`<input type="hidden" name="csrf" value="${view.csrf}">`;

/** Hidden fields browserFactsScript fills in for the 3-D Secure AReq (js stays 0 without scripts). */
const browserFactFields = () => html`<input type="hidden" name="js" value="0">
<input type="hidden" name="screenWidth" value=""><input type="hidden" name="screenHeight" value=""><input type="hidden" name="colorDepth" value="">
<input type="hidden" name="timeZone" value=""><input type="hidden" name="browserLanguage" value=""><input type="hidden" name="windowWidth" value="">`;

const submitLabel = (view: PaymentView) => (view.enrollment ? view.t('saveCard') : view.t('pay', { amount: view.amountText }));

/** The form's error summary, announced to screen readers, with the attempts left when counted. */
const errorSummary = (view: PaymentView, message: string, attemptsLeft?: number) =>
  html`<div class="error-summary" role="alert"><p>${message}${attemptsLeft !== undefined ? html` ${view.t('attemptsLeft', { count: formatNumber(view.t, attemptsLeft) })}` : ''}</p></div>`;

function cancelForm(view: PaymentView): SafeHtml {
  return html`<form method="post" action="/pay/${view.token}/cancel">${csrfField(view)}<button type="submit" class="secondary">${view.t('cancel')}</button></form>`;
}

/** Where the card script puts the brand it detects into the page's "Card type" text (assets.ts cardScript). */
const BRAND_SLOT = '{brand}';

export interface CardFormState {
  accepted: readonly CardBrand[];
  preselected?: CardBrand;
  errors?: Partial<Record<CardField, CardError>>;
  /** Values typed before, shown again after errors: never the card number or CVC. */
  values?: { expiry?: string; holderName?: string };
  attemptsLeft?: number;
  notice?: string;
}

export function cardPage(view: PaymentView, state: CardFormState): SafeHtml {
  const { t } = view;
  const errors = state.errors ?? {};
  const brands = state.preselected ? [state.preselected] : state.accepted;
  const cvcLength = (brand: CardBrand) => ruleOf(brand).cvcLength;
  const askCvc = brands.some((brand) => cvcLength(brand) > 0);
  const cvcDigits = [...new Set(brands.map(cvcLength).filter((n) => n > 0))].join('/');
  const errorText = (field: CardField) => {
    const code = errors[field];
    if (!code) return undefined;
    return t(code as MessageKey, { brand: state.preselected ? brandName(state.preselected) : '', length: cvcDigits });
  };
  const describedBy = (field: CardField, hint = true) => [hint ? `${field}-hint` : '', errors[field] ? `${field}-error` : ''].filter(Boolean).join(' ');
  const errorLine = (field: CardField) => html`<p class="error" id="${field}-error"${errors[field] ? '' : trusted(' hidden')}>${errorText(field) ?? ''}</p>`;
  const invalid = (field: CardField) => (errors[field] ? trusted(' aria-invalid="true"') : '');
  const rules = brands.map((brand) => ruleOf(brand));
  const hasErrors = Object.keys(errors).length > 0;
  const body = html`<main>
${summary(view, view.enrollment ? 'testModeEnrollment' : 'testModeCard')}
<h1>${t('cardDetails')}</h1>
<p class="accepted"><span class="visually-hidden">${t('acceptedCards', { brands: brands.map(brandName).join(', ') })}</span><span class="marks">${brands.map(brandMark)}</span></p>
${hasErrors || state.notice ? errorSummary(view, state.notice ?? t('formErrors'), state.attemptsLeft) : ''}
<form id="card-form" method="post" action="/pay/${view.token}/card" novalidate data-browser-facts data-brand-label="${t('brandDetected', { brand: BRAND_SLOT })}" data-number-invalid="${t('number_invalid')}">
${csrfField(view)}
${browserFactFields()}
<div class="field">
<label for="cardNumber">${t('cardNumber')}</label>
<span class="hint" id="cardNumber-hint">${t('cardNumberHint')}</span>
<input type="text" id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" maxlength="23" spellcheck="false" required aria-describedby="${describedBy('cardNumber')} cardNumber-brand"${invalid('cardNumber')}>
<p class="brand" id="cardNumber-brand" aria-live="polite">${state.preselected ? t('brandDetected', { brand: brandName(state.preselected) }) : ''}</p>
${errorLine('cardNumber')}
</div>
${
  state.preselected
    ? ''
    : html`<fieldset id="brand-choice" hidden><legend>${t('brandChoice')}</legend>${brands.map(
        (brand) => html`<label data-brand="${brand}" hidden><input type="radio" name="brand" value="${brand}"> ${brandMark(brand)} ${brandName(brand)}</label>`,
      )}</fieldset>`
}
<div class="row">
<div class="field">
<label for="expiry">${t('expiry')}</label>
<input type="text" id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="${t('expiryHint')}" maxlength="7" required value="${state.values?.expiry ?? ''}" aria-describedby="${describedBy('expiry')}"${invalid('expiry')}>
<span class="hint" id="expiry-hint">${t('expiryHint')}</span>
${errorLine('expiry')}
</div>
${
  askCvc
    ? html`<div class="field" id="cvc-field">
<label for="cvc">${t('cvc')}</label>
<input type="text" id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required aria-describedby="${describedBy('cvc')}"${invalid('cvc')}>
<span class="hint" id="cvc-hint">${t('cvcHint')}</span>
${errorLine('cvc')}
</div>`
    : ''
}
</div>
<div class="field">
<label for="holderName">${t('holderName')}</label>
<input type="text" id="holderName" name="holderName" autocomplete="cc-name" maxlength="45" required value="${state.values?.holderName ?? ''}"${errors.holderName ? trusted(' aria-describedby="holderName-error" aria-invalid="true"') : ''}>
${errorLine('holderName')}
</div>
<button type="submit" class="primary">${submitLabel(view)}</button>
</form>
${cancelForm(view)}
</main>
<script type="application/json" id="brand-rules">${jsonScriptData(rules.map(({ brand, name, patterns, cvcLength }) => ({ brand, name, patterns, cvcLength })))}</script>`;
  return layout(view, t('title', { merchant: view.merchantName }), body, [browserFactsScript, cardScript]);
}

export interface StoredCardState {
  brand: CardBrand;
  maskedPan: string;
  holderName?: string;
  /** The merchant's `confirm` path: the CVC is asked; `direct`: only a pay button. */
  askCvc: boolean;
  errors?: Partial<Record<CardField, CardError>>;
  attemptsLeft?: number;
}

/** A vault payment (docs/decisions.md#vault): the stored card, shown masked, and a pay button; on the confirm path also the CVC field. */
export function storedCardPage(view: PaymentView, state: StoredCardState): SafeHtml {
  const { t } = view;
  const errors = state.errors ?? {};
  const cvcDigits = String(ruleOf(state.brand).cvcLength);
  const askCvc = state.askCvc && ruleOf(state.brand).cvcLength > 0;
  const hasErrors = Object.keys(errors).length > 0;
  const body = html`<main>
${summary(view, 'testModeStoredCard')}
<h1>${t('storedCard')}</h1>
${hasErrors ? errorSummary(view, t('formErrors'), state.attemptsLeft) : ''}
<form id="stored-card-form" method="post" action="/pay/${view.token}/vault" novalidate data-browser-facts>
${csrfField(view)}
${browserFactFields()}
<div class="field">
<label for="maskedPan">${t('cardNumber')}</label>
<input type="text" id="maskedPan" value="${state.maskedPan}" readonly aria-describedby="maskedPan-brand">
<p class="brand" id="maskedPan-brand">${brandMark(state.brand)} ${t('brandDetected', { brand: brandName(state.brand) })}</p>
${errors.expiry ? html`<p class="error" id="expiry-error">${t(errors.expiry as MessageKey)}</p>` : ''}
</div>
${state.holderName ? html`<div class="field"><label for="holderName">${t('holderName')}</label><input type="text" id="holderName" value="${state.holderName}" readonly></div>` : ''}
${
  askCvc
    ? html`<div class="field" id="cvc-field">
<label for="cvc">${t('cvc')}</label>
<span class="hint" id="cvc-hint">${t('cvcHint')}</span>
<input type="text" id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required aria-describedby="cvc-hint${errors.cvc ? ' cvc-error' : ''}"${errors.cvc ? trusted(' aria-invalid="true"') : ''}>
<p class="error" id="cvc-error"${errors.cvc ? '' : trusted(' hidden')}>${errors.cvc ? t(errors.cvc as MessageKey, { length: cvcDigits }) : ''}</p>
</div>`
    : ''
}
<button type="submit" class="primary">${submitLabel(view)}</button>
</form>
${cancelForm(view)}
</main>`;
  return layout(view, t('title', { merchant: view.merchantName }), body, [browserFactsScript]);
}

export function landingPage(view: PaymentView, methods: readonly OfferedMethod[], validUntil?: Date): SafeHtml {
  const { t } = view;
  const body = html`<main>
${summary(view, 'testModeChoice')}
<h1>${t('chooseMethod')}</h1>
<form method="post" action="/pay/${view.token}/method" class="methods">
${csrfField(view)}
${methods.map((method) => html`<button type="submit" name="method" value="${method}">${methodMark(method)} ${t(`method_${method}`)}</button>`)}
</form>
${validUntil ? html`<p class="accepted">${t('validUntil', { time: formatDateTime(t, validUntil) })}</p>` : ''}
${cancelForm(view)}
</main>`;
  return layout(view, t('title', { merchant: view.merchantName }), body);
}

/** The hosted wallet flow. Test mode only: the button stands in for the wallet sheet (docs/decisions.md#wallet). */
export function walletPage(view: PaymentView): SafeHtml {
  const { t } = view;
  const body = html`<main>
${summary(view, 'none')}
<h1>${t('walletTitle')}</h1>
<p class="test-banner" role="note">${t('walletTestSheet')}</p>
<form method="post" action="/pay/${view.token}/wallet">
${csrfField(view)}
<button type="submit" class="primary">${t('walletPay', { amount: view.amountText })}</button>
</form>
${cancelForm(view)}
</main>`;
  return layout(view, t('title', { merchant: view.merchantName }), body);
}

const WINDOW_CLASSES: Record<string, string> = { W250H400: 'window-01', W390H400: 'window-02', W500H600: 'window-03', W600H400: 'window-04', FULL_SCREEN: 'window-05' };

export interface ChallengeView {
  sessionId: string;
  windowSize: string;
  sealedCard: string;
  pending?: boolean;
}

/**
 * The challenge pop-up: a modal over Kassa's page holding the issuer's window, sized by
 * challengeWindowSize. Its one cancel is the issuer's own, inside the window: EMVCo's challenge
 * screens always offer one, and its answer ends the challenge as any other (docs/pages.md "3-D Secure").
 */
export function challengePage(view: PaymentView, challenge: ChallengeView): SafeHtml {
  const { t } = view;
  const windowClass = WINDOW_CLASSES[challenge.windowSize] ?? 'window-05';
  const body = html`<main>
${summary(view)}
<h1>${t('challengeTitle')}</h1>
<p>${t('challengeIntro')}</p>
</main>
<div class="backdrop">
<div class="modal${windowClass === 'window-05' ? ' modal-full' : ''}" role="dialog" aria-modal="true" aria-labelledby="challenge-title">
<h2 id="challenge-title">${t('challengeTitle')}</h2>
${challenge.pending ? html`<p class="error" role="alert">${t('challengePending')}</p>` : ''}
<iframe name="challenge-window" class="${windowClass}" title="${t('challengeFrame')}" src="/pay/${view.token}/3ds/frame/${challenge.sessionId}"></iframe>
<form id="complete-form" method="post" action="/pay/${view.token}/3ds/complete">
${csrfField(view)}
<input type="hidden" name="session" value="${challenge.sessionId}">
<input type="hidden" name="sealedCard" value="${challenge.sealedCard}">
<noscript><button type="submit" class="primary">${t('challengeContinue')}</button></noscript>
</form>
</div>
</div>`;
  return layout(view, t('challengeTitle'), body, [challengeScript]);
}

/** Inside the challenge window: posts the CReq to the ACS (by itself when scripts run). */
export function challengeFramePage(view: Pick<PaymentView, 't' | 'nonce'>, acsUrl: string, creq: string, sessionData: string): SafeHtml {
  const { t } = view;
  const body = html`<main class="bank">
<form method="post" action="${acsUrl}" data-autosubmit>
<input type="hidden" name="creq" value="${creq}">
<input type="hidden" name="threeDSSessionData" value="${sessionData}">
<p>${t('redirecting')}</p>
<noscript><button type="submit" class="primary">${t('acsContinue')}</button></noscript>
</form>
</main>`;
  return layout(view, t('challengeFrame'), body, [autosubmitScript]);
}

/** The notification URL's answer, inside the challenge window or the 3DS method's hidden frame: tells Kassa's page to go on. */
export function notifyPage(view: Pick<PaymentView, 't' | 'nonce'>, done: 'challenge' | 'method' = 'challenge'): SafeHtml {
  const { t } = view;
  return layout(view, t('acsDone'), html`<main class="bank" data-notify="kassa:${done}-complete"><h1>${t('acsDone')}</h1></main>`, [notifyScript]);
}

export interface MethodView {
  sessionId: string;
  sealedCard: string;
}

/**
 * The issuer's 3DS method (3-D Secure by the acquirer): a hidden frame in which Kassa's page
 * posts the 3DS method data to the issuer, and the completion form that goes on when it is done.
 * Without scripts the method cannot run: a Continue button sends the form (`N`, not done).
 */
export function methodPage(view: PaymentView, method: MethodView): SafeHtml {
  const { t } = view;
  const body = html`<main>
${summary(view)}
<h1>${t('methodTitle')}</h1>
<p>${t('methodIntro')}</p>
<iframe name="method-window" class="method-frame" title="${t('methodFrame')}" tabindex="-1" aria-hidden="true" src="/pay/${view.token}/3ds/method/${method.sessionId}"></iframe>
<form id="method-form" method="post" action="/pay/${view.token}/3ds/method-complete">
${csrfField(view)}
<input type="hidden" name="session" value="${method.sessionId}">
<input type="hidden" name="sealedCard" value="${method.sealedCard}">
<input type="hidden" name="completed" value="N">
<noscript><button type="submit" class="primary">${t('challengeContinue')}</button></noscript>
</form>
</main>`;
  return layout(view, t('methodTitle'), body, [methodScript]);
}

/** Inside the 3DS method's hidden frame: posts the 3DS method data to the issuer (by itself; scripts run where a method can). */
export function methodFramePage(view: Pick<PaymentView, 't' | 'nonce'>, methodUrl: string, methodData: string): SafeHtml {
  const { t } = view;
  const body = html`<main class="bank">
<form method="post" action="${methodUrl}" data-autosubmit>
<input type="hidden" name="threeDSMethodData" value="${methodData}">
</form>
</main>`;
  return layout(view, t('methodFrame'), body, [autosubmitScript]);
}

/**
 * A step elsewhere that the customer reaches by a POST: the form posts `fields` to `url` by itself
 * (its button without scripts). The 3-D Secure 1 step (the PaReq to the issuer's ACS), and a
 * method whose acquirer sends the customer on by a POST (docs/acquirers.md "Methods paid
 * elsewhere through Adyen"), each with its own texts.
 */
export function postRedirectPage(
  view: PaymentView,
  step: { url: string; fields: Readonly<Record<string, string>>; texts: { title: MessageKey; intro: MessageKey; button: MessageKey } },
): SafeHtml {
  const { t } = view;
  const { texts } = step;
  const body = html`<main>
${summary(view)}
<h1>${t(texts.title)}</h1>
<p>${t(texts.intro)}</p>
<form method="post" action="${step.url}" data-autosubmit>
${Object.entries(step.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="primary">${t(texts.button)}</button>
</form>
</main>`;
  return layout(view, t(texts.title), body, [autosubmitScript]);
}

/**
 * The outcome. `refresh` reloads it while a payment is still processing; `goTo` sends the
 * browser on to the returnUrl at once (used where a 303 cannot be: after the 3DS1 ACS's
 * post, whose page's form-action would not allow the merchant's address).
 */
/** Where the customer pays a bank transfer, and what to quote (docs/payment-methods.md "Bank transfer"): the simulated account in test mode, the acquirer's live. */
export interface TransferView {
  beneficiary: string;
  iban: string;
  bic?: string;
  reference: string;
}

export function transferInstructions({ t, amountText }: PaymentView, transfer: TransferView): SafeHtml {
  return html`<p>${t('sim_transferIntro', { amount: amountText })}</p>
<dl class="transfer">
<dt>${t('sim_iban')}</dt><dd>${transfer.iban}</dd>
${transfer.bic ? html`<dt>${t('sim_bic')}</dt><dd>${transfer.bic}</dd>` : ''}
<dt>${t('sim_beneficiary')}</dt><dd>${transfer.beneficiary}</dd>
<dt>${t('sim_reference')}</dt><dd><strong>${transfer.reference}</strong></dd>
</dl>
<p class="accepted">${t('sim_transferQuote')}</p>`;
}

export function outcomePage(view: PaymentView, status: string, failureCode: string | null, refresh = false, goTo?: string, transfer?: TransferView): SafeHtml {
  const { t } = view;
  const enrolled = view.enrollment && status === 'success';
  const title = enrolled ? t('enrolled') : t(`outcome_${status}` as MessageKey);
  const detail =
    status === 'failed'
      ? t(`failure_${failureCode ?? 'processing_error'}` as MessageKey)
      : enrolled
        ? t('enrolledDetail', { merchant: view.merchantName })
        : t(`outcomeDetail_${status}` as MessageKey, { amount: view.amountText, merchant: view.merchantName });
  const body = html`<main>
${summary(view)}
<h1 class="outcome-${status}">${title}</h1>
${transfer ? transferInstructions(view, transfer) : html`<p>${detail}</p>`}
${view.returnUrl ? html`<p><a class="button" href="${view.returnUrl}">${t('returnToShop', { merchant: view.merchantName })}</a></p>` : ''}
</main>`;
  const head = goTo ? html`<meta http-equiv="refresh" content="0;url=${goTo}">` : refresh ? html`<meta http-equiv="refresh" content="3">` : html``;
  return layout(view, title, body, [], head);
}

export function messagePage(view: Pick<PaymentView, 't' | 'nonce'>, title: string, message: string): SafeHtml {
  return layout(view, title, html`<main><h1>${title}</h1><p>${message}</p></main>`);
}

/**
 * Kassa's stand-in for a shop's returnUrl (`GET /test/return`), where a tester trying Kassa out is
 * sent back: the address carries nothing, so the page names no payment and tells how a shop
 * learns the outcome (docs/pages.md "Test mode").
 */
export function testReturnPage(view: Pick<PaymentView, 't' | 'nonce'>, apiRoot: string): SafeHtml {
  const { t } = view;
  return layout(
    view,
    t('testReturnTitle'),
    html`<main><h1>${t('testReturnTitle')}</h1><p>${t('testReturnIntro')}</p><p>${t('testReturnRead', { api: apiRoot })}</p></main>`,
  );
}

/** Kassa's own address (`GET /`): what this is, and where its API is described. */
export function homePage(view: Pick<PaymentView, 't' | 'nonce'>): SafeHtml {
  const { t } = view;
  return layout(view, t('homeTitle'), html`<main><h1>Kassa</h1><p>${t('homeIntro')}</p><p><a href="/docs">${t('homeDocs')}</a></p></main>`);
}
