/**
 * A method paid on a page elsewhere (docs/payment-methods.md): when the customer opens payUrl (or
 * chose the method on a landing page), the acquirer is asked for the method's own step — the
 * bank's page, the method's sign-in — and the customer is sent there; they come back to the
 * payment's `/return` address. Asking again (a reload, a second tab) sends the same request with
 * the same idempotency key, so the acquirer answers the same step. The acquirer's reference is
 * kept for the payment's refunds and captures; an acquirer that decides at once (declined, no
 * answer) ends the payment here as for a card.
 */
import { findTransaction, setTransactionDetails } from '../../store/transactions.ts';
import { findCurrency } from '../../ground/amount.ts';
import { invoiceOf } from '../requests/order-lines.ts';
import { shopperOf } from '../card/shopper.ts';
import { findPaymentPage, setPageFields } from '../../store/payment-pages.ts';
import { ownerOf } from '../../store/transactions.ts';
import type { Db } from '../../store/store.ts';
import { methodOf, type RedirectMethod } from '../../ground/payment-method.ts';
import { takes, type AuthoriseResult } from '../../acquirer/connector.ts';
import { openForPaying } from '../card/reserve.ts';
import { paymentAmount } from '../card/authorise.ts';
import { type PageStep } from '../card/steps.ts';
import { flowOf } from '../flows.ts';
import { pageTokenOfPayment, payUrlOf, storedRequestOf } from '../serialize.ts';
import { recordAcquirerOutcome } from '../follow-ups/authorisation.ts';
import { transition } from '../transition.ts';
import type { PaymentContext } from '../payment-context.ts';
import type { Context } from '../runner/operation.ts';
import { customerOperation, stop } from '../runner/operation.ts';

/** The method a payment is paid by on a page elsewhere: its own, or the one its customer chose on a landing page. */
export function methodPaidElsewhere(row: { flow: string }, page: { chosen_method: string | null } | undefined): RedirectMethod | undefined {
  const own = flowOf(row.flow).method;
  // A method with no instrument of its own (the landing page) is paid by the method chosen on it.
  const paidBy = methodOf(own)?.instrument === 'none' ? page?.chosen_method : own;
  return paidBy && methodOf(paidBy)?.instrument === 'redirect' ? (paidBy as RedirectMethod) : undefined;
}

export const sendToMethod = customerOperation({
  name: 'sendToMethod',
  parse: () => undefined,
  load: (_nothing, { ports, caller }) => findPaymentPage(ports.store.read, caller.row.reference),
  decide: (page, _nothing, { caller }) => methodPaidElsewhere(caller.row, page),
  reserve: async (tx, method, { caller, now }) => {
    if (method === undefined) return stop<PageStep>({ step: 'stale' });
    const current = await openForPaying(tx, caller.row.reference, now);
    return 'step' in current ? stop(current) : method;
  },
  act: async (method: RedirectMethod | undefined, ctx) => {
    const { ports, caller } = ctx;
    const { row, merchant } = caller;
    const stored = storedRequestOf(row);
    const acquirer = await ports.acquirers.for(ownerOf(row));
    // The merchant's connection changed since the payment was made: its new acquirer does not take the method.
    if (!takes(acquirer.serves, method!, row.currency)) return undefined;
    return acquirer.authorise(
      {
        ...paymentAmount(row),
        instrument: {
          kind: 'redirect',
          method: method!,
          ...(stored.issuer ? { issuer: stored.issuer } : {}),
          ...(stored.orderLines ? { invoice: invoiceOf(stored.orderLines as Record<string, unknown>[], findCurrency(row.currency)!) } : {}),
          paymentPageUrl: payUrlOf(ports.links.publicUrl, pageTokenOfPayment(row, ports.links.secrets)),
        },
        captureNow: row.type !== 'authorise',
        merchantName: merchant.name,
        shopper: shopperOf(row),
      },
      `${row.reference}:redirect`,
    );
  },
  commit: async (tx, result: AuthoriseResult | undefined, ctx): Promise<PageStep> => (result ? settleStep(tx, result, ctx) : { step: 'unavailable' }),
  answer: (step: PageStep) => step,
});

/**
 * The acquirer's answer to a method paid elsewhere, when the customer is sent there or comes
 * back (complete-method-return.ts): the step elsewhere (its reference kept), a bank transfer's
 * instructions (in the payment's details, docs/payment-methods.md "Bank transfer"), or the
 * payment's one state change.
 */
export async function settleStep(tx: Db, result: AuthoriseResult, { caller, now }: Context<PaymentContext>): Promise<PageStep> {
  const { reference } = caller.row;
  const final = async (): Promise<PageStep> => ({ step: 'final', row: (await findTransaction(tx, reference))! });
  switch (result.outcome) {
    case 'redirect':
      if (result.acquirerReference) await setPageFields(tx, reference, { acquirer_reference: result.acquirerReference });
      return { step: 'redirect', url: result.url, ...(result.form ? { form: result.form } : {}) };
    case 'pending': {
      if (result.acquirerReference) await setPageFields(tx, reference, { acquirer_reference: result.acquirerReference });
      const current = (await findTransaction(tx, reference))!;
      if (result.transfer && current.status === 'pending') {
        const details = { ...(JSON.parse(current.details) as Record<string, unknown>), bankTransfer: result.transfer };
        await setTransactionDetails(tx, reference, JSON.stringify(details));
      }
      return final();
    }
    case 'authorised':
      await recordAcquirerOutcome(tx, { reference, from: 'pending', to: 'success', cause: 'acquirer_authorised', at: now }, result.acquirerReference);
      return final();
    case 'declined':
      await transition(tx, { reference, from: 'pending', to: 'failed', failureCode: result.failureCode, cause: 'acquirer_declined', at: now });
      return final();
    case 'unknown':
      await transition(tx, { reference, from: 'pending', to: 'manualintervention', cause: 'acquirer_timeout', at: now });
      return final();
  }
}
