/**
 * Refund (`POST {base_url}/refund`, docs/decisions.md#refunds): `{reference, amount?, description?,
 * orderLines?, webhookUrl?}`; without an amount, whatever is not refunded yet. A captured
 * authorisation is refunded from its capture, whichever of the two is named. The amount is
 * reserved atomically before the acquirer is asked (payments/follow-ups/refunds.ts), so simultaneous
 * refunds never add up to more than was paid, with the refund's claim on the acquirer
 * (claims.ts): the acquirer call carries a key of the refund, so a retry never refunds twice,
 * and a refund its request never finished is asked again by the recovery job; the refund's final
 * state is announced by webhook like a payment's.
 */
import { loadSale, parseRefundRequest, planRefund, reserveRefund, type RefundPlan } from '../follow-ups/refunds.ts';
import { askAcquirer, endClaim, recordClaim, underClaim } from '../follow-ups/claims.ts';
import { serializePayment } from '../serialize.ts';
import { merchantOperation } from '../runner/operation.ts';
import { findTransaction } from '../../store/transactions.ts';
import { requestRules } from '../requests/fields.ts';

export const refund = merchantOperation({
  name: 'refund',
  parse: (body: Record<string, unknown>, { caller, ports }) => parseRefundRequest(body, requestRules(caller.mode, ports.settings)),
  load: (request, { ports, caller }) => loadSale(ports.store.read, caller, request.reference),
  decide: (sale, request, { ports, now }) => planRefund(sale, request, ports.settings.refundWindows, now),
  reserve: async (tx, plan, { ports, now }) => {
    const reserved = await reserveRefund(tx, plan, { dialect: ports.store.dialect, secrets: ports.links.secrets, now });
    const refund = reserved.refund!;
    const claim = await recordClaim(
      tx,
      {
        action: 'refund',
        reference: refund.reference,
        paymentReference: refund.parent_reference!,
        acquirerReference: plan.sale.acquirerReference ?? '',
        amountMinor: refund.amount_minor,
        currency: refund.currency,
      },
      { now, leaseMs: ports.settings.acquirerRecoveryAfterMs },
    );
    return { ...reserved, claim };
  },
  ...underClaim<RefundPlan>(),
  act: async (plan, { ports }) => ({ claim: plan.claim!, result: await askAcquirer(ports, plan.claim!, plan.refund!) }),
  commit: async (tx, { claim, result }, { ports, now }) => {
    // No answer: the refund stays pending, its amount reserved and its claim kept, until the recovery job asks again.
    if (result.outcome !== 'unknown') await endClaim(tx, ports.store.dialect, claim, result, now);
    return (await findTransaction(tx, claim.reference))!;
  },
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
