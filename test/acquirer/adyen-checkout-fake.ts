/**
 * The stand-in's Checkout API v71 (adyen-fake.ts serves it beside the Payment API), for the
 * methods paid elsewhere: every request is validated against Adyen's own `CheckoutService-v71.json`
 * and one that breaks it is answered 422 and recorded as a violation. Stateful as Adyen is:
 * - `/payments` for iDEAL, PayPal and Klarna answers `RedirectShopper` with a redirect `action` to
 *   the method's page, served here (`/hpp/<id>`; with `redirectBy: 'POST'` a POST action whose
 *   `data` must be posted to `/hpp/<id>/enter`, as Adyen answers for some methods and banks),
 *   where the tester (or a browser test) picks
 *   Authorised, Refused, Cancelled or Pending; the page sends the customer back to the `returnUrl`
 *   with a `redirectResult`, which `/payments/details` turns into that outcome. A Klarna payment's
 *   `lineItems` must add up to its amount (Klarna refuses it otherwise).
 * - `/payments` for `bankTransfer_IBAN` answers `PresentToShopper` with the account and reference.
 * - `/payments/{pspReference}/captures|refunds|cancels|reversals` answer `received` (201).
 * Notifications are the test's to send, as for the Payment API.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { requestValidators } from './request-validators.ts';
import type { FastifyInstance } from 'fastify';
import { MAX_IDEMPOTENCY_KEY } from '../../src/acquirer/adyen-http.ts';

const contractDir = process.env.ADYEN_CONTRACT_DIR ?? '/work/shared/acquirers/adyen';
export const CHECKOUT_CONTRACT = path.join(contractDir, 'CheckoutService-v71.json');
export const CHECKOUT_PREFIX = '/checkout/v71';

export type CheckoutChoice = 'Authorised' | 'Refused' | 'Cancelled' | 'Pending';
export const checkoutChoices: readonly CheckoutChoice[] = ['Authorised', 'Refused', 'Cancelled', 'Pending'];

/** A payment sent to a method's page: what Kassa asked, and what the tester picked there. */
export interface CheckoutSession {
  id: string;
  reference: string;
  method: string;
  amount: { value: number; currency: string };
  returnUrl: string;
  pspReference: string;
  /** What a POST redirect's `data` carries, which the method's page must be posted. */
  token: string;
  choice?: CheckoutChoice;
}

export interface FakeCheckout {
  /** The Checkout API's root, as `kassa acquirer set --checkout-endpoint` takes it. */
  url: string;
  sessions: Map<string, CheckoutSession>;
  /** How `/payments` sends the shopper to the method's page: a GET (default), or a POST of the action's `data`. */
  redirectBy?: 'GET' | 'POST';
}

interface Recorder {
  apiKey: string;
  requests: { path: string; body: Record<string, unknown>; idempotencyKey: string | undefined }[];
  violations: string[];
}

const pspReference = () => randomBytes(8).toString('hex').toUpperCase();
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function checkoutApi(app: FastifyInstance, recorder: Recorder, base: () => string): Promise<FakeCheckout> {
  // A validator per Checkout path (its template, `/payments/{paymentPspReference}/captures`).
  const validators = requestValidators(CHECKOUT_CONTRACT, 'checkout.json');
  const checkout: FakeCheckout = { url: '', sessions: new Map() };
  const answers = new Map<string, { status: number; body: unknown }>();

  /** Validated, authenticated and answered once per Idempotency-Key, as Adyen does. */
  const route = (template: string, answer: (body: Record<string, unknown>, params: Record<string, string>) => { status: number; body: unknown }) => {
    const fastifyPath = CHECKOUT_PREFIX + template.replace(/\{(\w+)\}/g, ':$1');
    app.post<{ Body: Record<string, unknown>; Params: Record<string, string> }>(fastifyPath, async (request, reply) => {
      const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
      const body = request.body;
      const concrete = template.replace(/\{(\w+)\}/g, (_, name: string) => request.params[name] ?? '');
      recorder.requests.push({ path: `/checkout${concrete}`, body, idempotencyKey });
      if (request.headers['x-api-key'] !== recorder.apiKey)
        return reply.code(401).send({ status: 401, errorCode: '000', message: 'HTTP Status Response - Unauthorized', errorType: 'security' });
      if (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY)
        recorder.violations.push(`checkout ${template}: an Idempotency-Key of ${idempotencyKey.length} characters`);
      const validate = validators[template]!;
      if (!validate(body)) {
        recorder.violations.push(`checkout ${template}: ${JSON.stringify(validate.errors)}`);
        return reply.code(422).send({ status: 422, errorCode: '702', message: 'Structure of the request is invalid', errorType: 'validation' });
      }
      const key = `${concrete}:${idempotencyKey}`;
      const answered = (idempotencyKey && answers.get(key)) || answer(body, request.params);
      if (idempotencyKey) answers.set(key, answered);
      return reply.code(answered.status).send(answered.body);
    });
  };

  route('/payments', (body) => {
    const method = body.paymentMethod as { type: string };
    const amount = body.amount as CheckoutSession['amount'];
    if (method.type === 'klarna') {
      const items = (body.lineItems ?? []) as { quantity?: number; amountIncludingTax?: number }[];
      const total = items.reduce((sum, item) => sum + (item.quantity ?? 0) * (item.amountIncludingTax ?? 0), 0);
      if (items.length === 0 || total !== amount.value) {
        recorder.violations.push(`checkout /payments: Klarna's lineItems add up to ${total}, not ${amount.value}`);
        return { status: 422, body: { status: 422, errorCode: '000', message: 'Line items do not add up to the amount', errorType: 'validation' } };
      }
    }
    if (method.type === 'bankTransfer_IBAN') {
      const psp = pspReference();
      return {
        status: 200,
        body: {
          pspReference: psp,
          resultCode: 'PresentToShopper',
          action: {
            type: 'bankTransfer',
            paymentMethodType: 'bankTransfer_IBAN',
            beneficiary: 'Adyen N.V.',
            iban: 'NL13TEST0123456789',
            bic: 'TESTNL01',
            reference: `${psp.slice(0, 8)}`,
            totalAmount: amount,
          },
          merchantReference: body.reference,
        },
      };
    }
    const id = randomBytes(12).toString('hex');
    const token = randomBytes(12).toString('base64url');
    checkout.sessions.set(id, {
      id,
      reference: String(body.reference),
      method: method.type,
      amount,
      returnUrl: String(body.returnUrl),
      pspReference: pspReference(),
      token,
    });
    const action =
      checkout.redirectBy === 'POST'
        ? { type: 'redirect', method: 'POST', url: `${base()}/hpp/${id}/enter`, data: { sessionToken: token, entry: 'post' }, paymentMethodType: method.type }
        : { type: 'redirect', method: 'GET', url: `${base()}/hpp/${id}`, paymentMethodType: method.type };
    return { status: 200, body: { resultCode: 'RedirectShopper', action } };
  });

  route('/payments/details', (body) => {
    const result = String((body.details as { redirectResult?: string }).redirectResult ?? '');
    const session = checkout.sessions.get(result.split('.')[0]!);
    if (!session?.choice) return { status: 422, body: { status: 422, errorCode: '101', message: 'Invalid redirectResult', errorType: 'validation' } };
    const common = { pspReference: session.pspReference, merchantReference: session.reference, amount: session.amount };
    switch (session.choice) {
      case 'Authorised':
        return { status: 200, body: { ...common, resultCode: 'Authorised' } };
      case 'Refused':
        return { status: 200, body: { ...common, resultCode: 'Refused', refusalReason: 'Refused', refusalReasonCode: '2' } };
      case 'Cancelled':
        return { status: 200, body: { ...common, resultCode: 'Cancelled' } };
      case 'Pending':
        return { status: 200, body: { ...common, resultCode: 'Pending' } };
    }
  });

  for (const [modification, withAmount] of [
    ['captures', true],
    ['refunds', true],
    ['cancels', false],
    ['reversals', false],
  ] as const) {
    route(`/payments/{paymentPspReference}/${modification}`, (body, params) => ({
      status: 201,
      body: {
        merchantAccount: body.merchantAccount,
        paymentPspReference: params.paymentPspReference,
        pspReference: pspReference(),
        ...(body.reference ? { reference: body.reference } : {}),
        ...(withAmount ? { amount: body.amount } : {}),
        status: 'received',
      },
    }));
  }

  // The method's page: what the shopper would see at their bank or at PayPal or Klarna.
  const methodPage = (session: CheckoutSession) => {
    const buttons = checkoutChoices.map((choice) => `<button type="submit" name="choice" value="${choice}">${choice}</button>`).join('');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fake ${escape(session.method)}</title></head><body><main><h1>Fake ${escape(session.method)}: pay ${session.amount.value} ${escape(session.amount.currency)}</h1><form method="post" action="/hpp/${session.id}">${buttons}</form></main></body></html>`;
  };
  app.get<{ Params: { id: string } }>('/hpp/:id', async (request, reply) => {
    const session = checkout.sessions.get(request.params.id);
    if (!session) return reply.code(404).type('text/html').send('<p>unknown payment</p>');
    return reply.type('text/html').send(methodPage(session));
  });
  // Entered by a POST redirect: only with the action's `data`, as the shopper's browser posts it.
  app.post<{ Params: { id: string }; Body: Record<string, string> }>('/hpp/:id/enter', async (request, reply) => {
    const session = checkout.sessions.get(request.params.id);
    if (!session || request.body?.sessionToken !== session.token || request.body?.entry !== 'post') {
      return reply.code(400).type('text/html').send('<p>unknown payment, or not the data of its redirect</p>');
    }
    return reply.type('text/html').send(methodPage(session));
  });
  app.post<{ Params: { id: string }; Body: { choice?: string } }>('/hpp/:id', async (request, reply) => {
    const session = checkout.sessions.get(request.params.id);
    const choice = checkoutChoices.find((known) => known === request.body?.choice);
    if (!session || !choice) return reply.code(400).type('text/html').send('<p>unknown payment or choice</p>');
    session.choice = choice;
    const back = new URL(session.returnUrl);
    back.searchParams.set('redirectResult', `${session.id}.${randomBytes(6).toString('hex')}`);
    return reply.code(303).redirect(back.href, 303);
  });

  return checkout;
}
