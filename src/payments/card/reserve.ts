/**
 * The card payment's reserve stage and the gates before it (docs/acquirers.md "Claims and leases"):
 * a payment is processed by one request at a time (the processing lease, taken with the
 * attempt's count in one compare-and-set), is still payable (pending, not past its expiry), and
 * a 3-D Secure step's end is the step's own session. A submit turned away as busy is no attempt.
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { Db } from '../../store/store.ts';
import type { FailureCode } from '../../ground/states.ts';
import type { EventCause } from '../../ground/event-causes.ts';
import { findTransaction } from '../../store/transactions.ts';
import {
  authorisationInFlight,
  countAttemptUnlessBusy,
  ensurePaymentPage,
  findThreeDSSession,
  releaseProcessingLease,
  takeProcessingLease,
} from '../../store/payment-pages.ts';
import { randomBase62 } from '../../lib/tokens.ts';
import { cardsTaken } from '../ports.ts';
import { transition } from '../transition.ts';
import { stop, type Stop } from '../runner/operation.ts';
import { storesCard } from './stored-card-use.ts';
import type { CardPaymentContext, CardPlan, PageStep, SessionGate } from './steps.ts';

export const MAX_CARD_ATTEMPTS = 5;
/** Longest a card may take from submit to outcome; a crashed request frees the payment after it. */
export const PROCESSING_LEASE_MS = 60_000;
/** Whether Kassa can complete a card payment of this kind at all now (cards taken; vault key where the card is to be stored). */
export async function cardPaymentAvailable({ ports, caller }: CardPaymentContext): Promise<boolean> {
  const { row } = caller;
  if (!(await cardsTaken(ports, row))) return false;
  // Enrollments and storeInVault payments must be able to store the card before the customer starts.
  return ports.vault.available || !storesCard(row);
}

/**
 * reserve: the payment is still payable and no other request is processing a card for it; the
 * attempt is counted, and for a card going on to the acquirer the lease taken, in one
 * compare-and-set — or the step that ends it here. A submit turned away as busy (a double
 * click, a retry on a slow network) is no attempt: only cards really checked count toward
 * the limit, so the customer is never declined for clicking twice.
 */
export async function reserveCardAttempt(tx: Db, plan: CardPlan, { ports, caller, now }: CardPaymentContext): Promise<CardPlan | Stop<PageStep>> {
  const { check } = plan;
  if (plan.unavailable || !(await cardPaymentAvailable({ ports, caller, now } as CardPaymentContext))) return stop({ step: 'unavailable' });
  const current = await openForPaying(tx, caller.row.reference, now);
  if ('step' in current) return stop(current);
  const attempts = await countAttemptUnlessBusy(tx, current.reference, { now, leaseUntil: check.ok ? now + PROCESSING_LEASE_MS : null });
  if (attempts === undefined) return stop({ step: 'busy' });
  if (attempts > MAX_CARD_ATTEMPTS || (!check.ok && attempts >= MAX_CARD_ATTEMPTS)) {
    if (check.ok) await releaseProcessingLease(tx, current.reference);
    return stop(await failNow(tx, current, 'fraud_detected', 'card_attempts_exceeded', now));
  }
  if (!check.ok) return stop({ step: 'invalid', errors: check.errors, attemptsLeft: MAX_CARD_ATTEMPTS - attempts });
  return { ...plan, attempt: attempts };
}

/** release: a failed act gives the payment back to the next request. */
export const releaseLease = (tx: Db, _plan: unknown, { caller }: CardPaymentContext) => releaseProcessingLease(tx, caller.row.reference);
/**
 * In a unit of work, before a payment is paid (by card or wallet): the payment as it is now
 * if it can still be paid — pending, not past its expiry (then it fails as expired, unless an
 * authorisation is in flight), with its page row — or the final step it has reached.
 */
export async function openForPaying(tx: Db, reference: string, at: number): Promise<TransactionRow | PageStep> {
  const current = (await findTransaction(tx, reference))!;
  if (current.status !== 'pending') return { step: 'final', row: current };
  // An authorisation in flight may have taken the money: its outcome ends the payment, not the clock.
  const expired = current.expires_at !== null && current.expires_at <= at;
  if (expired && !(await authorisationInFlight(tx, reference))) return failNow(tx, current, 'expired', 'expired', at);
  await ensurePaymentPage(tx, reference, randomBase62(32), at);
  return current;
}

async function failNow(tx: Db, row: TransactionRow, failureCode: FailureCode, cause: EventCause, at: number): Promise<PageStep> {
  await transition(tx, { reference: row.reference, from: 'pending', to: 'failed', failureCode, cause, at });
  return { step: 'final', row: (await findTransaction(tx, row.reference))! };
}
/**
 * In a unit of work, at the end of a 3-D Secure step — the 3DS2 challenge, the 3DS1 redirect,
 * or the issuer's 3DS method of a session of the acquirer — the payment's session, if it is the
 * step's and still usable, under the processing lease.
 */
export async function claimThreeDSSession(tx: Db, reference: string, sessionId: string, step: 'challenge' | '3ds1' | 'method', at: number): Promise<SessionGate> {
  const current = (await findTransaction(tx, reference))!;
  if (current.status !== 'pending') return { step: 'final', row: current };
  const session = await findThreeDSSession(tx, sessionId);
  const protocol = step === '3ds1' ? '1.0.2' : '2.2.0';
  if (!session || session.reference !== reference || session.protocol !== protocol || session.expires_at < at) return { step: 'stale' };
  if (step === 'challenge' && session.state === 'challenge') return { step: 'waiting', session };
  const usable = { challenge: 'result', '3ds1': 'challenge', method: 'method' }[step];
  if (session.state !== usable) return { step: 'stale' };
  if (!(await takeProcessingLease(tx, reference, at, at + PROCESSING_LEASE_MS))) return { step: 'busy' };
  return step === '3ds1' ? { step: 'waiting', session } : { step: 'go', session };
}
