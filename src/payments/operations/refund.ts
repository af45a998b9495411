/**
 * Refund (`POST {base_url}/refund`, DESIGN §3 "Refunds"): `{reference, amount?, description?,
 * orderLines?, webhookUrl?}`; without an amount, whatever is not refunded yet. A captured
 * authorisation is refunded from its capture, whichever of the two is named. The amount is
 * reserved atomically before the acquirer is asked (payments/refunds.ts), so simultaneous
 * refunds never add up to more than was paid; the acquirer call carries a key of the refund,
 * so a retry never refunds twice; the refund's final state is announced by webhook like a payment's.
 */
import { loadSale, parseRefundRequest, planRefund, reserveRefund, settleRefund } from '../refunds.ts';
import { serializePayment } from '../serialize.ts';
import { merchantOperation } from './operation.ts';
import { ownerOf } from '../../store/transactions.ts';
import { requestRules } from './fields.ts';

export const refund = merchantOperation({
  name: 'refund',
  parse: (body: Record<string, unknown>, { caller, ports }) => parseRefundRequest(body, requestRules(caller.mode, ports.config)),
  load: (request, { ports, caller }) => loadSale(ports.store.read, caller, request.reference),
  decide: (sale, request, { ports, now }) => planRefund(sale, request, ports.config.refundWindows, now),
  reserve: (tx, plan, { ports, now }) => reserveRefund(tx, plan, { dialect: ports.store.dialect, secrets: ports.links.secrets, now }),
  act: async (plan, { ports }) => {
    const refund = plan.refund!;
    const request = { reference: refund.reference, acquirerReference: plan.sale.acquirerReference ?? '', amountMinor: refund.amount_minor, currency: refund.currency };
    return { refund, result: await (await ports.acquirers.for(ownerOf(refund))).refund(request, `${refund.reference}:refund`) };
  },
  commit: async (tx, { refund, result }, { ports, now }) => {
    // Taken but not done yet, or no answer: the refund stays pending, its amount reserved, until the acquirer's notification settles it.
    if (result.outcome === 'received' || result.outcome === 'unknown') return refund;
    const outcome = result.outcome === 'done' ? ({ to: 'success', cause: 'acquirer_refunded' } as const) : ({ to: 'failed', cause: 'acquirer_refused' } as const);
    return (await settleRefund(tx, ports.store.dialect, refund, { ...outcome, at: now })).row;
  },
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
