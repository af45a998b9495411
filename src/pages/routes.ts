/**
 * Customer-facing pages (payUrl), reached only through the payment's capability token:
 * the landing page, the card form (also for a vault enrollment), the stored card of a
 * vault payment, the 3-D Secure steps (the issuer's 3DS method in a hidden frame, challenge
 * pop-up, 3DS1 redirect) and the outcome.
 * Routes parse, check CSRF, call the card-payment operation and render.
 * Forms are plain POSTs (application/x-www-form-urlencoded), so paying works without
 * scripts; the responses send a strict CSP with a fresh nonce.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { findByPageToken, ownerOf } from '../store/transactions.ts';
import { ensurePaymentPage, findThreeDSSession } from '../store/payment-pages.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { amountText, findCurrency } from '../ground/amount.ts';
import { paymentMerchant } from '../merchants/merchants.ts';
import { Problem } from '../ground/problem.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import type { PageStep } from '../payments/card-payment.ts';
import { flowOf } from '../payments/flows.ts';
import type { PaymentContext } from '../payments/payment-context.ts';
import { run } from '../payments/operations/run.ts';
import type { AnyOperation } from '../payments/operations/operation.ts';
import { cancel } from '../payments/operations/cancel.ts';
import { chooseMethod } from '../payments/operations/choose-method.ts';
import { payCard } from '../payments/operations/pay-card.ts';
import { payStoredCard } from '../payments/operations/pay-stored-card.ts';
import { completeChallenge } from '../payments/operations/complete-challenge.ts';
import { complete3dsMethod } from '../payments/operations/complete-3ds-method.ts';
import { receiveChallengeResponse } from '../payments/operations/receive-challenge-response.ts';
import { complete3ds1 } from '../payments/operations/complete-3ds1.ts';
import { acceptWalletToken } from '../payments/operations/accept-wallet-token.ts';
import { payWallet } from '../payments/operations/pay-wallet.ts';
import { methodPaidElsewhere } from '../payments/operations/send-to-method.ts';
import { completeSimulatedMethod } from '../payments/operations/complete-simulated-method.ts';
import { completeMethodReturn } from '../payments/operations/complete-method-return.ts';
import { storedRequestOf } from '../payments/serialize.ts';
import { methods } from '../ground/payment-method.ts';
import { simulatorPage } from './method-views.ts';
import { testWalletToken } from '../wallet/test-sheet.ts';
import { encodeCReq } from '../threeds/server.ts';
import { encodeMethodData, transactionOf } from '../threeds/by-acquirer.ts';
import { formatNumber, moneyText, pageLanguage, translator } from './i18n.ts';
import { collectBrowserFacts } from './browser-info.ts';
import { crossSite, csrfValid, field, newNonce, sendPage, sourceOf, type Form } from '../lib/page-security.ts';
import { challengeFramePage, messagePage, methodFramePage, notifyPage, type PaymentView } from './views.ts';
import { acsPages } from './acs-pages.ts';
import { notFound, pageShown, policy, respond, show, transferInstructionsOf, type Loaded } from './render.ts';

interface Deps {
  config: Config;
  store: Store;
}

type TokenRequest = FastifyRequest<{ Params: { token: string }; Body: Form }>;

export async function pages(app: FastifyInstance, { config, store }: Deps) {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  const { ports } = app;
  /** Runs a customer operation on the loaded payment. */
  const perform = <Body, Answer>(op: AnyOperation<PaymentContext, Body, Answer>, { row, merchant }: Loaded, body: Body, log: FastifyRequest['log']) =>
    run(op, body, { ports, caller: { row, merchant }, now: Date.now(), log });

  /** `acceptLanguage`: the browser's, for a payment whose language has no page (docs/pages.md "Languages"). */
  async function load(token: string, acceptLanguage?: string): Promise<Loaded | undefined> {
    const row = await findByPageToken(store.read, token);
    if (!row || row.type === 'credit') return undefined;
    const merchant = await paymentMerchant(store.read, row.merchant_id);
    const page = await store.transact((db) => ensurePaymentPage(db, row.reference, randomBase62(32), Date.now()));
    const t = translator(pageLanguage(row.language, acceptLanguage));
    const view: PaymentView = {
      t,
      nonce: newNonce(),
      token,
      csrf: page.csrf_token,
      merchantName: merchant.name,
      amountText: amountText(row, t('locale')),
      description: row.description,
      testMode: row.mode === 'test',
      returnUrl: row.return_url,
      enrollment: flowOf(row.flow).threeDS.operation === 'enrollment',
    };
    return { row, merchant, page, view, publicUrl: config.publicUrl };
  }

  /** Loads the payment of a form post and checks its CSRF token; undefined when the reply was sent. */
  async function loadForm(request: TokenRequest, reply: FastifyReply): Promise<Loaded | undefined> {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) {
      await notFound(reply);
      return undefined;
    }
    if (crossSite(request) || !csrfValid(loaded.page.csrf_token, field(request.body, 'csrf'))) {
      const { view } = loaded;
      await sendPage(reply, policy(view.nonce), messagePage(view, view.t('notFoundTitle'), view.t('formExpired')), 403);
      return undefined;
    }
    return loaded;
  }

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
      {
        accept: request.headers.accept,
        userAgent: request.headers['user-agent'],
        acceptLanguage: request.headers['accept-language'],
        ip: request.ip,
      },
    );
  }

  app.setErrorHandler(async (error: Error, request, reply) => {
    const t = translator(pageLanguage(undefined, request.headers['accept-language']));
    const nonce = newNonce();
    const unavailable = databaseUnavailable(error, request.log);
    if (unavailable) void reply.headers(unavailable.headers);
    const problem = error instanceof Problem ? error : unavailable;
    const status = problem ? problem.status : ((error as { statusCode?: number }).statusCode ?? 500);
    if (status >= 500 && !problem) request.log.error({ err: error }, 'page error');
    // The database away says nothing of the payment's fate: the customer is asked to come back, not told it failed.
    const message = unavailable ? t('outcomeDetail_pending') : status === 503 ? t('unavailable') : t('failure_processing_error');
    return sendPage(reply, policy(nonce), messagePage({ t, nonce }, t('outcome_pending'), message), status >= 400 ? status : 500);
  });

  app.get<{ Params: { token: string } }>('/pay/:token', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) return notFound(reply);
    return show(ports, reply, loaded);
  });

  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/method', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    await perform(chooseMethod, loaded, { method: field(request.body, 'method') }, request.log);
    return reply.code(303).redirect(`/pay/${request.params.token}`, 303);
  });

  // A method paid elsewhere, in test mode: the page standing in for its step, where the tester picks the outcome (docs/payment-methods.md "Test mode").
  app.get<{ Params: { token: string } }>('/pay/:token/simulator', async (request, reply) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) return notFound(reply);
    const method = methodPaidElsewhere(loaded.row, loaded.page);
    const page = method && methods[method].simulator;
    const simulated = await ports.acquirers.simulated(ownerOf(loaded.row));
    if (!page || !simulated || loaded.row.status !== 'pending') return reply.code(303).redirect(`/pay/${request.params.token}`, 303);
    const { view, row } = loaded;
    const currency = findCurrency(row.currency)!;
    const lines = ((storedRequestOf(row).orderLines ?? []) as Record<string, unknown>[]).map((line) => ({
      name: String(line.name ?? ''),
      quantity: typeof line.quantity === 'number' ? formatNumber(view.t, line.quantity) : String(line.quantity ?? ''),
      total: typeof line.totalPrice === 'number' || typeof line.totalPrice === 'string' ? moneyText(view.t, line.totalPrice, currency.code) : '',
    }));
    return sendPage(reply, policy(view.nonce, {}, row), simulatorPage(view, { page, methodName: view.t(`method_${method}`), reference: row.reference, lines }));
  });

  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/simulator', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    await perform(completeSimulatedMethod, loaded, { outcome: field(request.body, 'outcome'), bank: field(request.body, 'bank') }, request.log);
    return reply.code(303).header('Cache-Control', 'no-store').redirect(`/pay/${request.params.token}/return`, 303);
  });

  /**
   * What the address a customer came back to carries, for the acquirer to read (its connector
   * takes the parameters it knows): text parameters only, a bounded number of bounded size.
   */
  const completionDetailsOf = (parameters: unknown): Record<string, string> =>
    Object.fromEntries(
      Object.entries(typeof parameters === 'object' && parameters !== null ? parameters : {})
        .filter(([name, value]) => name.length <= 64 && typeof value === 'string' && value.length <= 100_000)
        .slice(0, 20),
    ) as Record<string, string>;

  /**
   * Back from a method's step elsewhere: the acquirer is asked the outcome with what it put in the
   * address (complete-method-return.ts), then the customer goes on to the merchant's returnUrl,
   * where the shop reads the payment's state; pending too (a bank transfer on its way). Adyen comes
   * back with a GET, some methods with a POST of the same parameters.
   */
  const methodReturn = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply, parameters: unknown) => {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) return notFound(reply);
    if (!methodPaidElsewhere(loaded.row, loaded.page)) return show(ports, reply, loaded);
    const step = await perform(completeMethodReturn, loaded, completionDetailsOf(parameters), request.log);
    const { row } = loaded;
    if (!row.return_url || step.step !== 'final' || (step.row.status === 'pending' && transferInstructionsOf(step.row))) return respond(reply, loaded, step);
    return reply.code(303).header('Cache-Control', 'no-store').redirect(row.return_url, 303);
  };
  app.get<{ Params: { token: string } }>('/pay/:token/return', (request, reply) => methodReturn(request, reply, request.query));
  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/return', (request, reply) => methodReturn(request, reply, request.body));

  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/cancel', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    const row = await run(cancel, { pageToken: request.params.token }, { ports, caller: undefined, now: Date.now(), log: request.log });
    return respond(reply, loaded, { step: 'final', row });
  });

  app.post<{ Params: { token: string }; Body: Form }>('/pay/:token/wallet', async (request, reply) => {
    const loaded = await loadForm(request, reply);
    if (!loaded) return reply;
    if (pageShown(loaded.row, loaded.page) !== 'wallet-sheet' || loaded.row.mode !== 'test') return show(ports, reply, loaded, 409);
    if (loaded.row.status !== 'pending') return respond(reply, loaded, { step: 'final', row: loaded.row });
    try {
      return respond(reply, loaded, await payWithTestWallet(loaded, request.log));
    } catch (error) {
      // A second press while the first token is being paid: show the payment in progress.
      if (error instanceof Problem && error.status === 409) return respond(reply, loaded, { step: 'busy' });
      throw error;
    }
  });

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
    const step = await perform(
      completeChallenge,
      loaded,
      { sessionId: field(request.body, 'session') ?? '', sealedCard: field(request.body, 'sealedCard') ?? '' },
      request.log,
    );
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
    const received = await perform(
      receiveChallengeResponse,
      loaded,
      { cres: field(request.body, 'cres'), sessionData: field(request.body, 'threeDSSessionData') },
      request.log,
    );
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
      methodFramePage(view, session.acs_url, encodeMethodData(session.id, `${config.publicUrl}/pay/${request.params.token}/3ds/method-notify`)),
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

  /**
   * The hosted flow's test wallet sheet: a real token, signed and encrypted by Kassa's test
   * PKI for this payment's amount and the merchant's first accepted brand, then accepted
   * and paid exactly like a token from the merchant's backend.
   */
  async function payWithTestWallet(loaded: Loaded, log: FastifyRequest['log']): Promise<PageStep> {
    const { row, merchant } = loaded;
    const brand = merchant.settings.cardBrands[0];
    if (!brand) return { step: 'unavailable' };
    const token = await testWalletToken({ brand, amountMinor: row.amount_minor, currency: findCurrency(row.currency)! });
    const accepted = await perform(acceptWalletToken, loaded, { token, field: '/encryptedToken' }, log);
    return perform(payWallet, loaded, accepted, log);
  }

  await app.register(acsPages, { ports });
}
