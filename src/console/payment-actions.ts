/**
 * Actions on a transaction from its console page (docs/console.md "Actions"): each runs the
 * merchant API's operation for the transaction's merchant and mode and writes the audit log entry,
 * done or refused; one that moves money asks to be confirmed first. And sending a webhook again.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TransactionRow } from '../store/schema.ts';
import { findTransaction } from '../store/transactions.ts';
import { findPaymentPage } from '../store/payment-pages.ts';
import { findDelivery } from '../store/webhooks.ts';
import { redeliver, TEST_WEBHOOK_PREFIX } from '../events/admin.ts';
import { Problem } from '../ground/problem.ts';
import { identifierShaped } from '../lib/tokens.ts';
import { field, type Form } from '../lib/page-security.ts';
import { accountActor, audit } from '../operators/audit.ts';
import type { Preview } from '../payments/operations/preview.ts';
import { actionNames, actions, paidByTransfer, type ActionName } from './actions.ts';
import type { ConsoleContext } from './context.ts';
import type { PaymentPages } from './payments.ts';
import { confirmPage } from './payment-views.ts';

const problemText = (problem: Problem) => [problem.detail ?? problem.title, ...(problem.errors ?? []).map((e) => `${e.field} ${e.message}`)].join(' ');

export function paymentActionRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext, { visibleTransaction, actionContext, paymentView }: PaymentPages) {
  /**
   * Runs the action through its operation and writes the audit log entry, done or refused; an action
   * that moves money, not confirmed yet, answers what it would move instead (docs/console.md "Actions").
   */
  async function perform(
    name: ActionName,
    row: TransactionRow,
    request: FastifyRequest<{ Body: Form }>,
  ): Promise<{ problem?: Problem; confirm?: { preview: Preview; carried: Record<string, string> } }> {
    const action = actions[name];
    const input = action.input(request.body);
    const ctx = await actionContext(row, request.log);
    const entry = { action: name, merchantId: row.merchant_id, reference: row.reference };
    const actor = accountActor(request.consoleSession.operator, request.ip);
    try {
      if (action.confirmed && field(request.body, 'confirmed') !== 'yes') {
        const preview = await action.preview(row, input, ctx);
        return { confirm: { preview, carried: action.carried(input, preview) } };
      }
      const result = await action.perform(row, input, ctx);
      await audit(store, request.log, actor, { ...entry, detail: { ...input, result } });
      return {};
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      await audit(store, request.log, actor, { ...entry, outcome: 'refused', detail: { ...input, refused: problemText(error) } });
      return { problem: error };
    }
  }

  for (const name of actionNames) {
    app.post<{ Params: { reference: string }; Body: Form }>(`/dashboard/payments/:reference/${name}`, async (request, reply) => {
      const session = request.consoleSession;
      const row = await visibleTransaction(session, request.params.reference);
      const outcome = await perform(name, row, request);
      const view = viewOf(request, session);
      if (outcome.confirm) {
        const transfer = paidByTransfer(row, await findPaymentPage(store.read, row.reference));
        return send(reply, view, confirmPage(view, { row, action: name, ...outcome.confirm, paidByTransfer: transfer }));
      }
      if (outcome.problem === undefined) return reply.redirect(`/dashboard/payments/${row.reference}?done=${name}`, 303);
      const fresh = (await findTransaction(store.read, row.reference))!;
      return send(reply, view, await paymentView(view, fresh, { problem: view.t('actionRefused', { detail: problemText(outcome.problem) }) }), outcome.problem.status);
    });
  }

  app.post<{ Params: { id: string }; Body: Form }>('/dashboard/webhooks/:id/redeliver', async (request, reply) => {
    const session = request.consoleSession;
    const delivery = identifierShaped(request.params.id) ? await findDelivery(store.read, request.params.id) : undefined;
    if (!delivery || (session.operator.merchantId !== null && delivery.merchant_id !== session.operator.merchantId)) throw new Problem('notFound', 'No such delivery.');
    await redeliver(store, delivery.id);
    await audit(store, request.log, accountActor(session.operator, request.ip), {
      action: 'redeliver',
      merchantId: delivery.merchant_id,
      reference: delivery.reference,
      subject: delivery.id,
      detail: { delivery: delivery.id },
    });
    // A test webhook has no transaction: its page is its merchant's settings.
    return reply.redirect(
      delivery.reference.startsWith(TEST_WEBHOOK_PREFIX) ? `/dashboard/merchants/${delivery.merchant_id}` : `/dashboard/payments/${delivery.reference}?done=redeliver`,
      303,
    );
  });
}
