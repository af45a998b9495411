/**
 * A method paid elsewhere (docs/payment-methods.md): in test mode the simulator page standing in
 * for the method's own step, where the tester picks the outcome, and the address the customer
 * comes back to from the method's step, where the acquirer is asked the outcome.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownerOf } from '../store/transactions.ts';
import { findCurrency } from '../ground/amount.ts';
import { methods } from '../ground/payment-method.ts';
import { storedRequestOf } from '../payments/serialize.ts';
import { methodPaidElsewhere } from '../payments/operations/send-to-method.ts';
import { completeSimulatedMethod } from '../payments/operations/complete-simulated-method.ts';
import { completeMethodReturn } from '../payments/operations/complete-method-return.ts';
import { field, sendPage, type Form } from '../lib/page-security.ts';
import { formatNumber, moneyText } from './i18n.ts';
import { simulatorPage } from './method-views.ts';
import type { PageContext } from './load.ts';
import { notFound, policy, respond, show, transferInstructionsOf } from './render.ts';

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

export function methodStepRoutes(app: FastifyInstance, { ports, load, loadForm, perform }: PageContext) {
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
}
