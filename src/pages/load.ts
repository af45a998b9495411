/**
 * What every payment page route starts with: the payment its capability token names, loaded with
 * its merchant, its page row and what every view shows (`load`, reads only: a refresh costs no
 * write); for a form post, the CSRF check too, and the page row made if this is the payment's
 * first post (`loadForm`); and running a customer operation on the loaded payment (`perform`).
 * Until its first post a payment has no page row: its pages show the form token the secrets key
 * derives from its reference (lib/tokens.ts `pageFormTokenOf`), which the first post checks and keeps.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.ts';
import type { Ports } from '../payments/ports.ts';
import { findByPageToken } from '../store/transactions.ts';
import { ensurePaymentPage, findPaymentPage, pageMade, pageNotMadeYet } from '../store/payment-pages.ts';
import { pageFormTokenOf } from '../lib/tokens.ts';
import { amountText } from '../ground/amount.ts';
import { paymentMerchant } from '../merchants/merchants.ts';
import { flowOf } from '../payments/flows.ts';
import type { PaymentContext } from '../payments/payment-context.ts';
import { run } from '../payments/runner/run.ts';
import type { AnyOperation } from '../payments/runner/operation.ts';
import { pageLanguage, translator } from './i18n.ts';
import { crossSite, csrfValid, field, newNonce, sendPage, type Form } from '../lib/page-security.ts';
import { messagePage, type PaymentView } from './views.ts';
import { notFound, policy, type Loaded } from './render.ts';

export type TokenRequest = FastifyRequest<{ Params: { token: string }; Body: Form }>;

/** What the page route files share (routes.ts builds it once). */
export interface PageContext {
  store: Store;
  ports: Ports;
  publicUrl: string;
  /** `acceptLanguage`: the browser's, for a payment whose language has no page (docs/pages.md "Languages"). */
  load(token: string, acceptLanguage?: string): Promise<Loaded | undefined>;
  /** Loads the payment of a form post and checks its CSRF token; undefined when the reply was sent. */
  loadForm(request: TokenRequest, reply: FastifyReply): Promise<Loaded | undefined>;
  /** Runs a customer operation on the loaded payment. */
  perform<Body, Answer>(op: AnyOperation<PaymentContext, Body, Answer>, loaded: Loaded, body: Body, log: FastifyRequest['log']): Promise<Answer>;
}

export function pageContext(store: Store, ports: Ports, publicUrl: string): PageContext {
  async function load(token: string, acceptLanguage?: string): Promise<Loaded | undefined> {
    const row = await findByPageToken(store.read, token);
    if (!row || row.type === 'credit') return undefined;
    const merchant = await paymentMerchant(store.read, row.merchant_id);
    const page = (await findPaymentPage(store.read, row.reference)) ?? pageNotMadeYet(row.reference, pageFormTokenOf(store.secrets, row.reference));
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
    return { row, merchant, page, view, publicUrl };
  }

  async function loadForm(request: TokenRequest, reply: FastifyReply): Promise<Loaded | undefined> {
    const loaded = await load(request.params.token, request.headers['accept-language']);
    if (!loaded) {
      await notFound(reply);
      return undefined;
    }
    const sent = field(request.body, 'csrf');
    // The derived token passes too: a form shown before the row was made (by this post, or by an operation that pays) carries it.
    const formToken = pageFormTokenOf(store.secrets, loaded.row.reference);
    if (crossSite(request) || !(csrfValid(loaded.page.csrf_token, sent) || csrfValid(formToken, sent))) {
      const { view } = loaded;
      await sendPage(reply, policy(view.nonce), messagePage(view, view.t('notFoundTitle'), view.t('formExpired')), 403);
      return undefined;
    }
    if (pageMade(loaded.page)) return loaded;
    // The payment's first post: its page row is made now, keeping the token its pages showed.
    const page = await store.transact((db) => ensurePaymentPage(db, loaded.row.reference, formToken, Date.now()));
    return { ...loaded, page };
  }

  const perform = <Body, Answer>(op: AnyOperation<PaymentContext, Body, Answer>, { row, merchant }: Loaded, body: Body, log: FastifyRequest['log']) =>
    run(op, body, { ports, caller: { row, merchant }, now: Date.now(), log });

  return { store, ports, publicUrl, load, loadForm, perform };
}
