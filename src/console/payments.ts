/**
 * The console's payments (docs/console.md "Payments"): the list with its filters, and one
 * transaction's page — its payment object as the merchant API shows it, events, webhook deliveries,
 * related transactions, audit log entries and the actions offered on it (payment-actions.ts runs
 * them). A merchant's account sees its own merchant's transactions only: any other is not found.
 */
import type { FastifyInstance } from 'fastify';
import type { TransactionRow } from '../store/schema.ts';
import { eventsOf, findTransaction } from '../store/transactions.ts';
import { findPaymentPage } from '../store/payment-pages.ts';
import { childrenOf, listTransactions } from '../store/transaction-list.ts';
import { deliveriesOf } from '../events/admin.ts';
import { paymentMerchant } from '../merchants/merchants.ts';
import { Problem } from '../ground/problem.ts';
import { failureCodes } from '../ground/states.ts';
import { identifierShaped } from '../lib/tokens.ts';
import { serializePayment } from '../payments/serialize.ts';
import type { Session } from '../operators/sessions.ts';
import { auditEntries } from '../operators/audit.ts';
import type { MessageKey } from './i18n.ts';
import { actionNames, offeredActions, paidByTransfer, testDisputeStages, type ActionContext } from './actions.ts';
import { merchantChoices, pageQuery, parseFilters } from './filters.ts';
import { PAGE_SIZE, type ConsoleContext, type Query } from './context.ts';
import { shownPayment } from './capabilities.ts';
import { paymentsPage, type ConsoleView } from './views.ts';
import { paymentPage } from './payment-views.ts';

/** What the payment routes and the action routes share: finding a transaction the account may see, its action context and its page. */
export function paymentPages(app: FastifyInstance, { store }: ConsoleContext) {
  const { ports } = app;

  /** The transaction if this account may see it; otherwise not found, as for one that does not exist. */
  async function visibleTransaction(session: Session, reference: string): Promise<TransactionRow> {
    const row = identifierShaped(reference) ? await findTransaction(store.read, reference) : undefined;
    if (!row || (session.operator.merchantId !== null && row.merchant_id !== session.operator.merchantId)) throw new Problem('notFound', 'No such transaction.');
    return row;
  }

  /** The context an action's operation runs in: the transaction's merchant and mode, as the merchant API's caller. */
  async function actionContext(row: TransactionRow, log: ActionContext['log']): Promise<ActionContext> {
    const merchant = await paymentMerchant(store.read, row.merchant_id);
    return { ports, caller: { merchantId: merchant.id, merchantName: merchant.name, mode: row.mode, settings: merchant.settings }, now: Date.now(), log };
  }

  async function paymentView(view: ConsoleView, row: TransactionRow, messages: { notice?: string; problem?: string }) {
    const ctx = await actionContext(row, app.log);
    const children = await childrenOf(store.read, row.reference);
    // An authorisation's refunds are booked on its capture: show them here too.
    const grandchildren = await Promise.all(children.filter((c) => c.type === 'sale').map((c) => childrenOf(store.read, c.reference)));
    const [events, deliveries, page, entries] = await Promise.all([
      eventsOf(store.read, row.reference),
      deliveriesOf(store, { merchantId: row.merchant_id, reference: row.reference }),
      findPaymentPage(store.read, row.reference),
      auditEntries(store, view.session!.operator, { reference: row.reference, limit: PAGE_SIZE }),
    ]);
    return paymentPage(view, {
      row,
      payment: shownPayment(serializePayment(row, ports.links), view.session!.operator, row),
      authentication: row.authentication ? JSON.parse(row.authentication) : null,
      acquirerReference: page?.acquirer_reference ?? null,
      events,
      deliveries,
      related: [...children, ...grandchildren.flat()],
      audit: entries,
      merchantName: ctx.caller.merchantName,
      actions: await offeredActions(row, ctx),
      failureCodes,
      paidByTransfer: paidByTransfer(row, page),
      testDisputeStages: testDisputeStages(row),
      ...messages,
    });
  }

  return { visibleTransaction, actionContext, paymentView };
}
export type PaymentPages = ReturnType<typeof paymentPages>;

export function paymentRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext, { visibleTransaction, paymentView }: PaymentPages) {
  app.get<{ Querystring: Query }>('/dashboard/payments', async (request, reply) => {
    const session = request.consoleSession;
    const view = viewOf(request, session);
    const { merchantId } = session.operator;
    const merchants = await merchantChoices(store.read, merchantId);
    const parsed = await parseFilters(store.read, request.query, merchantId);
    if ('invalid' in parsed) {
      const problem = view.t('invalidFilters', { fields: parsed.invalid.join(', ') });
      return send(reply, view, paymentsPage(view, { filters: {}, merchants, rows: [], paged: false, problem }), 400);
    }
    const rows = await listTransactions(store.read, parsed.filter, parsed.cursor, PAGE_SIZE + 1);
    const last = rows.length > PAGE_SIZE ? rows[PAGE_SIZE - 1] : undefined;
    const nextQuery = last && pageQuery(parsed.shown, { created: last.created, reference: last.reference });
    return send(reply, view, paymentsPage(view, { filters: parsed.shown, merchants, rows: rows.slice(0, PAGE_SIZE), nextQuery, paged: parsed.cursor !== undefined }));
  });

  app.get<{ Params: { reference: string }; Querystring: Query }>('/dashboard/payments/:reference', async (request, reply) => {
    const view = viewOf(request, request.consoleSession);
    const row = await visibleTransaction(request.consoleSession, request.params.reference);
    const done = request.query.done;
    const notice = done && (actionNames as readonly string[]).concat('redeliver').includes(done) ? view.t(`done_${done}` as MessageKey) : undefined;
    return send(reply, view, await paymentView(view, row, { notice }));
  });
}
