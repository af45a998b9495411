/**
 * A customer back from a method's step elsewhere (docs/payment-methods.md "Back from the
 * method"): the acquirer is asked the outcome with what it put in the address they came back to
 * (Adyen's `/payments/details` with `redirectResult`), and the payment takes it — paid, failed,
 * or still pending until the acquirer's notification, which stays the final word. The same return
 * asked again (a reload, a second tab) sends the same idempotency key, so the acquirer answers the
 * same; a payment already decided (by the notification, or the first return) is not asked about.
 * A connector that gives no outcome here (the simulator: its page decided) is not asked either.
 *
 * Anyone holding the payment's address can put anything in it, another payment's `redirectResult`
 * too: an outcome is applied only when the answer says it is about this payment as Kassa knows it
 * (acquirer-word.ts); one that is not changes nothing but the timeline, and is logged. An answer
 * the acquirer refused to give (a `redirectResult` it does not know) leaves the payment pending.
 */
import { findPaymentPage } from '../../store/payment-pages.ts';
import { findTransaction, ownerOf, recordTimelineEntry } from '../../store/transactions.ts';
import type { RedirectOutcome } from '../../acquirer/connector.ts';
import { type PageStep } from '../card/steps.ts';
import { mismatchOf } from '../acquirer-word.ts';
import { customerOperation, stop } from '../runner/operation.ts';
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
  act: async (details: Record<string, string> | undefined, { ports, caller }): Promise<RedirectOutcome | undefined> => {
    const acquirer = await ports.acquirers.for(ownerOf(caller.row));
    return acquirer.completeRedirect?.({ reference: caller.row.reference, details: details! }, `${caller.row.reference}:details`);
  },
  commit: async (tx, returned: RedirectOutcome | undefined, ctx): Promise<PageStep> => {
    const { reference } = ctx.caller.row;
    const final = async (): Promise<PageStep> => ({ step: 'final', row: (await findTransaction(tx, reference))! });
    if (!returned) return final();
    const { result, about } = returned;
    // An outcome nobody said what it is about is no decision: the notification gives it.
    if (!about) return result.outcome === 'pending' || result.outcome === 'unknown' ? settleStep(tx, result, ctx) : final();
    const why = mismatchOf(ctx.caller.row, (await findPaymentPage(tx, reference))?.acquirer_reference, about);
    if (!why) return settleStep(tx, result, ctx);
    const { status } = (await findTransaction(tx, reference))!;
    await recordTimelineEntry(tx, { reference, status, cause: 'acquirer_word_mismatch', detail: `${result.outcome} — ${why}`.slice(0, 500), at: ctx.now });
    ctx.log.warn?.({ reference }, why);
    return final();
  },
  answer: (step: PageStep) => step,
});
