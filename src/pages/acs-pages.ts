/**
 * The test-mode issuer pages (the ACS simulator's face): the 3DS2 challenge shown inside
 * Kassa's pop-up, and the 3DS1 page the fallback redirect goes to. They show the test
 * one-time code; the field has autocomplete="one-time-code" like a real bank's. They answer
 * only for an ACS transaction of a test-mode payment (AcsSimulator.find): anything else, a
 * live payment's included, gets the issuer's "unknown transaction" page (404) and changes nothing.
 * They speak the payment's page language, as every page of the payment does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AcsOutcome, AcsTransaction } from '../threeds/acs-simulator.ts';
import { ACS_SIMULATOR_PATH } from '../threeds/ds-simulator.ts';
import { pageLanguage, translator } from './i18n.ts';
import { csrfValid, field, newNonce, sendPage, sourceOf, type PagePolicy } from '../lib/page-security.ts';
import { messagePage } from './views.ts';
import { bankPage, localAmount, returnPage, type View } from './acs-views.ts';

/**
 * The issuer page's words: in the language of the payment's own pages (the payment's `language`,
 * else the browser's Accept-Language), so the shopper reads one language from the card form to
 * the bank and back (docs/pages.md "Languages").
 */
const viewOf = (tx: AcsTransaction, request: FastifyRequest): View => ({
  t: translator(pageLanguage(tx.language, request.headers['accept-language'])),
  nonce: newNonce(),
});

const decode = (text: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value = JSON.parse(Buffer.from(text ?? '', 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
};

export async function acsPages(app: FastifyInstance) {
  const { ports } = app;
  const { acs } = ports;
  const publicOrigin = sourceOf(ports.links.publicUrl)!;
  // The challenge page lives in Kassa's challenge window (framed by Kassa's origin, the same here).
  const inWindow = (nonce: string, targets: string[] = []): PagePolicy => ({ nonce, frameAncestors: "'self'", formTargets: targets });
  const topLevel = (nonce: string, targets: string[] = []): PagePolicy => ({ nonce, frameAncestors: "'none'", formTargets: targets });

  const unknown = (reply: FastifyReply, framed: boolean) => {
    const t = translator(pageLanguage(undefined, reply.request.headers['accept-language']));
    const nonce = newNonce();
    return sendPage(reply, framed ? inWindow(nonce) : topLevel(nonce), messagePage({ t, nonce }, t('acsTitle'), t('acsUnknown')), 404);
  };

  // CReq from Kassa's challenge window.
  app.post(`${ACS_SIMULATOR_PATH}/challenge`, async (request, reply) => {
    const creq = decode(field(request.body, 'creq'));
    const tx = typeof creq?.acsTransID === 'string' ? await acs.find(creq.acsTransID) : undefined;
    if (!tx || tx.protocol === '1.0.2' || tx.state !== 'pending' || tx.three_ds_server_trans_id !== creq?.threeDSServerTransID) return unknown(reply, true);
    const view = viewOf(tx, request);
    const hidden = { acsTransID: tx.acs_trans_id, token: tx.form_token, threeDSSessionData: field(request.body, 'threeDSSessionData') ?? '' };
    const intro = tx.amount_text
      ? view.t('acsIntro', { amount: localAmount(view.t, tx.amount_text), merchant: tx.merchant_name })
      : view.t('acsIntroCard', { merchant: tx.merchant_name });
    return sendPage(reply, inWindow(view.nonce), bankPage(view, `${ACS_SIMULATOR_PATH}/challenge/answer`, hidden, intro));
  });

  app.post(`${ACS_SIMULATOR_PATH}/challenge/answer`, async (request, reply) => {
    const tx = await acs.find(field(request.body, 'acsTransID') ?? '');
    if (!tx || tx.protocol === '1.0.2' || !csrfValid(tx.form_token, field(request.body, 'token')) || !tx.notification_url) return unknown(reply, true);
    const outcome: AcsOutcome | undefined = await acs.answer(tx, { code: field(request.body, 'code'), cancel: field(request.body, 'cancel') === '1' });
    if (!outcome) return unknown(reply, true);
    const cres = Buffer.from(
      JSON.stringify({
        threeDSServerTransID: tx.three_ds_server_trans_id,
        acsTransID: tx.acs_trans_id,
        messageType: 'CRes',
        messageVersion: tx.protocol,
        transStatus: outcome.transStatus,
        challengeCompletionInd: 'Y',
      }),
    ).toString('base64url');
    const view = viewOf(tx, request);
    const fields = { cres, threeDSSessionData: field(request.body, 'threeDSSessionData') ?? '' };
    return sendPage(reply, inWindow(view.nonce, [sourceOf(tx.notification_url)!]), returnPage(view, tx.notification_url, fields));
  });

  // 3-D Secure 1: the redirect from Kassa's page (PaReq, TermUrl, MD).
  app.post(`${ACS_SIMULATOR_PATH}/3ds1`, async (request, reply) => {
    const paReq = decode(field(request.body, 'PaReq'));
    const termUrl = field(request.body, 'TermUrl') ?? '';
    const tx = typeof paReq?.acsTransID === 'string' ? await acs.find(paReq.acsTransID) : undefined;
    // The simulator only sends browsers back to this Kassa: it is no open redirector.
    if (!tx || tx.protocol !== '1.0.2' || tx.state !== 'pending' || sourceOf(termUrl) !== publicOrigin) return unknown(reply, false);
    const view = viewOf(tx, request);
    const hidden = { acsTransID: tx.acs_trans_id, token: tx.form_token, TermUrl: termUrl, MD: field(request.body, 'MD') ?? '' };
    const intro = view.t('acs3ds1Intro', { amount: localAmount(view.t, tx.amount_text), merchant: tx.merchant_name });
    return sendPage(reply, topLevel(view.nonce), bankPage(view, `${ACS_SIMULATOR_PATH}/3ds1/answer`, hidden, intro));
  });

  app.post(`${ACS_SIMULATOR_PATH}/3ds1/answer`, async (request, reply) => {
    const tx = await acs.find(field(request.body, 'acsTransID') ?? '');
    const termUrl = field(request.body, 'TermUrl') ?? '';
    if (!tx || tx.protocol !== '1.0.2' || !csrfValid(tx.form_token, field(request.body, 'token')) || sourceOf(termUrl) !== publicOrigin) {
      return unknown(reply, false);
    }
    const outcome = await acs.answer(tx, { code: field(request.body, 'code'), cancel: field(request.body, 'cancel') === '1' });
    if (!outcome) return unknown(reply, false);
    const paRes = Buffer.from(JSON.stringify({ acsTransID: tx.acs_trans_id, xid: tx.three_ds_server_trans_id })).toString('base64url');
    const view = viewOf(tx, request);
    return sendPage(reply, topLevel(view.nonce, [publicOrigin]), returnPage(view, termUrl, { PaRes: paRes, MD: field(request.body, 'MD') ?? '' }));
  });
}
