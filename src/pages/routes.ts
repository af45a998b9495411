/**
 * Customer-facing pages (payUrl), reached only through the payment's capability token, assembled
 * here from their route files: payment-page.ts (the page itself: landing page, card form, stored
 * card, wallet sheet, outcome, and its method, cancel and wallet forms), card-steps.ts (paying by
 * card and the 3-D Secure steps), method-steps.ts (a method paid elsewhere: the test simulator and
 * the return address) and acs-pages.ts (the test issuer's pages). Each route loads the payment
 * (load.ts), checks CSRF on a form, calls an operation and renders (render.ts). Forms are plain
 * POSTs (application/x-www-form-urlencoded), so paying works without scripts; the responses send a
 * strict CSP with a fresh nonce. One error page for all of them.
 */
import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { Problem } from '../ground/problem.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import { pageLanguage, translator } from './i18n.ts';
import { newNonce, sendPage } from '../lib/page-security.ts';
import { messagePage } from './views.ts';
import { acsPages } from './acs-pages.ts';
import { pageContext } from './load.ts';
import { paymentPageRoutes } from './payment-page.ts';
import { cardStepRoutes } from './card-steps.ts';
import { methodStepRoutes } from './method-steps.ts';
import { policy } from './render.ts';

interface Deps {
  config: Config;
  store: Store;
}

export async function pages(app: FastifyInstance, { config, store }: Deps) {
  await app.register(formbody, { bodyLimit: 16 * 1024 });

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

  const context = pageContext(store, app.ports, config.publicUrl);
  paymentPageRoutes(app, context);
  cardStepRoutes(app, context);
  methodStepRoutes(app, context);
  await app.register(acsPages);
}
