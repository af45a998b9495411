/**
 * Pay by card on the hosted page (spec §1, §3; DESIGN §3): validate the card → count the
 * attempt and take the processing lease (one unit of work) → 3-D Secure (frictionless,
 * challenge pop-up, or the 3DS1 redirect) → authorise at the acquirer → one atomic state
 * change through `transition()`. Network calls (DS, acquirer) run outside units of work.
 *
 * A payment is processed by one request at a time (the lease), and its final state is a
 * compare-and-set, so a double submit can neither authorise twice nor change a final
 * payment. The card number and CVC live in memory for the request; across a 3-D Secure
 * step they travel sealed with the customer's browser (card-seal.ts), never stored.
 * The same path completes a vault enrollment (the card is stored instead of authorised)
 * and a vault payment (the card comes from the vault, vault/pay-with-stored-card.ts).
 */
import type { TransactionRow } from '../store/schema.ts';
import type { Db } from '../store/store.ts';
import type { PaymentMerchant } from '../merchants/merchants.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import type { BrowserInfo, ThreeDSData } from '../threeds/fields.ts';
import type { AuthoriseResult, CardData, PaymentAmount } from '../acquirer/connector.ts';
import { findTransaction } from '../store/transactions.ts';
import {
  countAttempt,
  ensurePaymentPage,
  findThreeDSSession,
  releaseProcessingLease,
  setPageFields,
  takeProcessingLease,
  updateThreeDSSession,
  type ThreeDSSessionRow,
} from '../store/payment-pages.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { encodeCReq, isAuthenticated, merchantSubjectToThreeDS, toAuthenticationData, type Authentication } from '../threeds/server.ts';
import { findCurrency } from '../ground/amount.ts';
import type { StoredRequest } from './serialize.ts';
import type { FailureCode, Status } from '../ground/states.ts';
import { transition } from './transition.ts';
import { validateCard, type CardField, type CardError, type CardForm } from './card-input.ts';
import type { Ports } from './ports.ts';
import { shownOfStoredCard } from '../vault/vault.ts';

export const MAX_CARD_ATTEMPTS = 5;
/** Longest a card may take from submit to outcome; a crashed request frees the payment after it. */
export const PROCESSING_LEASE_MS = 60_000;

export interface StoredPaymentRequest extends StoredRequest {
  threeDS: ThreeDSData;
  storeInVault?: boolean;
  preselectedBrand?: CardBrand;
  /** Vault payments: the stored card to pay with (found by its access token at creation). */
  vaultCardId?: string;
}

/** A card ready to process, or the errors to show on the form. */
export type CardCheck = { ok: true; card: CardData } | { ok: false; errors: Partial<Record<CardField, CardError>> };

export interface PaymentContext {
  row: TransactionRow;
  merchant: PaymentMerchant;
}

export interface BrowserFacts {
  javascriptEnabled: boolean;
  collected: Partial<BrowserInfo>;
}

export type CardStep =
  | { step: 'final'; row: TransactionRow }
  | { step: 'invalid'; errors: Partial<Record<CardField, CardError>>; attemptsLeft: number }
  /** Another request of this payment is processing a card right now. */
  | { step: 'busy' }
  | { step: 'unavailable' }
  | { step: 'challenge'; session: ThreeDSSessionRow; acsUrl: string; creq: string; sealedCard: string; pending?: boolean }
  | { step: 'redirect3ds1'; acsUrl: string; paReq: string; md: string }
  /** A completion whose seal or session is not (or no longer) valid. */
  | { step: 'stale' };

export const storedRequestOf = (row: TransactionRow) => JSON.parse(row.request) as StoredPaymentRequest;

const sealBinding = (reference: string, sessionId: string) => `${reference}|${sessionId}`;

export async function submitCard(cp: Ports, ctx: PaymentContext, form: CardForm, browser: BrowserFacts, now = new Date()): Promise<CardStep> {
  const stored = storedRequestOf(ctx.row);
  const validation = validateCard(form, { accepted: ctx.merchant.settings.cardBrands, preselected: stored.preselectedBrand, now });
  return processCard(cp, ctx, validation, browser, now);
}

/**
 * The card's way from the customer's submit to the outcome, whoever supplied the card
 * (the card form, or the vault for a vault payment): count the attempt and take the
 * lease, then 3-D Secure, then authorise — or, for an enrollment, store the card.
 */
export async function processCard(cp: Ports, ctx: PaymentContext, validation: CardCheck, browser: BrowserFacts, now: Date): Promise<CardStep> {
  const { row } = ctx;
  const stored = storedRequestOf(row);
  if (!cp.acquirers.available(row.mode)) return { step: 'unavailable' };
  // Enrollments and storeInVault payments must be able to store the card before the customer starts.
  if ((row.flow === 'enrollment' || stored.storeInVault) && !cp.vault.available) return { step: 'unavailable' };
  const at = now.getTime();
  const gate = await cp.store.transact(async (db): Promise<CardStep | { step: 'go'; attempts: number }> => {
    const current = await openForPaying(db, row.reference, at);
    if ('step' in current) return current;
    const attempts = await countAttempt(db, row.reference);
    if (attempts > MAX_CARD_ATTEMPTS || (!validation.ok && attempts >= MAX_CARD_ATTEMPTS)) {
      return failNow(db, current, 'fraud_detected', 'card_attempts_exceeded', at);
    }
    if (!validation.ok) return { step: 'invalid', errors: validation.errors, attemptsLeft: MAX_CARD_ATTEMPTS - attempts };
    if (!(await takeProcessingLease(db, row.reference, at, at + PROCESSING_LEASE_MS))) return { step: 'busy' };
    return { step: 'go', attempts };
  });
  if (gate.step !== 'go' || !validation.ok) return gate as CardStep;
  try {
    return await authenticateAndAuthorise(cp, ctx, stored, validation.card, browser, gate.attempts, now);
  } finally {
    await cp.store.transact((db) => releaseProcessingLease(db, row.reference));
  }
}

async function authenticateAndAuthorise(
  cp: Ports,
  ctx: PaymentContext,
  stored: StoredPaymentRequest,
  card: CardData,
  browser: BrowserFacts,
  attempt: number,
  now: Date,
): Promise<CardStep> {
  const { row, merchant } = ctx;
  // Merchants that accept only bcmc are not subject to 3-D Secure (spec §1).
  if (!merchantSubjectToThreeDS(merchant.settings.cardBrands)) return settle(cp, ctx, row, card, undefined, `attempt-${attempt}`);
  const started = await cp.threeDS.start({
    ...paymentAmount(row),
    card,
    kind: row.flow === 'enrollment' ? 'enrollment' : 'payment',
    usesVaultToken: row.flow === 'vault',
    merchantName: merchant.name,
    merchantId: merchant.id,
    language: row.language,
    data: stored.threeDS ?? { scaReady: 'no' },
    storeInVault: stored.storeInVault ?? false,
    collectedBrowser: browser.collected,
    javascriptEnabled: browser.javascriptEnabled,
    notificationUrl: `${cp.config.publicUrl}/pay/${row.page_token}/3ds/notify`,
    now,
  });
  switch (started.kind) {
    case 'result':
      return isAuthenticated(started.authentication)
        ? settle(cp, ctx, row, card, started.authentication, started.authentication.threeDSServerTransID)
        : finish(cp, row, { status: 'failed', failureCode: 'rejected', cause: 'authentication_failed', brand: card.brand, authentication: started.authentication });
    case 'challenge': {
      const sealedCard = cp.sealer.seal(card, sealBinding(row.reference, started.session.id), started.session.expires_at);
      return { step: 'challenge', session: started.session, acsUrl: started.acsUrl, creq: started.creq, sealedCard };
    }
    case 'redirect3ds1': {
      const md = `${started.session.id}.${cp.sealer.seal(card, sealBinding(row.reference, started.session.id), started.session.expires_at)}`;
      return { step: 'redirect3ds1', acsUrl: started.acsUrl, paReq: started.paReq, md };
    }
  }
}

/** The challenge window reported completion: the RReq's outcome decides; then authorise. */
export async function completeChallenge(cp: Ports, ctx: PaymentContext, sessionId: string, sealedCard: string, now = new Date()): Promise<CardStep> {
  const { row } = ctx;
  const at = now.getTime();
  const card = cp.sealer.unseal(sealedCard, sealBinding(row.reference, sessionId), at);
  if (!card) return { step: 'stale' };
  const gate = await claimSession(cp, row, sessionId, '2.2.0', at);
  if (gate.step !== 'go') {
    if (gate.step === 'waiting') return { step: 'challenge', session: gate.session, acsUrl: gate.session.acs_url!, creq: encodeCReq(gate.session), sealedCard, pending: true };
    return gate;
  }
  return concludeAuthentication(cp, ctx, gate.row, card, sessionId, async () => JSON.parse(gate.session.result!) as Authentication);
}

/** The 3-D Secure 1 redirect came back (TermUrl) with the PaRes and our sealed MD. */
export async function complete3ds1(cp: Ports, ctx: PaymentContext, paRes: string, md: string, now = new Date()): Promise<CardStep> {
  const { row } = ctx;
  const at = now.getTime();
  const dot = md.indexOf('.');
  const sessionId = dot > 0 ? md.slice(0, dot) : '';
  const card = sessionId ? cp.sealer.unseal(md.slice(dot + 1), sealBinding(row.reference, sessionId), at) : undefined;
  if (!card) return { step: 'stale' };
  const gate = await claimSession(cp, row, sessionId, '1.0.2', at);
  if (gate.step !== 'waiting') {
    if (gate.step === 'go') await cp.store.transact((db) => releaseProcessingLease(db, row.reference));
    return gate.step === 'go' ? { step: 'stale' } : gate;
  }
  return concludeAuthentication(cp, ctx, gate.row, card, sessionId, () => cp.threeDS.finish3ds1(row.mode, gate.session, paRes));
}

/**
 * The end of a 3-D Secure step, under the processing lease its caller claimed: takes the
 * authentication's outcome, uses the session up, then authorises or fails the payment,
 * and always gives the lease back.
 */
async function concludeAuthentication(
  cp: Ports,
  ctx: PaymentContext,
  row: TransactionRow,
  card: CardData,
  sessionId: string,
  outcome: () => Promise<Authentication>,
): Promise<CardStep> {
  try {
    const authentication = await outcome();
    await cp.store.transact((db) => updateThreeDSSession(db, sessionId, ['result'], { state: 'used' }));
    return isAuthenticated(authentication)
      ? await settle(cp, ctx, row, card, authentication, sessionId)
      : await finish(cp, row, { status: 'failed', failureCode: 'rejected', cause: 'authentication_failed', brand: card.brand, authentication });
  } finally {
    await cp.store.transact((db) => releaseProcessingLease(db, row.reference));
  }
}

type SessionGate =
  | { step: 'go'; row: TransactionRow; session: ThreeDSSessionRow }
  /** The session has no result yet (3DS2: the RReq has not come; 3DS1: the PaRes is to be checked). Lease held for 3DS1. */
  | { step: 'waiting'; row: TransactionRow; session: ThreeDSSessionRow }
  | { step: 'final'; row: TransactionRow }
  | { step: 'busy' }
  | { step: 'stale' };

async function claimSession(cp: Ports, row: TransactionRow, sessionId: string, protocol: string, at: number): Promise<SessionGate> {
  return cp.store.transact(async (db): Promise<SessionGate> => {
    const current = (await findTransaction(db, row.reference))!;
    if (current.status !== 'pending') return { step: 'final', row: current };
    const session = await findThreeDSSession(db, sessionId);
    if (!session || session.reference !== row.reference || session.protocol !== protocol || session.expires_at < at) return { step: 'stale' };
    if (protocol === '2.2.0' && session.state === 'challenge') return { step: 'waiting', row: current, session };
    if (protocol === '2.2.0' && session.state !== 'result') return { step: 'stale' };
    if (protocol === '1.0.2' && session.state !== 'challenge') return { step: 'stale' };
    if (!(await takeProcessingLease(db, row.reference, at, at + PROCESSING_LEASE_MS))) return { step: 'busy' };
    return protocol === '1.0.2' ? { step: 'waiting', row: current, session } : { step: 'go', row: current, session };
  });
}

/** What the 3-D Secure server and the acquirer both need to know of the payment: which one, and how much. */
function paymentAmount(row: TransactionRow): PaymentAmount {
  return { reference: row.reference, mode: row.mode, amountMinor: row.amount_minor, currency: row.currency, exponent: findCurrency(row.currency)!.exponent };
}

/** After authentication: an enrollment stores the card (no money moves, spec §4.2); a payment is authorised. */
function settle(cp: Ports, ctx: PaymentContext, row: TransactionRow, card: CardData, authentication: Authentication | undefined, key: string): Promise<CardStep> {
  if (row.flow !== 'enrollment') return authorise(cp, ctx, row, card, authentication, key);
  // scaToken (spec §2.2): true only when the cardholder was authenticated; an attempt (A) or no 3-D Secure at all is a fallback without it.
  const vault = { card, scaToken: authentication?.transStatus === 'Y' };
  return finish(cp, row, { status: 'success', cause: 'card_enrolled', brand: card.brand, authentication, vault });
}

/** Authorises at the acquirer of the payment's mode and makes the one state change its answer decides. */
export async function authorise(cp: Ports, ctx: PaymentContext, row: TransactionRow, card: CardData, authentication: Authentication | undefined, key: string): Promise<CardStep> {
  const result: AuthoriseResult = await cp.acquirers.forMode(row.mode).authorise(
    {
      ...paymentAmount(row),
      card,
      authentication: authentication && toAuthenticationData(authentication),
      captureNow: row.type !== 'authorise',
      merchantName: ctx.merchant.name,
    },
    `${row.reference}:${key}`,
  );
  const common = { brand: card.brand, authentication };
  switch (result.outcome) {
    case 'authorised': {
      const vault = storedRequestOf(row).storeInVault ? { card } : undefined;
      const step = await finish(cp, row, { ...common, status: 'success', cause: 'acquirer_authorised', acquirerReference: result.acquirerReference, vault });
      // Expired or cancelled while we were at the acquirer: release the money we just held.
      if (step.step === 'final' && step.row.status !== 'success') {
        await cp.acquirers
          .forMode(row.mode)
          .reversal({ reference: row.reference, acquirerReference: result.acquirerReference, amountMinor: row.amount_minor, currency: row.currency }, `${row.reference}:reversal`)
          .catch(() => undefined);
      }
      return step;
    }
    case 'declined':
      return finish(cp, row, { ...common, status: 'failed', failureCode: result.failureCode, cause: 'acquirer_declined' });
    case 'unknown':
      return finish(cp, row, { ...common, status: 'manualintervention', cause: 'acquirer_timeout' });
  }
}

interface Finish {
  status: Status;
  failureCode?: FailureCode;
  cause: string;
  brand: CardBrand;
  authentication?: Authentication;
  acquirerReference?: string;
  /** A success that stores the card in the vault (enrollment, storeInVault); scaToken for an enrollment. */
  vault?: { card: CardData; scaToken?: boolean };
}

/** The one state change of the payment, with what it learned (brand, authentication, capture state, vault card). */
async function finish(cp: Ports, row: TransactionRow, outcome: Finish): Promise<CardStep> {
  // Encrypted before the unit of work; stored with the state change, so a card is in the vault exactly when its transaction succeeded.
  const toStore = outcome.vault && outcome.status === 'success' && cp.vault.available ? cp.vault.prepare(outcome.vault.card, { merchantId: row.merchant_id, mode: row.mode }, row.reference, Date.now()) : undefined;
  return cp.store.transact(async (db) => {
    const current = (await findTransaction(db, row.reference))!;
    if (current.status === 'pending') {
      const scaToken = outcome.vault?.scaToken;
      const stored = toStore && { ...shownOfStoredCard(toStore), ...(scaToken === undefined ? {} : { scaToken }) };
      const details = { ...(JSON.parse(current.details) as Record<string, unknown>), ...stored };
      const authorisedOnly = current.type === 'authorise' && outcome.status === 'success';
      const moved = await transition(db, {
        reference: row.reference,
        from: 'pending',
        to: outcome.status,
        failureCode: outcome.failureCode ?? null,
        cause: outcome.cause,
        at: Date.now(),
        set: {
          brand: outcome.brand,
          authentication: outcome.authentication ? JSON.stringify(outcome.authentication) : null,
          ...(authorisedOnly || stored ? { details: JSON.stringify(authorisedOnly ? { ...details, captureStatus: 'authorised' } : details) } : {}),
        },
      });
      // Only with the state change: a payment cancelled meanwhile stores no card.
      if (moved && toStore) await cp.vault.insert(db, toStore);
      if (outcome.acquirerReference) await setPageFields(db, row.reference, { acquirer_reference: outcome.acquirerReference });
    }
    return { step: 'final', row: (await findTransaction(db, row.reference))! } as const;
  });
}

/**
 * In a unit of work, before a payment is paid (by card or wallet): the payment as it is now
 * if it can still be paid — pending, not past its expiry (then it fails as expired), with
 * its page row — or the final step it has reached.
 */
export async function openForPaying(db: Db, reference: string, at: number): Promise<TransactionRow | CardStep> {
  const current = (await findTransaction(db, reference))!;
  if (current.status !== 'pending') return { step: 'final', row: current };
  if (current.expires_at !== null && current.expires_at <= at) return failNow(db, current, 'expired', 'expired', at);
  await ensurePaymentPage(db, reference, randomBase62(32), at);
  return current;
}

async function failNow(db: Db, row: TransactionRow, failureCode: FailureCode, cause: string, at: number): Promise<CardStep> {
  await transition(db, { reference: row.reference, from: 'pending', to: 'failed', failureCode, cause, at });
  return { step: 'final', row: (await findTransaction(db, row.reference))! };
}

/** Landing page: the customer's choice of method. */
export async function chooseMethod(cp: Ports, row: TransactionRow, method: string, now = Date.now()): Promise<void> {
  await cp.store.transact(async (db) => {
    await ensurePaymentPage(db, row.reference, randomBase62(32), now);
    await setPageFields(db, row.reference, { chosen_method: method });
  });
}

