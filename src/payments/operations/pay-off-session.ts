/**
 * An off-session payment with a stored card (docs/vault.md "Paying off-session"): the merchant's
 * server charges a card the customer stored, under the customer's earlier consent, with no
 * customer present — a subscription's next charge, or an unscheduled one (`sequenceInfo.source:
 * "MIT"`, flows.ts `vault-mit`). `POST {base_url}/payment` hands such a request here
 * (create-payment.ts). No page and no 3-D Secure: a merchant-initiated transaction is out of the
 * scope of strong customer authentication (PSD2 RTS, docs/vault.md), so the card goes to the
 * acquirer at once, and the create answer carries the outcome.
 *
 *   reserve  the pending payment stored, its attempt counted and its processing lease taken
 *            (card/reserve.ts), in one unit of work that also holds the Idempotency-Reference
 *   act      the authorisation recorded in flight, then sent (card/authorise.ts `authorise`)
 *   commit   the one state change (card/commit.ts `commitCardOutcome`)
 *
 * So a retry with the same Idempotency-Reference never charges twice (run.ts `runHeld`), and an
 * outcome the acquirer did not give in time is `manualintervention`, settled by its notification
 * or the recovery job as any card payment's (docs/acquirers.md "Unknown outcomes").
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { CardData } from '../../acquirer/connector.ts';
import { AcquirerUnavailable } from '../../acquirer/select.ts';
import type { Caller } from '../../merchants/merchants.ts';
import { creationContext, planPayment, validatePaymentBody } from '../create.ts';
import { storePendingTransaction } from '../pending-transaction.ts';
import { serializePayment } from '../serialize.ts';
import { authorise } from '../card/authorise.ts';
import { commitCardOutcome, reverseLostAuthorisation } from '../card/commit.ts';
import { releaseLease, reserveCardAttempt } from '../card/reserve.ts';
import { type CardPaymentContext, type CardPlan, type PageStep, type CardOutcome } from '../card/steps.ts';
import { requestRules } from '../requests/fields.ts';
import { refuseWhatTheAcquirerWouldRefuse } from '../ports.ts';
import { merchantOperation, Stop, type Context } from '../runner/operation.ts';

/** The new payment as its card stages see it: the row and its merchant (payment-context.ts). */
function paying(row: TransactionRow, { ports, caller, now, log }: Context<Caller>): CardPaymentContext {
  return { ports, caller: { row, merchant: { id: caller.merchantId, name: caller.merchantName, settings: caller.settings } }, now, log };
}

/** No customer's browser: nothing to collect. */
const noBrowser = { javascriptEnabled: false, collected: {} };

interface OffSessionPlan {
  row: TransactionRow;
  card: CardPlan;
}

/** A fresh payment the reservation could not take: only an acquirer that cannot take cards now stops it; no other request knows the payment yet. */
function refusedReservation(step: PageStep): Error {
  if (step.step === 'unavailable') return new AcquirerUnavailable();
  return new Error(`a new off-session payment could not be reserved: ${step.step}`);
}

export const payOffSession = merchantOperation({
  name: 'payOffSession',
  // The route's own scope: an Idempotency-Reference names one request of POST /payment, whichever operation runs it.
  scope: 'payment',
  parse: (body: Record<string, unknown>, { caller, ports }) => validatePaymentBody(body, caller, requestRules(caller.mode, ports.settings)),
  load: async (request, { ports, caller }) => {
    const vaultCard = await ports.vault.find(ports.store.read, caller, request.details.vaultAccessToken!);
    // Asked only of a token of the caller's own: any other is the one 422 of docs/api.md#the-details-object, whatever the mode's acquirer.
    if (vaultCard && !(await ports.acquirers.available(caller))) throw new AcquirerUnavailable();
    // As for a payment on a page: what the acquirer would refuse (a currency, an amount its units cannot carry) is refused here.
    if (vaultCard) await refuseWhatTheAcquirerWouldRefuse(ports, caller, request);
    // Decrypted in memory for this one authorisation; the vault never keeps a CVC, and none is sent.
    const card: CardData | undefined = vaultCard && (await ports.vault.open(caller, vaultCard.id));
    return { vaultCard, card };
  },
  decide: ({ vaultCard, card }, request, ctx): OffSessionPlan => {
    const { row } = planPayment(request, creationContext(ctx, vaultCard));
    return { row: row as TransactionRow, card: { check: { ok: true, card: card! }, browser: noBrowser } };
  },
  reserve: async (tx, plan, ctx) => {
    await storePendingTransaction(tx, plan.row);
    const reserved = await reserveCardAttempt(tx, plan.card, paying(plan.row, ctx));
    // Thrown, so the unit that stored the payment rolls back with it.
    if (reserved instanceof Stop) throw refusedReservation(reserved.answer);
    return { ...plan, card: reserved };
  },
  claimed: (plan) => plan.row.reference,
  release: (tx, plan, ctx) => releaseLease(tx, plan, paying(plan.row, ctx)),
  act: async (plan, ctx): Promise<{ row: TransactionRow; settlement: CardOutcome }> => {
    const card = (plan.card.check as { card: CardData }).card;
    return { row: plan.row, settlement: await authorise(card, undefined, `attempt-${plan.card.attempt}`, paying(plan.row, ctx)) };
  },
  commit: async (tx, { row, settlement }, ctx) => ({ step: await commitCardOutcome(tx, settlement, paying(row, ctx)), row }),
  answer: ({ step, row }, { ports }) => serializePayment(step.step === 'final' ? step.row : row, ports.links),
  after: ({ step, row }, { settlement }, ctx) => reverseLostAuthorisation(step, settlement, paying(row, ctx)),
});
