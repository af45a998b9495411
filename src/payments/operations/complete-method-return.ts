/**
 * A customer back from a method's step elsewhere (docs/payment-methods.md "Back from the
 * method"): the acquirer is asked the outcome with what it put in the address they came back to
 * (Adyen's `/payments/details` with `redirectResult`), and the payment takes it — paid, failed,
 * or still pending until the acquirer's notification, which stays the final word. The same return
 * asked again (a reload, a second tab) sends the same idempotency key, so the acquirer answers the
 * same; a payment already decided (by the notification, or the first return) is not asked about.
 * A connector that gives no outcome here (the simulator: its page decided) is not asked either.
 */
import { findPaymentPage } from '../../store/payment-pages.ts';
import { findTransaction, ownerOf } from '../../store/transactions.ts';
import type { AuthoriseResult } from '../../acquirer/connector.ts';
import type { PageStep } from '../card-payment.ts';
import { customerOperation, stop } from './operation.ts';
import { methodPaidElsewhere, settleStep } from './send-to-method.ts';

export const completeMethodReturn = customerOperation({
  name: 'completeMethodReturn',
  parse: (details: Record<string, string>) => details,
  load: (_details, { ports, caller }) => findPaymentPage(ports.store.read, caller.row.reference),
  decide: (page, details, { caller }) =>
    methodPaidElsewhere(caller.row, page) !== undefined && caller.row.status === 'pending' && Object.keys(details).length > 0 ? details : undefined,
  reserve: async (tx, details, { caller }) => {
    const current = (await findTransaction(tx, caller.row.reference))!;
    if (details === undefined || current.status !== 'pending') return stop<PageStep>({ step: 'final', row: current });
    return details;
  },
  act: async (details: Record<string, string> | undefined, { ports, caller }): Promise<AuthoriseResult | undefined> => {
    const acquirer = await ports.acquirers.for(ownerOf(caller.row));
    return acquirer.completeRedirect?.({ reference: caller.row.reference, details: details! }, `${caller.row.reference}:details`);
  },
  commit: async (tx, result: AuthoriseResult | undefined, ctx): Promise<PageStep> =>
    result ? settleStep(tx, result, ctx) : { step: 'final', row: (await findTransaction(tx, ctx.caller.row.reference))! },
  answer: (step: PageStep) => step,
});
