/**
 * The payment page itself, payUrl (docs/pages.md): GET shows the page for the payment's state
 * (render.ts `show`: the landing page, the card form, the stored card, the wallet sheet or the
 * outcome), and the forms on it that are not card entry: choosing a method on the landing page,
 * cancelling, and paying with the test wallet sheet.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findCurrency } from '../ground/amount.ts';
import { Problem } from '../ground/problem.ts';
import { type PageStep } from '../payments/card/steps.ts';
import { run } from '../payments/runner/run.ts';
import { cancel } from '../payments/operations/cancel.ts';
import { chooseMethod } from '../payments/operations/choose-method.ts';
import { acceptWalletToken } from '../payments/operations/accept-wallet-token.ts';
import { payWallet } from '../payments/operations/pay-wallet.ts';
import { testWalletToken } from '../wallet/test-sheet.ts';
import { field, type Form } from '../lib/page-security.ts';
import type { PageContext } from './load.ts';
import { notFound, pageShown, respond, show, type Loaded } from './render.ts';

export function paymentPageRoutes(app: FastifyInstance, { ports, load, loadForm, perform }: PageContext) {
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
}
