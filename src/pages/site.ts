/**
 * Kassa's own addresses outside a payment: `GET /` says what this service is and links to the
 * API's reference (`/docs`), in the browser's language; `GET /test/return`, a returnUrl for trying
 * Kassa out (the README's first payment, the demo merchant's curl line), which says where a shop
 * would take the customer back and how it learns the outcome; the favicon every page links to.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from '../lib/html.ts';
import { newNonce, sendPage } from '../lib/page-security.ts';
import { pageLanguage, translator, type Translate } from './i18n.ts';
import { faviconSvg } from './marks.ts';
import { homePage, testReturnPage } from './views.ts';

export async function site(app: FastifyInstance, { apiRoot }: { apiRoot: string }) {
  const page = (request: FastifyRequest, reply: FastifyReply, render: (view: { t: Translate; nonce: string }) => SafeHtml) => {
    const t = translator(pageLanguage(undefined, request.headers['accept-language']));
    const nonce = newNonce();
    return sendPage(reply, { nonce, frameAncestors: "'none'" }, render({ t, nonce }));
  };
  app.get('/', (request, reply) => page(request, reply, homePage));
  // The same page whatever follows the address: it is never told a payment, so it can show none (docs/pages.md "Test mode").
  app.get('/test/return', (request, reply) => page(request, reply, (view) => testReturnPage(view, apiRoot)));
  app.get('/favicon.svg', (_request, reply) => reply.type('image/svg+xml').send(faviconSvg));
  // Browsers ask /favicon.ico of pages that link no icon (the API reference, the console).
  app.get('/favicon.ico', (_request, reply) => reply.redirect('/favicon.svg', 301));
}
