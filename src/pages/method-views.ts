/**
 * The test-mode pages that stand in for a method's own step elsewhere (docs/payment-methods.md
 * "Test mode"), one per kind of the methods table's `simulator`: the bank choice (iDEAL), a
 * wallet's sign-in (PayPal), a pay-later invoice (Klarna) and a bank transfer's instructions. Each
 * shows what the real step would and lets the tester pick the outcome; the form posts to the
 * payment's `/simulator` address.
 */
import { html, type SafeHtml } from '../lib/html.ts';
import type { SimulatorPage } from '../ground/payment-method.ts';
import { simulatedBanks, simulatedOutcomes, simulatedTransferAccount } from '../acquirer/simulated-methods.ts';
import { csrfField, layout, summary, transferInstructions, type PaymentView } from './views.ts';

export interface SimulatorView {
  page: SimulatorPage;
  /** The method's name as the customer knows it. */
  methodName: string;
  /** What the bank-transfer page asks the customer to quote. */
  reference: string;
  /** What the invoice lists (a pay-later method): each line's name, quantity and total as shown. */
  lines: readonly { name: string; quantity: string; total: string }[];
}

/** What each kind of page shows above the outcomes. */
const steps: Record<SimulatorPage, (view: PaymentView, state: SimulatorView) => SafeHtml> = {
  'bank-choice': ({ t }) => html`<div class="field"><label for="bank">${t('sim_chooseBank')}</label>
<select id="bank" name="bank">${simulatedBanks.map((bank) => html`<option value="${bank.bic}">${bank.name}</option>`)}</select></div>`,
  'wallet-sign-in': ({ t }) => html`<div class="field"><label for="email">${t('sim_email')}</label>
<input id="email" name="email" type="email" autocomplete="off" value="tester@example.com"></div>`,
  'pay-later': ({ t }, { lines }) => html`<p>${t('sim_invoice')}</p>
<table class="lines"><caption class="visually-hidden">${t('sim_invoice')}</caption>
<thead><tr><th scope="col">${t('sim_item')}</th><th scope="col">${t('sim_quantity')}</th><th scope="col">${t('amount')}</th></tr></thead>
<tbody>${lines.map((line) => html`<tr><td>${line.name}</td><td>${line.quantity}</td><td>${line.total}</td></tr>`)}</tbody></table>`,
  'transfer-instructions': (view, { reference }) => transferInstructions(view, { ...simulatedTransferAccount, beneficiary: view.merchantName, reference }),
};

export function simulatorPage(view: PaymentView, state: SimulatorView): SafeHtml {
  const { t } = view;
  // Its own test notice below, naming the outcome buttons (not the card form's card numbers and cents).
  const body = html`<main>
${summary(view, 'none')}
<h1>${state.methodName}</h1>
<p class="test-banner" role="note">${t('sim_notice', { method: state.methodName, outcome: t('sim_outcome'), paid: t('sim_outcome_paid') })}</p>
<form method="post" action="/pay/${view.token}/simulator" class="methods">
${csrfField(view)}
${steps[state.page](view, state)}
<fieldset><legend>${t('sim_outcome')}</legend>
${simulatedOutcomes.map((outcome) => html`<button type="submit" name="outcome" value="${outcome.name}">${t(`sim_outcome_${outcome.name}`)}</button>`)}
</fieldset>
</form>
</main>`;
  return layout(view, t('title', { merchant: view.merchantName }), body);
}
