/**
 * The acquirer's later word on what it took (docs/acquirers.md "Notifications"): a capture or a
 * refund the acquirer answered `received` stays `pending` until its notification says whether it
 * was done (one left to an operator, `manualintervention`, is settled by it too: claims.ts), and a payment whose authorisation had no answer waits in `manualintervention` for
 * it (or `pending`, its authorisation in flight, when Kassa died before committing the answer);
 * this moves either to `success` or `failed` through the same state change (and so the
 * same events and webhooks) as everything else. A reversal is recorded at once; a word that
 * the acquirer could not do it makes the authorisation `authorised` again, and a reversal whose
 * answer Kassa never recorded (claims.ts) is settled by the word. The notification is
 * already verified, by its connector's reader (acquirer/notifications.ts). Each item is recorded, by the acquirer's name
 * of it, in the unit of work that applies it: one sent again changes nothing and sends no webhook,
 * whatever happened to the payment since (a reversal refused, then made again, is not re-opened
 * by the first refusal's retry).
 *
 * The later words (docs/acquirers.md "Notifications", one line each there): a capture or refund
 * that failed after the acquirer took it ends `failed` like a refused one, or, when it was `success`
 * already, is undone (undone.ts: final states never change), and redone when the acquirer makes the
 * capture after all (its item may be the first capture's again); an authorisation's expiry releases
 * it (`reversed`); the outcome of Kassa's technical cancel ends a payment still waiting for it, or
 * tells the merchant and an operator that it was refused; a closed offer ends a pending payment
 * `failed`/`expired`; a dispute's stage opens or moves its chargeback transaction (disputes.ts,
 * docs/disputes.md). What changes nothing for the payment (a report; an event Kassa does not act
 * on) is an event of its timeline with the acquirer's words, and an event the connector does not
 * know is logged by the route.
 *
 * An outcome is applied only when the word is about the payment as Kassa knows it: its amount and
 * currency, and the acquirer's reference Kassa recorded (acquirer-word.ts); one that is not
 * changes nothing but the timeline, and the route logs it. An authorisation of a payment Kassa
 * ended already is money paid late, given back by Kassa at once (late-payment.ts).
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { Db } from '../../store/store.ts';
import type { Ports } from '../ports.ts';
import { captureStatusOf, recordAcquirerOutcome, recordExpiredAuthorisation, recordRefusedReversal } from '../follow-ups/authorisation.ts';
import { findOwnTransaction, findTransaction, recordTimelineEntry, undoneByAcquirer } from '../../store/transactions.ts';
import { settleFollowUp, settleReversalClaim } from '../follow-ups/claims.ts';
import { redoCapture, undoFollowUp, type Undoing } from '../follow-ups/undone.ts';
import { transition } from '../transition.ts';
import { enqueueWebhook } from '../../events/outbox.ts';
import { endAuthorisationInFlight, findPaymentPage, leaveAuthorisationToOperator, settleAuthorisationInFlight, type PaymentPageRow } from '../../store/payment-pages.ts';
import { recordAcquirerNotification, recordAcquirerNotificationAgain } from '../../store/acquirer-notifications.ts';
import { amountNumber, findCurrency } from '../../ground/amount.ts';
import { Problem } from '../../ground/problem.ts';
import { methodPaidElsewhere } from './send-to-method.ts';
import { systemOperation } from '../runner/operation.ts';
import type { AcquirerWord, DisputeFacts } from '../../acquirer/notifications.ts';
import { recordDisputeWord, type DisputeWord } from '../follow-ups/disputes.ts';
import { mismatchOf } from '../acquirer-word.ts';
import { endLatePayment, latePaymentStatusOf, payableLate, recordLatePayment } from '../follow-ups/late-payment.ts';
import { recordClaim } from '../follow-ups/claims.ts';
import { runLater } from '../runner/run.ts';
import { finishAcquirerClaim, type DueClaim } from './finish-acquirer-claim.ts';

/**
 * What became of an item: applied (whether or not it changed anything), or recorded already.
 * `attention`: what an operator should look at, logged by the route (a technical cancel refused, a
 * word that is not about its payment). `givingBack`: the claim on money paid late, asked at once.
 */
export type Applied = { item: 'first'; row: TransactionRow | undefined; attention?: string; givingBack?: DueClaim } | { item: 'sent again'; differs: boolean };

/** What a word does to its transaction, decided before the unit of work; each kind applied by its entry of `effectsByKind`. */
type WordEffect =
  | {
      /**
       * authorisation: a payment whose authorisation had no answer (manualintervention, docs/api.md#existing-clients), or
       * whose process died before committing the answer (pending, its authorisation in flight), learns its outcome.
       */
      kind: 'authorisation' | 'capture' | 'refund' | 'refused reversal' | 'unanswered reversal';
      row: TransactionRow;
      to: 'success' | 'failed';
      word: AcquirerWord;
    }
  /** A capture or refund that was `success` and that the acquirer undid (undone.ts). */
  | { kind: 'undone'; row: TransactionRow; undoing: Undoing; word: AcquirerWord }
  /** A capture the acquirer undid and then made after all (undone.ts `redoCapture`). */
  | { kind: 'redone'; row: TransactionRow; word: AcquirerWord }
  /** An authorisation held, not captured, released by the acquirer. */
  | { kind: 'expired'; row: TransactionRow; word: AcquirerWord }
  /** The technical cancel of a payment that waits for it (`manualintervention`) was done. */
  | { kind: 'cancelled'; row: TransactionRow; word: AcquirerWord }
  /** The technical cancel could not be done: whatever the acquirer held or took stands. */
  | { kind: 'cancel refused'; row: TransactionRow; word: AcquirerWord; waiting: boolean }
  /** A pending payment the customer never finished at the method: the acquirer closed it. */
  | { kind: 'offer closed'; row: TransactionRow; word: AcquirerWord }
  /** A payment Kassa ended that the acquirer authorised after all: the money is given back (late-payment.ts). */
  | { kind: 'paid late'; row: TransactionRow; word: AcquirerWord }
  /** The acquirer's answer to giving back money paid late. */
  | { kind: 'late payment given back'; row: TransactionRow; word: AcquirerWord; to: 'returned' | 'not_returned' }
  /** An outcome whose amount, currency or acquirer reference is not the payment's: nothing changes, an operator looks. */
  | { kind: 'mismatch'; row: TransactionRow; word: AcquirerWord; why: string }
  /** A dispute of the payment opened, moved forward, or a word kept on its timeline (disputes.ts). */
  | { kind: 'dispute'; row: TransactionRow; word: AcquirerWord & { dispute: DisputeFacts } }
  /** Nothing changes for the transaction; its timeline keeps what the acquirer said. */
  | { kind: 'timeline'; row: TransactionRow; word: AcquirerWord; cause: 'acquirer_notice' };

const open = (row: TransactionRow) => row.status === 'pending' || row.status === 'manualintervention';

interface Found {
  row: TransactionRow | undefined;
  page: PaymentPageRow | undefined;
}

export const settleByAcquirer = systemOperation({
  name: 'settleByAcquirer',
  parse: (word: AcquirerWord) => word,
  load: async (word, { ports }): Promise<Found> => {
    const row = word.event === 'unknown' ? undefined : await findOwnTransaction(ports.store.read, word.owner, word.reference);
    const page =
      row && (open(row) || word.event === 'cancelled' || word.event === 'reversal' || word.event === 'authorisation')
        ? await findPaymentPage(ports.store.read, row.reference)
        : undefined;
    return { row, page };
  },
  decide: (found, word, { now }) => ({ word, effect: effectOf(found, word, now) }),
  commit: async (tx, { word, effect }, { ports, now }): Promise<Applied> => {
    const record = { ...word.item, acquirerReference: word.acquirerReference, owner: word.owner, reference: word.reference, success: word.success, received: now };
    const recorded = await recordAcquirerNotification(tx, record);
    // A capture made after all may come under the first capture's own name: that item again, saying what Kassa no longer shows.
    const anew = !recorded.first && effect?.kind === 'redone' && recorded.success && (await recordAcquirerNotificationAgain(tx, record, recorded));
    if (!recorded.first && !anew) return { item: 'sent again', differs: recorded.success !== word.success };
    if (!effect) return { item: 'first', row: undefined };
    const apply = effectsByKind[effect.kind] as EffectOf<typeof effect.kind>;
    const done = (await apply(tx, effect as never, { ports, now, detail: detailOf(effect.word) })) ?? {};
    const row = 'row' in done ? done.row : await findTransaction(tx, effect.row.reference);
    return { item: 'first', row, attention: done.attention, givingBack: done.givingBack };
  },
  answer: (applied) => applied,
  // Money paid late is given back at once, not after the claim's lease (the recovery job's backstop).
  after: (applied, _acted, ctx) => {
    if (applied.item === 'first' && applied.givingBack) runLater(finishAcquirerClaim, applied.givingBack, ctx, applied.givingBack.reference);
  },
});

/** The events whose outcome is about the transaction's own money: applied only when the word names it as Kassa knows it. */
const checkedEvents: ReadonlySet<AcquirerWord['event']> = new Set(['authorisation', 'capture', 'refund']);

/** What the acquirer's word does to its transaction, if anything. Pure. */
function effectOf({ row, page }: Found, word: AcquirerWord, now: number): WordEffect | undefined {
  if (!row) return undefined;
  const to = word.success ? ('success' as const) : ('failed' as const);
  const inFlight = !!page?.authorisation_in_flight;
  const timeline = () => ({ kind: 'timeline' as const, row, word, cause: 'acquirer_notice' as const });
  if (checkedEvents.has(word.event)) {
    // Only an authorisation names the payment's own acquirer reference; a capture's or refund's item names its own.
    const said = {
      reference: word.reference,
      acquirerReference: word.event === 'authorisation' ? word.acquirerReference : undefined,
      amountMinor: word.amount.minor,
      currency: word.amount.currency,
    };
    const why = mismatchOf(row, page?.acquirer_reference, said);
    if (why) return { kind: 'mismatch', row, word, why };
  }
  switch (word.event) {
    case 'authorisation': {
      const leaseUntil = page?.processing_until ?? null;
      // A request is still waiting for this authorisation's answer and commits it itself; after its lease, the word is wanted.
      if (row.status === 'pending' && inFlight && leaseUntil !== null && leaseUntil >= now) throw authorisationBeingAnswered();
      // A payment sent to a method elsewhere waits for this word: the acquirer's final one, whatever the customer's return said (docs/acquirers.md "Notifications").
      const awaited = row.status === 'pending' && (inFlight || methodPaidElsewhere(row, page) !== undefined);
      if (row.status === 'manualintervention' || awaited) return { kind: 'authorisation', row, to, word };
      if (row.status !== 'failed' || !word.success) return undefined;
      // Money taken for a payment Kassa ended (expired while the customer was at their bank), given back, once; a technical cancel sent gives it back already.
      return page?.technical_cancel_sent_at || latePaymentStatusOf(row) !== undefined || !payableLate(row) ? timeline() : { kind: 'paid late', row, word };
    }
    case 'reversal': {
      // The acquirer's reference of the reversal it answered last: the word names its own (docs/acquirers.md "Notifications").
      const taken = page?.reversal_acquirer_reference ?? null;
      // A reversal whose answer Kassa never recorded (its claim open, or held for an operator) is settled by the word, as a capture's is; a word of an earlier one is not its.
      if (captureStatusOf(row) === 'reversing') return word.acquirerReference === taken ? timeline() : { kind: 'unanswered reversal', row, to, word };
      // A done reversal is what Kassa recorded already.
      if (word.success) return undefined;
      // A refusal re-opens the authorisation only if it answers the reversal taken last (one taken before Kassa kept references is taken as that one); another changes nothing.
      return captureStatusOf(row) === 'reversed' && (taken === null || taken === word.acquirerReference) ? { kind: 'refused reversal', row, to, word } : timeline();
    }
    case 'capture':
    case 'refund': {
      // A capture the acquirer undid (capture_failed) and then made after all, under a name of its own or the first capture's.
      if (word.event === 'capture' && word.success && row.status === 'success' && undoneByAcquirer(row) === 'capture_failed') return { kind: 'redone', row, word };
      // A capture or refund the recovery job left to an operator (claims.ts) is settled by the word too.
      const kind = row.type === 'credit' ? 'refund' : 'capture';
      return open(row) && row.parent_reference !== null && kind === word.event ? { row, kind, to, word } : undefined;
    }
    case 'captureFailed':
    case 'refundFailed':
    case 'refundReversed': {
      // A sale captured with its authorisation (captureDelayHours 0) has no capture of its own: Adyen names the sale.
      if (word.event === 'captureFailed' && row.type === 'sale' && row.parent_reference === null) {
        return row.status === 'success' ? { kind: 'undone', row, undoing: 'capture_failed', word } : timeline();
      }
      const kind = row.type === 'credit' ? 'refund' : 'capture';
      if (row.parent_reference === null || (kind === 'capture') !== (word.event === 'captureFailed')) return timeline();
      // Not done yet as Kassa knows it: failed, as a refused one.
      if (open(row)) return { kind, row, to: 'failed', word };
      if (row.status === 'failed') return timeline();
      const undoing = word.event === 'captureFailed' ? 'capture_failed' : word.event === 'refundFailed' ? 'refund_failed' : 'refund_reversed';
      return { kind: 'undone', row, undoing, word };
    }
    case 'authorisationExpired':
      return row.status === 'success' && captureStatusOf(row) === 'authorised' ? { kind: 'expired', row, word } : timeline();
    case 'cancelled':
      // The cancel-or-refund of money paid late (late-payment.ts) names the payment, as the technical cancel does.
      if (row.status === 'failed' && latePaymentStatusOf(row) === 'returning')
        return { kind: 'late payment given back', row, word, to: word.success ? 'returned' : 'not_returned' };
      // Only the technical cancel of an unknown authorisation asks the acquirer to cancel by Kassa's reference.
      if (word.success) return row.status === 'manualintervention' && !!page?.technical_cancel_sent_at ? { kind: 'cancelled', row, word } : timeline();
      return page?.technical_cancel_sent_at ? { kind: 'cancel refused', row, word, waiting: row.status === 'manualintervention' } : timeline();
    case 'offerClosed':
      // While an authorisation is in flight its answer ends the payment, not the offer.
      return row.status === 'pending' && !inFlight ? { kind: 'offer closed', row, word } : timeline();
    case 'dispute':
      return word.dispute ? { kind: 'dispute', row, word: { ...word, dispute: word.dispute } } : timeline();
    case 'notice':
      return timeline();
    case 'unknown':
      // Not even looked up (load): an event the connector does not know changes nothing; the route logs it.
      return undefined;
  }
}

/** A dispute's notification as the disputes take it: the dispute is the acquirer's reference of the item, its amount the disputed one. */
const disputeWordOf = (word: AcquirerWord & { dispute: DisputeFacts }, detail: string): DisputeWord => ({
  connector: word.item.connector,
  acquirerReference: word.acquirerReference,
  stage: word.dispute.stage,
  amountMinor: word.amount.minor,
  currency: word.amount.currency,
  reasonCode: word.dispute.reasonCode,
  reason: word.reason,
  schemeCode: word.dispute.schemeCode,
  defensePeriodEndsAt: word.dispute.defensePeriodEndsAt,
  cause: 'acquirer_dispute',
  detail,
});

/** What the acquirer said, as the timeline shows it: its name of the event, the amount, its reason. */
export function detailOf(word: AcquirerWord): string {
  const { minor, currency: code, asSent } = word.amount;
  const currency = findCurrency(code);
  const amount = minor !== undefined && currency ? `${amountNumber(minor, currency)} ${code}` : `${asSent} ${code} (as the acquirer counts it)`;
  const said = `${word.item.eventCode}${word.success ? '' : ' (not done)'}, ${amount}${word.reason ? `: ${word.reason}` : ''}`;
  return said.slice(0, 500);
}

/** What applying a word left: its transaction as it is now (read again when not given), and what the route logs or runs next. */
interface Done {
  row?: TransactionRow;
  attention?: string;
  givingBack?: DueClaim;
}

type EffectOf<K extends WordEffect['kind']> = (
  tx: Db,
  effect: WordEffect & { kind: K },
  ctx: { ports: Ports; now: number; detail: string },
) => Promise<Done | undefined | void>;

const cause = 'acquirer_notification';

/** Each kind of effect, applied in the notification's unit of work: one entry per kind, so a new kind is a new entry. */
const effectsByKind: { [K in WordEffect['kind']]: EffectOf<K> } = {
  authorisation: async (tx, { row, to, word }, { now }) => {
    // The recovery job's technical cancel, once sent, decides instead (docs/acquirers.md "Unknown outcomes").
    if (!(await settleAuthorisationInFlight(tx, row.reference))) return;
    const failureCode = to === 'success' ? null : word.failureCode;
    const from = row.status as 'pending' | 'manualintervention';
    // The payment changed since it was read (it expired, or was cancelled, at that moment): the whole unit is undone, the item
    // not kept, so Adyen's resend is judged by what the payment is now — money paid late given back, not a word dropped.
    if (!(await recordAcquirerOutcome(tx, { reference: row.reference, from, to, failureCode, cause, at: now }, word.acquirerReference))) {
      throw changedMeanwhile();
    }
  },
  capture: (tx, effect, ctx) => settleFollowUpBy(tx, effect, ctx),
  refund: (tx, effect, ctx) => settleFollowUpBy(tx, effect, ctx),
  'refused reversal': async (tx, { row }, { now }) => {
    await recordRefusedReversal(tx, row, now);
  },
  'unanswered reversal': async (tx, { row, to, word }, { now, detail }) => {
    const done = to === 'success';
    // Its answer recorded meanwhile (the request's): Adyen sends the word again, which then finds what that answer left.
    const change = {
      done,
      cause: done ? ('reversal' as const) : ('reversal_refused_by_acquirer' as const),
      at: now,
      detail,
      acquirerReference: word.acquirerReference,
    };
    if (!(await settleReversalClaim(tx, row, change))) throw changedMeanwhile();
  },
  undone: async (tx, { row, undoing }, { ports, now, detail }) => {
    await undoFollowUp(tx, ports.store.dialect, row, { undoing, detail, at: now });
  },
  redone: async (tx, { row }, { now, detail }) => {
    if (await redoCapture(tx, row, { detail, at: now })) return;
    return {
      attention: `the acquirer made capture ${row.reference} after all, but its authorisation ${row.parent_reference} was captured anew or reversed meanwhile: the money may be taken twice; an operator should look`,
    };
  },
  expired: async (tx, { row }, { now, detail }) => {
    if (!(await recordExpiredAuthorisation(tx, row, { at: now, detail })))
      await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause: 'acquirer_notice', detail, at: now });
  },
  cancelled: async (tx, { row }, { now }) => {
    // As the recovery job records a technical cancel taken (cancel-unknown-authorisation.ts), whoever comes first.
    await transition(tx, {
      reference: row.reference,
      from: 'manualintervention',
      to: 'failed',
      failureCode: 'processing_error',
      cause: 'acquirer_technical_cancel',
      at: now,
    });
    await endAuthorisationInFlight(tx, row.reference);
  },
  'cancel refused': async (tx, { row, waiting }, { now, detail }) => {
    await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause: 'acquirer_cancel_refused', detail, at: now });
    // Still waiting: the operator's, and a later AUTHORISATION notification may still settle it (docs/acquirers.md "Unknown outcomes").
    if (waiting) await leaveAuthorisationToOperator(tx, row.reference);
    // The merchant was told `failed` when the cancel was taken; the money may be held or taken after all.
    else await enqueueWebhook(tx, { reference: row.reference, to: row.status, failureCode: row.failure_code, at: now });
    return { attention: `the acquirer could not cancel ${row.reference} (its technical cancel): what it held or took stands; an operator should look` };
  },
  'offer closed': async (tx, { row }, { now }) => {
    await transition(tx, { reference: row.reference, from: 'pending', to: 'failed', failureCode: 'expired', cause: 'acquirer_offer_closed', at: now });
  },
  'paid late': async (tx, { row, word }, { ports, now, detail }) => {
    if (!(await recordLatePayment(tx, row, { at: now, detail }))) return { row };
    const claim = await recordClaim(
      tx,
      {
        action: 'cancelOrRefund',
        reference: row.reference,
        paymentReference: row.reference,
        acquirerReference: word.acquirerReference,
        amountMinor: row.amount_minor,
        currency: row.currency,
      },
      { now, leaseMs: ports.settings.acquirerRecoveryAfterMs },
    );
    return { attention: `${row.reference} was paid after Kassa ended it; Kassa gives the money back`, givingBack: { reference: claim.reference, dueAt: claim.due_at } };
  },
  'late payment given back': async (tx, { row, to }, { now, detail }) => {
    await endLatePayment(tx, row.reference, to, { at: now, detail });
    if (to === 'not_returned') return { attention: `the acquirer could not give back the money paid late for ${row.reference}; an operator should look` };
  },
  mismatch: async (tx, { row, why }, { now, detail }) => {
    await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause: 'acquirer_word_mismatch', detail: `${detail} — ${why}`.slice(0, 500), at: now });
    return { attention: why };
  },
  dispute: async (tx, { row, word }, { ports, now, detail }) => {
    const outcome = await recordDisputeWord(tx, row, disputeWordOf(word, detail), { dialect: ports.store.dialect, secrets: ports.links.secrets, now });
    if (outcome.kind !== 'refused') return { row: outcome.row };
    return { row: outcome.payment, attention: `a dispute of ${outcome.payment.reference} was not recorded: ${outcome.why}; an operator should look` };
  },
  timeline: async (tx, { row, cause: timelineCause }, { now, detail }) => {
    await recordTimelineEntry(tx, { reference: row.reference, status: row.status, cause: timelineCause, detail, at: now });
  },
};

/** A capture or refund the acquirer answered later: `success` or `failed` as a refused one. */
async function settleFollowUpBy(tx: Db, { kind, row, to }: WordEffect & { kind: 'capture' | 'refund' }, { ports, now }: { ports: Ports; now: number }): Promise<Done> {
  const from = row.status as 'pending' | 'manualintervention';
  const failureCode = kind === 'refund' ? 'rejected' : 'processing_error';
  return { row: await settleFollowUp(tx, ports.store.dialect, row, { from, to, failureCode, cause, at: now }) };
}

/** The transaction changed between the load and the unit: the acquirer sends the item again (it was not `[accepted]`), and it is decided anew. */
const changedMeanwhile = () => new Problem('conflict', { detail: 'The payment changed at the same time; send the notification again.', headers: { 'Retry-After': '1' } });

/** The notification comes again later (Adyen resends what is not `[accepted]`), when the answer is committed or its request is gone. */
const authorisationBeingAnswered = () =>
  new Problem('authorisationBeingAnswered', {
    detail: 'An AUTHORISATION notification for a payment whose authorisation a Kassa request is still waiting for; send it again later.',
    headers: { 'Retry-After': '60' },
  });
