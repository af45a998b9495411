/**
 * Customer-facing pages (payUrl). Reached only through the payment's capability token.
 * For now the page states the payment and its status; the card form, landing page and
 * 3-D Secure flow are their own issue.
 */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/store.ts';
import { findByPageToken } from '../store/transactions.ts';
import { amountNumber, findCurrency } from '../payments/amount.ts';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export async function pages(app: FastifyInstance, { store }: { store: Store }) {
  app.get<{ Params: { token: string } }>('/pay/:token', async (request, reply) => {
    const row = await findByPageToken(store.read, request.params.token);
    reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    reply.header('Referrer-Policy', 'no-referrer');
    if (!row) return reply.code(404).type('text/html').send('<!doctype html><title>Not found</title><p>This payment link is not valid.</p>');
    const currency = findCurrency(row.currency)!;
    const amount = `${amountNumber(row.amount_minor, currency).toFixed(currency.exponent)} ${row.currency.toUpperCase()}`;
    return reply
      .type('text/html; charset=utf-8')
      .send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Payment</title>
<main><h1>Payment of ${escapeHtml(amount)}</h1><p>Status: ${escapeHtml(row.status)}</p></main></html>`);
  });
}
