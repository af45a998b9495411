// A small shop on Kassa with the TypeScript client (@kassa/client): one product, a checkout that
// sends the customer to Kassa's payment page, a return page, a webhook receiver that verifies
// Kassa's signature, and a refund button. Plain Node.js 20, no framework: everything a shop needs
// from Kassa is in the five calls to `kassa.` and `verifyWebhook` below.
//
//   KASSA_API_URL=http://localhost:8080/api/v1 KASSA_API_KEY=test_… KASSA_WEBHOOK_SECRET=whsec_… node shop.js
//
// SHOP_URL is where Kassa and the customer's browser reach this shop (default http://localhost:$PORT).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createKassaClient, KassaProblem, verifyWebhook } from '@kassa/client';

const port = Number(process.env.PORT ?? 3000);
const shopUrl = process.env.SHOP_URL ?? `http://localhost:${port}`;
const webhookSecret = process.env.KASSA_WEBHOOK_SECRET;
const kassa = createKassaClient({ baseUrl: process.env.KASSA_API_URL ?? 'http://localhost:8080/api/v1', apiKey: process.env.KASSA_API_KEY ?? '' });

/** The shop's orders, in memory: a real shop keeps them in its database. */
const orders = new Map();

const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** What the shop shows of an order: Kassa's status of the payment, and of its refund. */
function orderPage(order) {
  const refund = order.refund ? `<p id="refund">Refund ${escape(order.refund.reference)}: <strong>${escape(order.refund.status)}</strong></p>` : '';
  const refundForm =
    order.status === 'success' && !order.refund ? `<form method="post" action="/orders/${order.id}/refund"><button type="submit">Refund this order</button></form>` : '';
  return page(`Order ${order.id}`, `<p id="status">Payment <strong>${escape(order.status)}</strong></p>${refund}${refundForm}<p><a href="/">Back to the shop</a></p>`);
}

const routes = {
  'GET /': async () => ({
    html: page('The Mug Shop', '<p>One coffee mug, EUR 12.50.</p><form method="post" action="/checkout"><button type="submit">Buy a mug</button></form>'),
  }),

  // Create the payment, keep its reference with the order, send the customer to Kassa's page.
  'POST /checkout': async () => {
    // An order number never used before, also after a restart: it is the payment's Idempotency-Reference.
    const order = { id: randomBytes(6).toString('hex'), status: 'new' };
    orders.set(order.id, order);
    const payment = await kassa.createPayment(
      {
        amount: '12.50',
        currency: 'EUR',
        method: 'card',
        returnUrl: `${shopUrl}/orders/${order.id}`,
        merchantOrderReference: `order-${order.id}`,
        description: 'One coffee mug',
        webhookUrl: `${shopUrl}/webhook`,
      },
      // Sent again after a timeout, the same order never makes a second payment.
      { idempotencyReference: `order-${order.id}` },
    );
    Object.assign(order, { reference: payment.reference, status: payment.status });
    return { redirect: payment.payUrl };
  },

  // Kassa announces every outcome. Verify the signature, then read the transaction: the webhook only names it.
  'POST /webhook': async (request, body) => {
    let event;
    try {
      event = verifyWebhook(webhookSecret, body, request.headers);
    } catch {
      return { status: 400, text: 'not signed by Kassa' };
    }
    const transaction = await kassa.transaction(event.id);
    for (const order of orders.values()) {
      if (order.reference === transaction.reference) Object.assign(order, { status: transaction.status, webhookVerified: true });
      if (order.refund?.reference === transaction.reference) order.refund.status = transaction.status;
    }
    return { status: 204 };
  },
};

/** The customer's return, and the refund: read or change the order's payment through Kassa. */
async function orderRoute(method, id, action) {
  const order = orders.get(id);
  if (!order) return { status: 404, text: 'no such order' };
  if (method === 'GET' && action === undefined) {
    // Back from the payment page: the webhook may not have arrived yet, so ask Kassa.
    order.status = (await kassa.transaction(order.reference)).status;
    return { html: orderPage(order) };
  }
  if (method === 'GET' && action === '.json') return { json: order };
  if (method === 'POST' && action === '/refund') {
    const refund = await kassa.refund({ reference: order.reference, description: `Refund of order ${order.id}` }, { idempotencyReference: `refund-${order.reference}` });
    order.refund = { reference: refund.reference, status: refund.status };
    return { redirect: `/orders/${order.id}` };
  }
  return { status: 404, text: 'not found' };
}

const server = http.createServer(async (request, response) => {
  const { pathname } = new URL(request.url, shopUrl);
  try {
    const body = await readBody(request);
    const order = /^\/orders\/([0-9a-f]+)(\.json|\/refund)?$/.exec(pathname);
    const route = routes[`${request.method} ${pathname}`];
    const answer = order ? await orderRoute(request.method, order[1], order[2]) : route ? await route(request, body) : { status: 404, text: 'not found' };
    if (answer.redirect) response.writeHead(303, { location: answer.redirect }).end();
    else if (answer.html) response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(answer.html);
    else if (answer.json) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
    else response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.text);
  } catch (error) {
    // A KassaProblem carries Kassa's RFC 9457 answer: its type, and every failing field.
    const detail = error instanceof KassaProblem ? `${error.status} ${error.type}: ${error.message} ${JSON.stringify(error.errors)}` : String(error);
    console.error(detail);
    response.writeHead(502, { 'content-type': 'text/plain' }).end('The payment service refused: ' + detail);
  }
});

server.listen(port, process.env.HOST ?? '127.0.0.1', () => console.log(`The Mug Shop at ${shopUrl}`));
process.on('SIGTERM', () => server.close());
