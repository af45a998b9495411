/**
 * Kassa's own addresses outside a payment: `GET /` says what this service is and links to the
 * API's reference (`/docs`), in the browser's language; the favicon every page links to.
 */
import type { FastifyInstance } from 'fastify';
import { newNonce, sendPage } from '../lib/page-security.ts';
import { pageLanguage, translator } from './i18n.ts';
import { faviconSvg } from './marks.ts';
import { homePage } from './views.ts';

export async function site(app: FastifyInstance) {
  app.get('/', (request, reply) => {
    const t = translator(pageLanguage(undefined, request.headers['accept-language']));
    const nonce = newNonce();
    return sendPage(reply, { nonce, frameAncestors: "'none'" }, homePage({ t, nonce }));
  });
  app.get('/favicon.svg', (_request, reply) => reply.type('image/svg+xml').send(faviconSvg));
  // Browsers ask /favicon.ico of pages that link no icon (the API reference, the console).
  app.get('/favicon.ico', (_request, reply) => reply.redirect('/favicon.svg', 301));
}
