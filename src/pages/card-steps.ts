/**
 * Paying by card on the page and its 3-D Secure steps (docs/pages.md; docs/3ds.md): the card
 * form's POST (also a vault enrollment's), a vault payment's stored card, then the steps the
 * authentication may take — the issuer's 3DS method in a hidden frame, the challenge in Kassa's
 * pop-up and its notification URL, the 3DS1 redirect's TermUrl — each ending in the card-payment
 * operation's next step, rendered by render.ts `respond`.
 */
import type { FastifyInstance } from 'fastify';
import { findThreeDSSession } from '../store/payment-pages.ts';
import { flowOf } from '../payments/flows.ts';
import { payCard } from '../payments/operations/pay-card.ts';
import { payStoredCard } from '../payments/operations/pay-stored-card.ts';
import { completeChallenge } from '../payments/operations/complete-challenge.ts';
import { complete3dsMethod } from '../payments/operations/complete-3ds-method.ts';
import { receiveChallengeResponse } from '../payments/operations/receive-challenge-response.ts';
import { complete3ds1 } from '../payments/operations/complete-3ds1.ts';
import { encodeCReq } from '../threeds/server.ts';
import { encodeMethodData, transactionOf } from '../threeds/by-acquirer.ts';
import { collectBrowserFacts } from './browser-info.ts';
import { field, sendPage, sourceOf, type Form } from '../lib/page-security.ts';
import { challengeFramePage, messagePage, methodFramePage, notifyPage } from './views.ts';
import type { PageContext, TokenRequest } from './load.ts';
import { notFound, policy, respond } from './render.ts';

/** What the page's hidden fields and the request's headers tell of the browser, for the 3-D Secure AReq. */
function browserOf(request: TokenRequest) {
  const body = request.body;
  return collectBrowserFacts(
    {
      js: field(body, 'js'),
      screenWidth: field(body, 'screenWidth'),
      screenHeight: field(body, 'screenHeight'),
      colorDepth: field(body, 'colorDepth'),
      timeZone: field(body, 'timeZone'),
      browserLanguage: field(body, 'browserLanguage'),
      windowWidth: field(body, 'windowWidth'),
    },
    { accept: request.headers.accept, userAgent: request.headers['user-agent'], acceptLanguage: request.headers['accept-language'], ip: request.ip },
  );
}

export function cardStepRoutes(app: FastifyInstance, { store, publicUrl, load, loadForm, perform }: PageContext) {
  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/card', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    const body = request.body;
    const form = {
      cardNumber: field(body, 'cardNumber'),
      expiry: field(body, 'expiry'),
      cvc: field(body, 'cvc'),
      holderName: field(body, 'holderName'),
      brand: field(body, 'brand'),
    };
    const step = await perform(payCard, loaded, { form, browser: browserOf(request) }, request.log);
    return respond(reply, loaded, step, { form: { expiry: form.expiry, holderName: form.holderName } });
  });

  // A vault payment: the card comes from the vault; on the confirm path the form brings the CVC.
  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/vault', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    if (flowOf(loaded.row.flow).page !== 'stored-card') return reply.code(303).redirect(`/pay/${request.params.token}`, 303);
    const step = await perform(payStoredCard, loaded, { cvc: field(request.body, 'cvc'), browser: browserOf(request) }, request.log);
    return respond(reply, loaded, step);
  });

  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/3ds/complete', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    const { body } = request;
    const step = await perform(completeChallenge, loaded, { sessionId: field(body, 'session') ?? '', sealedCard: field(body, 'sealedCard') ?? '' }, request.log);
    return respond(reply, loaded, step);
  });

  // Inside the challenge window: Kassa's page posts the CReq to the ACS from here.
  app.get<{ Params: { token: string; session: string } }>('/pay/:token/3ds/frame/:session', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    const session = loaded && (await findThreeDSSession(store.read, request.params.session));
    if (!loaded || !session || session.reference !== loaded.row.reference || session.state !== 'challenge' || !session.acs_url) return notFound(reply, loaded?.view);
    const { view } = loaded;
    return sendPage(
      reply,
      policy(view.nonce, { frameAncestors: "'self'", formTargets: [sourceOf(session.acs_url)!] }),
      challengeFramePage(view, session.acs_url, encodeCReq(session), session.session_secret),
    );
  });

  // The notification URL: the ACS posts the CRes here, inside the challenge window. The
  // outcome was already taken from the RReq; this only tells Kassa's page to go on.
  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/3ds/notify', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) return notFound(reply);
    const { view } = loaded;
    const { body } = request;
    const received = await perform(receiveChallengeResponse, loaded, { cres: field(body, 'cres'), sessionData: field(body, 'threeDSSessionData') }, request.log);
    if (!received) return sendPage(reply, policy(view.nonce, { frameAncestors: "'self'" }), messagePage(view, view.t('notFoundTitle'), view.t('formExpired')), 403);
    return sendPage(reply, policy(view.nonce, { frameAncestors: "'self'" }), notifyPage(view));
  });

  // Inside the 3DS method's hidden frame (3-D Secure by the acquirer): Kassa's page posts the 3DS method data to the issuer from here.
  app.get<{ Params: { token: string; session: string } }>('/pay/:token/3ds/method/:session', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    const session = loaded && (await findThreeDSSession(store.read, request.params.session));
    if (!loaded || !session || session.reference !== loaded.row.reference || session.state !== 'method' || !session.acs_url) return notFound(reply, loaded?.view);
    const { view } = loaded;
    return sendPage(
      reply,
      policy(view.nonce, { frameAncestors: "'self'", formTargets: [sourceOf(session.acs_url)!] }),
      methodFramePage(view, session.acs_url, encodeMethodData(session.id, `${publicUrl}/pay/${request.params.token}/3ds/method-notify`)),
    );
  });

  // The 3DS method notification URL: the issuer posts the 3DS method data back here, inside the hidden frame, when its method is done.
  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/3ds/method-notify', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) return notFound(reply);
    const { view } = loaded;
    const id = transactionOf(field(request.body, 'threeDSMethodData'))?.threeDSServerTransID;
    const session = typeof id === 'string' ? await findThreeDSSession(store.read, id) : undefined;
    if (!session || session.reference !== loaded.row.reference) {
      return sendPage(reply, policy(view.nonce, { frameAncestors: "'self'" }), messagePage(view, view.t('notFoundTitle'), view.t('formExpired')), 403);
    }
    return sendPage(reply, policy(view.nonce, { frameAncestors: "'self'" }), notifyPage(view, 'method'));
  });

  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/3ds/method-complete', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    const body = request.body;
    const step = await perform(
      complete3dsMethod,
      loaded,
      { sessionId: field(body, 'session') ?? '', sealedCard: field(body, 'sealedCard') ?? '', completed: field(body, 'completed') ?? 'N' },
      request.log,
    );
    return respond(reply, loaded, step);
  });

  // 3-D Secure 1 TermUrl: the ACS sends the browser back with the PaRes and our MD (sealed, bound to the session), or, when the MD was the acquirer's, ours in the TermUrl.
  app.post<{ Params: { token: string }; Body: Form; Querystring: { md?: string } }>('/pay/:token/3ds1', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) return notFound(reply);
    const md = (typeof request.query.md === 'string' ? request.query.md : undefined) ?? field(request.body, 'MD') ?? '';
    const step = await perform(complete3ds1, loaded, { paRes: field(request.body, 'PaRes') ?? '', md }, request.log);
    return respond(reply, loaded, step, { returnBy: 'page' });
  });
}
