/**
 * What a payment's page answers (docs/api.md#the-service; docs/pages.md): GET payUrl shows the page for
 * the payment's state, and after each customer operation the step it reached is rendered or
 * redirected. Every page goes out with its strict CSP (security.ts), which must allow the
 * merchant's returnUrl as a form target and the ACS as a frame or form target.
 */
import type { FastifyReply } from 'fastify';
import type { TransactionRow } from '../store/schema.ts';
import type { PaymentPageRow } from '../store/payment-pages.ts';
import { isFinal, type Status } from '../ground/states.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import { cardsTaken, type Ports } from '../payments/ports.ts';
import { type PageStep } from '../payments/card/steps.ts';
import { storedRequestOf } from '../payments/serialize.ts';
import { flowOf, type Page } from '../payments/flows.ts';
import { methodOf } from '../ground/payment-method.ts';
import type { PaymentContext } from '../payments/payment-context.ts';
import { landingMethods } from '../payments/operations/choose-method.ts';
import { sendToMethod } from '../payments/operations/send-to-method.ts';
import { run } from '../payments/runner/run.ts';
import { pageLanguage, translator } from './i18n.ts';
import { newNonce, sendPage, sourceOf, type PagePolicy } from '../lib/page-security.ts';
import { cardPage, challengePage, landingPage, messagePage, methodPage, outcomePage, postRedirectPage, storedCardPage, walletPage } from './views.ts';
import type { PaymentView, TransferView } from './views.ts';

/** A payment as its page request loaded it: the payment, its page row and what every view shows. */
export interface Loaded extends PaymentContext {
  page: PaymentPageRow & object;
  view: PaymentView;
  /** PUBLIC_URL, for the addresses a page links to. */
  publicUrl: string;
}

/** What payUrl shows while the payment is pending: its flow's page, or on a landing page the page of the method the customer chose. */
export function pageShown(row: TransactionRow, page: { chosen_method: string | null }): Page {
  const shown = flowOf(row.flow).page;
  if (shown !== 'method-choice') return shown;
  return (page.chosen_method !== null && methodOf(page.chosen_method)?.chosenPage) || 'method-choice';
}

export const policy = (nonce: string, extra: Partial<PagePolicy> = {}, row?: TransactionRow): PagePolicy => ({
  nonce,
  frameAncestors: "'none'",
  ...extra,
  // A form's answer may redirect to the merchant's returnUrl: form-action must allow it.
  formTargets: [...(extra.formTargets ?? []), sourceOf(row?.return_url)].filter((s): s is string => !!s),
});

/** "Payment not found": in the payment's page language when a payment was found (a step of it that is not), else the browser's. */
export const notFound = (reply: FastifyReply, view?: Pick<PaymentView, 't' | 'nonce'>) => {
  const t = view?.t ?? translator(pageLanguage(undefined, reply.request.headers['accept-language']));
  const nonce = view?.nonce ?? newNonce();
  return sendPage(reply, policy(nonce), messagePage({ t, nonce }, t('notFoundTitle'), t('notFound')), 404);
};

/** What GET payUrl shows for the payment's current state. */
export async function show(ports: Ports, reply: FastifyReply, loaded: Loaded, status = 200) {
  const { row, page, view, merchant } = loaded;
  const { nonce } = view;
  if (row.status !== 'pending') return sendPage(reply, policy(nonce, {}, row), outcomePage(view, row.status, row.failure_code), status);
  // An authorisation in flight (being answered now, or cut off by a crash): no second card until its outcome is known.
  if (page.authorisation_in_flight) return sendPage(reply, policy(nonce, {}, row), outcomePage(view, 'pending', null, true), status);
  const stored = storedRequestOf(row);
  const cardAvailable = await cardsTaken(ports, row);
  const shown = pageShown(row, page);
  if (shown === 'method-choice') {
    const methods = await landingMethods(ports, row, merchant.settings);
    if (methods.length === 0) return sendPage(reply, policy(nonce, {}, row), messagePage(view, view.t('outcome_pending'), view.t('unavailable')), 503);
    const validUntil = row.expires_at ? new Date(row.expires_at) : undefined;
    return sendPage(reply, policy(nonce, {}, row), landingPage(view, methods, validUntil), status);
  }
  // A method paid elsewhere: the customer is sent to its step (docs/payment-methods.md).
  if (shown === 'redirect') return respond(reply, loaded, await run(sendToMethod, undefined, { ports, caller: loaded, now: Date.now(), log: reply.log }));
  if (shown === 'wallet-sheet') {
    // Live hosted wallet payments need the wallet's own button and sheet, which Kassa does not serve yet.
    if (row.mode !== 'test') return sendPage(reply, policy(nonce, {}, row), messagePage(view, view.t('outcome_pending'), view.t('walletUnavailable')), 503);
    return sendPage(reply, policy(nonce, {}, row), walletPage(view), status);
  }
  if (shown === 'card-form' || shown === 'stored-card') {
    if (!cardAvailable) return sendPage(reply, policy(nonce, {}, row), messagePage(view, view.t('outcome_pending'), view.t('unavailable')), 503);
    if (shown === 'stored-card') return sendPage(reply, policy(nonce, {}, row), storedCardPage(view, storedCardState(loaded)), status);
    return sendPage(reply, policy(nonce, {}, row), cardPage(view, { accepted: merchant.settings.cardBrands, preselected: stored.preselectedBrand }), status);
  }
  return sendPage(reply, policy(nonce, {}, row), outcomePage(view, 'pending', null), status);
}

/** The stored card of a vault payment as its page shows it (from the payment's own details: no vault read). */
function storedCardState({ row, merchant }: Loaded) {
  const details = JSON.parse(row.details) as { maskedPan: string; cardholderFirstName?: string; cardholderLastName?: string };
  return {
    brand: row.brand as CardBrand,
    maskedPan: details.maskedPan,
    holderName: [details.cardholderFirstName, details.cardholderLastName].filter(Boolean).join(' ') || undefined,
    askCvc: merchant.settings.vaultPaymentPath === 'confirm',
  };
}

/** After a step of the card operation: redirect, or the page for the next step. */
/** A bank transfer's instructions the acquirer gave, kept in the payment's details (payments/operations/send-to-method.ts). */
export function transferInstructionsOf(row: Pick<TransactionRow, 'details'>): TransferView | undefined {
  return (JSON.parse(row.details) as { bankTransfer?: TransferView }).bankTransfer;
}

export function respond(
  reply: FastifyReply,
  loaded: Loaded,
  step: PageStep,
  options: { form?: { expiry?: string; holderName?: string }; returnBy?: 'redirect' | 'page' } = {},
) {
  const { form, returnBy = 'redirect' } = options;
  const { view, row, merchant } = loaded;
  const { nonce } = view;
  switch (step.step) {
    case 'final': {
      const leaving = (isFinal(step.row.status as Status) || step.row.status === 'manualintervention') && step.row.return_url;
      if (leaving && returnBy === 'redirect') return reply.code(303).header('Cache-Control', 'no-store').redirect(step.row.return_url!, 303);
      const transfer = step.row.status === 'pending' ? transferInstructionsOf(step.row) : undefined;
      const goTo = leaving ? step.row.return_url! : undefined;
      return sendPage(reply, policy(nonce, {}, step.row), outcomePage(view, step.row.status, step.row.failure_code, false, goTo, transfer));
    }
    case 'invalid':
      if (flowOf(row.flow).page === 'stored-card') {
        return sendPage(reply, policy(nonce, {}, row), storedCardPage(view, { ...storedCardState(loaded), errors: step.errors, attemptsLeft: step.attemptsLeft }), 422);
      }
      return sendPage(
        reply,
        policy(nonce, {}, row),
        cardPage(view, {
          accepted: merchant.settings.cardBrands,
          preselected: storedRequestOf(row).preselectedBrand,
          errors: step.errors,
          values: form,
          attemptsLeft: step.attemptsLeft,
        }),
        422,
      );
    case 'busy':
      return sendPage(reply, policy(nonce, {}, row), outcomePage(view, 'pending', null, true), 409);
    case 'unavailable':
      return sendPage(reply, policy(nonce, {}, row), messagePage(view, view.t('outcome_pending'), view.t('unavailable')), 503);
    case 'stale':
      return reply.code(303).header('Cache-Control', 'no-store').redirect(`/pay/${view.token}`, 303);
    case 'redirect':
      if (!step.form) return reply.code(303).header('Cache-Control', 'no-store').redirect(step.url, 303);
      // A step reached by a POST: the page's form posts its fields there (form-action allows that one origin).
      return sendPage(
        reply,
        policy(nonce, { formTargets: [sourceOf(step.url)!] }, row),
        postRedirectPage(view, { url: step.url, fields: step.form, texts: { title: 'elsewhereTitle', intro: 'elsewhereIntro', button: 'elsewhereContinue' } }),
      );
    case 'challenge':
      return sendPage(
        reply,
        policy(nonce, { frameTargets: [sourceOf(step.acsUrl)!] }, row),
        challengePage(view, { sessionId: step.session.id, windowSize: step.session.window_size ?? 'FULL_SCREEN', sealedCard: step.sealedCard, pending: step.pending }),
        step.pending ? 409 : 200,
      );
    case 'method':
      return sendPage(
        reply,
        policy(nonce, { frameTargets: [sourceOf(step.methodUrl)!] }, row),
        methodPage(view, { sessionId: step.session.id, sealedCard: step.sealedCard }),
      );
    case 'redirect3ds1':
      return sendPage(
        reply,
        policy(nonce, { formTargets: [sourceOf(step.acsUrl)!] }, row),
        postRedirectPage(view, {
          url: step.acsUrl,
          fields: {
            PaReq: step.paReq,
            TermUrl: `${loaded.publicUrl}/pay/${view.token}/3ds1${step.termMd ? `?md=${encodeURIComponent(step.termMd)}` : ''}`,
            MD: step.md,
          },
          texts: { title: 'redirectTitle', intro: 'redirectIntro', button: 'redirectContinue' },
        }),
      );
  }
}
