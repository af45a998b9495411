/**
 * Paying with a card once the card is known (docs/api.md#the-service, docs/api.md#states, docs/decisions.md#3-d-secure), shared by the
 * operations that pay by card — the card form, a stored card, the end of a 3-D Secure
 * step — and, from `authorise` on, by wallet payments:
 *
 *   reserve  take the processing lease and count the attempt (one compare-and-set)
 *   act      3-D Secure (frictionless, challenge pop-up, or the 3DS1 redirect), then
 *            authorise at the acquirer — or, for a vault enrollment, nothing moves: the
 *            card is prepared for the vault. Where the acquirer authenticates itself
 *            (threeds/by-acquirer.ts), one authorisation through the same steps (the
 *            issuer's 3DS method in a hidden frame, the challenge pop-up), its last answer
 *            the authorisation
 *   commit   the one state change through `transition()`, and the lease given back
 *   after    an authorisation that lost the race to a cancel or expiry is reversed
 *
 * A payment is processed by one request at a time (the lease), and its final state is a
 * compare-and-set, so a double submit can neither authorise twice nor change a final
 * payment. The card number and CVC live in memory for the request; across a 3-D Secure
 * step they travel sealed with the customer's browser (card-seal.ts), never stored.
 */
import type { TransactionRow } from '../store/schema.ts';
import type { Db } from '../store/store.ts';
import type { BrowserInfo } from '../ground/browser-info.ts';
import type { AcquirerAuthentication, AcquirerRefusal, AuthenticationContinuation, AuthoriseResult, CardData, PaymentAmount } from '../acquirer/connector.ts';
import { findTransaction, ownerOf } from '../store/transactions.ts';
import {
  authorisationInFlight,
  countAttemptUnlessBusy,
  ensurePaymentPage,
  findThreeDSSession,
  recordAuthorisationInFlight,
  releaseProcessingLease,
  settleAuthorisationInFlight,
  setPageFields,
  takeProcessingLease,
  type ThreeDSSessionRow,
} from '../store/payment-pages.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { isAuthenticated, merchantSubjectToThreeDS, toAuthenticationData, type Authentication } from '../threeds/server.ts';
import { challengeIndicatorCode, browserSeen } from '../threeds/areq.ts';
import type { AcquirerOutcome } from '../threeds/by-acquirer.ts';
import { findCurrency } from '../ground/amount.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import type { FailureCode, Status } from '../ground/states.ts';
import type { PreparedCard } from '../vault/vault.ts';
import { shownOfStoredCard } from '../vault/vault.ts';
import { pageTokenOfPayment, payUrlOf, storedRequestOf } from './serialize.ts';
import { flowOf } from './flows.ts';
import { cardsTaken } from './ports.ts';
import type { PaymentContext } from './payment-context.ts';
import type { CardError, CardField } from './card-input.ts';
import { transition } from './transition.ts';
import { authorisedDetails } from './authorisation.ts';
import { networkReferenceToKeep, storedCardUseOf, storesCard } from './stored-card-use.ts';
import { shopperOf } from './shopper.ts';
import { stop, type Context, type Stop } from './operations/operation.ts';

export const MAX_CARD_ATTEMPTS = 5;
/** Longest a card may take from submit to outcome; a crashed request frees the payment after it. */
export const PROCESSING_LEASE_MS = 60_000;

/** A card ready to process, or the errors to show on the form. */
export type CardCheck = { ok: true; card: CardData } | { ok: false; errors: Partial<Record<CardField, CardError>> };

export interface BrowserFacts {
  javascriptEnabled: boolean;
  collected: Partial<BrowserInfo>;
}

/** Where a payment's page request leaves the customer: what the page shows next. */
export type PageStep =
  | { step: 'final'; row: TransactionRow }
  /** To the method's own step elsewhere (a bank, a sign-in), from which the customer comes back to Kassa: a GET, or a POST of `form`. */
  | { step: 'redirect'; url: string; form?: Readonly<Record<string, string>> }
  | { step: 'invalid'; errors: Partial<Record<CardField, CardError>>; attemptsLeft: number }
  /** Another request of this payment is processing a card right now. */
  | { step: 'busy' }
  | { step: 'unavailable' }
  | { step: 'challenge'; session: ThreeDSSessionRow; acsUrl: string; creq: string; sealedCard: string; pending?: boolean }
  /** The issuer's 3DS method in the page's hidden frame (3-D Secure by the acquirer), then the completion form. */
  | { step: 'method'; session: ThreeDSSessionRow; methodUrl: string; sealedCard: string }
  /**
   * 3-D Secure 1: the PaReq and MD posted to the issuer. Kassa's own session and card travel in
   * the MD (`<session>.<sealed card>`); when the MD is the acquirer's, in the TermUrl (`termMd`).
   */
  | { step: 'redirect3ds1'; acsUrl: string; paReq: string; md: string; termMd?: string }
  /** A completion whose seal or session is not (or no longer) valid. */
  | { step: 'stale' };

export type CardContext = Context<PaymentContext>;

/** A card on its way to the acquirer, and the request it came with. */
export interface CardPlan {
  check: CardCheck;
  browser: BrowserFacts;
  /** Which attempt this is (set by the reservation); part of the acquirer's idempotency key. */
  attempt?: number;
  /** The card cannot be had (a stored card that no longer opens). */
  unavailable?: boolean;
}

/** Whether Kassa can complete a card payment of this kind at all now (cards taken; vault key where the card is to be stored). */
export async function cardPaymentAvailable({ ports, caller }: CardContext): Promise<boolean> {
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
export async function reserveCardAttempt(tx: Db, plan: CardPlan, { ports, caller, now }: CardContext): Promise<CardPlan | Stop<PageStep>> {
  const { check } = plan;
  if (plan.unavailable || !(await cardPaymentAvailable({ ports, caller, now } as CardContext))) return stop({ step: 'unavailable' });
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
export const releaseLease = (tx: Db, _plan: unknown, { caller }: CardContext) => releaseProcessingLease(tx, caller.row.reference);

/** What the act decided: a step to show with no state change, or the one state change. */
export type Settlement = { show: PageStep } | { finish: Finish };

/** act of a card payment: 3-D Secure, then authorisation (or, for an enrollment, the card made ready to store). */
export async function authenticateAndAuthorise(plan: CardPlan, ctx: CardContext): Promise<Settlement> {
  const { ports, caller, now } = ctx;
  const { row, merchant } = caller;
  const card = (plan.check as { card: CardData }).card;
  const stored = storedRequestOf(row);
  // Merchants that accept only bcmc are not subject to 3-D Secure (docs/api.md#the-service).
  if (!merchantSubjectToThreeDS(merchant.settings.cardBrands)) return settle(card, undefined, `attempt-${plan.attempt}`, ctx);
  const acquirer = await ports.acquirers.for(ownerOf(row));
  if (acquirer.authentication && flowOf(row.flow).threeDS.operation === 'payment') return authoriseAuthenticating(acquirer.authentication, plan, ctx);
  const started = await ports.threeDS.start({
    ...paymentAmount(row),
    card,
    kind: flowOf(row.flow).threeDS.operation,
    usesVaultToken: flowOf(row.flow).threeDS.usesVaultToken,
    merchantName: merchant.name,
    merchantId: merchant.id,
    data: stored.threeDS ?? { scaReady: 'no' },
    storeInVault: stored.storeInVault ?? false,
    collectedBrowser: plan.browser.collected,
    javascriptEnabled: plan.browser.javascriptEnabled,
    notificationUrl: pageAddress(ctx, '/3ds/notify'),
    now: new Date(now),
  });
  switch (started.kind) {
    case 'result':
      return concludeAuthentication(card, started.authentication, started.authentication.threeDSServerTransID, ctx);
    case 'challenge': {
      const sealedCard = ports.sealer.seal(card, sealBinding(row.reference, started.session.id), started.session.expires_at);
      return { show: { step: 'challenge', session: started.session, acsUrl: started.acsUrl, creq: started.creq, sealedCard } };
    }
    case 'redirect3ds1': {
      const md = `${started.session.id}.${ports.sealer.seal(card, sealBinding(row.reference, started.session.id), started.session.expires_at)}`;
      return { show: { step: 'redirect3ds1', acsUrl: started.acsUrl, paReq: started.paReq, md } };
    }
  }
}

/** One of the payment page's own addresses (under payUrl), for the issuer to post back to. */
function pageAddress({ ports, caller }: CardContext, path: string): string {
  return `${payUrlOf(ports.links.publicUrl, pageTokenOfPayment(caller.row, ports.links.secrets))}${path}`;
}

/**
 * act when the acquirer authenticates (docs/acquirers.md "3-D Secure through Adyen"): one
 * authorisation that carries the browser, answered at once or after the issuer's 3DS method
 * and challenge in the page's hidden frame and pop-up. The idempotency key is the attempt's,
 * as for an authorisation after Kassa's own 3-D Secure.
 */
async function authoriseAuthenticating(authentication: AcquirerAuthentication, plan: CardPlan, ctx: CardContext): Promise<Settlement> {
  const { ports, caller, now } = ctx;
  const { row, merchant } = caller;
  const card = (plan.check as { card: CardData }).card;
  const stored = storedRequestOf(row);
  const data = stored.threeDS ?? { scaReady: 'no' as const };
  const { usesVaultToken } = flowOf(row.flow).threeDS;
  const windowSize = data.browserInfo?.challengeWindowSize ?? plan.browser.collected.challengeWindowSize ?? 'FULL_SCREEN';
  const idempotencyKey = authorisationKey(row.reference, `attempt-${plan.attempt}`);
  if (!(await sendingAuthorisation(ctx, idempotencyKey))) return { show: { step: 'busy' } };
  const outcome = await ports.acquirerThreeDS.start(authentication, {
    request: {
      ...paymentAmount(row),
      card,
      captureNow: row.type !== 'authorise',
      merchantName: merchant.name,
      shopper: shopperOf(row),
      browser: browserSeen({ data, collectedBrowserInfo: plan.browser.collected }),
      javascriptEnabled: data.browserInfo ? true : plan.browser.javascriptEnabled,
      challengeIndicator: challengeIndicatorCode({ kind: 'payment', usesVaultToken, storeInVault: stored.storeInVault ?? false, data }),
      notificationUrl: pageAddress(ctx, '/3ds/notify'),
      storedCard: storedCardUseOf(row, card),
    },
    idempotencyKey,
    windowSize,
    now,
  });
  return settleByAcquirer(outcome, card, undefined, undefined, ctx);
}

/**
 * act of a 3-D Secure step's end when the acquirer authenticates: the acquirer is told how the
 * browser's step went (the 3DS method ran or not; the CRes's transStatus) with the session's
 * token, under a key of its own per session and step, and answers with the next step or the
 * authorisation.
 */
export async function continueByAcquirer(
  step: { card: CardData; sealedCard: string; session: ThreeDSSessionRow; after: AuthenticationContinuation['after']; authentication?: Authentication },
  ctx: CardContext,
): Promise<Settlement> {
  const { ports, caller, now } = ctx;
  const { row } = caller;
  const acquirer = await ports.acquirers.for(ownerOf(row));
  // The connection changed meanwhile to one that does not authenticate: nothing was authorised under this session.
  if (!acquirer.authentication) return settlementOf({ outcome: 'declined', failureCode: 'processing_error' }, step.card, step.authentication, ctx);
  const idempotencyKey = authorisationKey(row.reference, `${step.session.id}:${step.after.step}`);
  if (!(await sendingAuthorisation(ctx, idempotencyKey))) return { show: { step: 'busy' } };
  const outcome = await ports.acquirerThreeDS.continue(acquirer.authentication, step.session, {
    request: { ...paymentAmount(row), captureNow: row.type !== 'authorise', after: step.after },
    idempotencyKey,
    now,
  });
  return settleByAcquirer(outcome, step.card, step.sealedCard, step.authentication, ctx);
}

/** What the acquirer's answer shows the customer next: the authorisation's state change, or the browser's step with the card sealed to its session. */
function settleByAcquirer(
  outcome: AcquirerOutcome,
  card: CardData,
  sealedCard: string | undefined,
  authentication: Authentication | undefined,
  ctx: CardContext,
): Settlement {
  if (outcome.kind === 'done') return settlementOf(outcome.result, card, authentication, ctx);
  const { session } = outcome;
  const sealed = sealedCard ?? ctx.ports.sealer.seal(card, sealBinding(ctx.caller.row.reference, session.id), session.expires_at);
  if (outcome.kind === 'method') return { show: { step: 'method', session, methodUrl: outcome.methodUrl, sealedCard: sealed } };
  // The issuer echoes the acquirer's MD; Kassa's session and card come back in the TermUrl.
  if (outcome.kind === 'redirect')
    return { show: { step: 'redirect3ds1', acsUrl: outcome.issuerUrl, paReq: outcome.paRequest, md: outcome.md, termMd: `${session.id}.${sealed}` } };
  return { show: { step: 'challenge', session, acsUrl: outcome.acsUrl, creq: outcome.creq, sealedCard: sealed } };
}

/** After 3-D Secure: authenticated → authorise (or store the card); not → failed/rejected. */
export function concludeAuthentication(card: CardData, authentication: Authentication, key: string, ctx: CardContext): Promise<Settlement> | Settlement {
  if (isAuthenticated(authentication)) return settle(card, authentication, key, ctx);
  return { finish: { status: 'failed', failureCode: 'rejected', cause: 'authentication_failed', ...cardFacts(card), authentication } };
}

/** What a payment keeps of its card: the brand, and the last four digits (PCI DSS allows them; the console finds payments by them). */
const cardFacts = (card: CardData) => ({ brand: card.brand, lastFour: card.pan.slice(-4) });

/** The card sealed across a 3-D Secure step is bound to the payment and the step's session. */
export const sealBinding = (reference: string, sessionId: string) => `${reference}|${sessionId}`;

/** What the 3-D Secure server and the acquirer both need to know of the payment: which one, and how much. */
export function paymentAmount(row: TransactionRow): PaymentAmount {
  return { reference: row.reference, mode: row.mode, amountMinor: row.amount_minor, currency: row.currency, exponent: findCurrency(row.currency)!.exponent };
}

/** After authentication: an enrollment stores the card (no money moves, docs/api.md#vault-enrollment); a payment is authorised. */
function settle(card: CardData, authentication: Authentication | undefined, key: string, ctx: CardContext): Promise<Settlement> | Settlement {
  if (flowOf(ctx.caller.row.flow).threeDS.operation !== 'enrollment') return authorise(card, authentication, key, ctx);
  // scaToken (docs/api.md#the-details-object): true only when the cardholder was authenticated; an attempt (A) or no 3-D Secure at all is a fallback without it.
  const vault = prepareForVault(card, ctx);
  return { finish: { status: 'success', cause: 'card_enrolled', ...cardFacts(card), authentication, vault, scaToken: authentication?.transStatus === 'Y' } };
}

/** The acquirer's idempotency key of an authorisation of the payment: the attempt's own key (a card attempt, a 3-D Secure session, a wallet token). */
export const authorisationKey = (reference: string, key: string) => `${reference}:${key}`;

/**
 * Before every call that may authorise (`/authorise`, and each `/authorise3ds2` when the acquirer
 * authenticates), the authorisation is recorded as in flight in its own unit of work (the
 * write-ahead of docs/acquirers.md "Unknown outcomes"): should the process die before its
 * commit, the payment is never paid a second time, and the recovery job learns the outcome.
 * False when another authorisation of the payment is in flight.
 */
function sendingAuthorisation({ ports, caller, now }: CardContext, idempotencyKey: string): Promise<boolean> {
  const inFlight = { key: idempotencyKey, recoveryDueAt: now + ports.settings.acquirerRecoveryAfterMs };
  return ports.store.transact((tx) => recordAuthorisationInFlight(tx, caller.row.reference, inFlight));
}

/** Authorises at the acquirer of the payment's mode, recorded in flight first; its answer decides the one state change. */
export async function authorise(card: CardData, authentication: Authentication | undefined, key: string, ctx: CardContext): Promise<Settlement> {
  const { ports, caller } = ctx;
  const { row, merchant } = caller;
  const acquirer = await ports.acquirers.for(ownerOf(row));
  const idempotencyKey = authorisationKey(row.reference, key);
  if (!(await sendingAuthorisation(ctx, idempotencyKey))) return { show: { step: 'busy' } };
  const result: AuthoriseResult = await acquirer.authorise(
    {
      ...paymentAmount(row),
      instrument: { kind: 'card', card, authentication: authentication && toAuthenticationData(authentication) },
      captureNow: row.type !== 'authorise',
      merchantName: merchant.name,
      shopper: shopperOf(row),
      storedCard: storedCardUseOf(row, card),
    },
    idempotencyKey,
  );
  return settlementOf(result, card, authentication, ctx);
}

/** The acquirer's answer as the payment's one state change. */
function settlementOf(result: AuthoriseResult, card: CardData, authentication: Authentication | undefined, ctx: CardContext): Settlement {
  const { row } = ctx.caller;
  const common = { ...cardFacts(card), authentication };
  switch (result.outcome) {
    case 'authorised': {
      const kept = networkReferenceToKeep(row, card, result.networkReference);
      const vault = storesCard(row) ? withNetworkReference(prepareForVault(card, ctx), kept) : undefined;
      return {
        finish: { ...common, status: 'success', cause: 'acquirer_authorised', acquirerReference: result.acquirerReference, vault, networkReference: kept },
      };
    }
    case 'declined':
      return { finish: { ...common, status: 'failed', failureCode: result.failureCode, cause: 'acquirer_declined', acquirerRefusal: result.refusal } };
    // A card's outcome the acquirer gives later (Adyen's Received) waits for its notification as an unknown one does.
    case 'pending':
    case 'unknown':
      return { finish: { ...common, status: 'manualintervention', cause: 'acquirer_timeout' } };
    // A card sent on to a step elsewhere (a 3-D Secure redirect of the acquirer's) is not taken yet (docs/acquirers.md#adyen).
    case 'redirect':
      return { finish: { ...common, status: 'failed', failureCode: 'processing_error', cause: 'acquirer_redirect_not_taken' } };
  }
}

/** A card stored by this payment keeps the scheme's reference of its authorisation (docs/vault.md "Paying off-session"). */
const withNetworkReference = (prepared: PreparedCard | undefined, kept: { networkReference: string } | undefined): PreparedCard | undefined =>
  prepared && kept ? { ...prepared, row: { ...prepared.row, network_reference: kept.networkReference } } : prepared;

/** Encrypted before the unit of work; stored with the state change, so a card is in the vault exactly when its transaction succeeded. */
function prepareForVault(card: CardData, { ports, caller, now }: CardContext): PreparedCard | undefined {
  const { row } = caller;
  return ports.vault.available ? ports.vault.prepare(card, ownerOf(row), row.reference, now) : undefined;
}

export interface Finish {
  status: Status;
  failureCode?: FailureCode;
  cause: string;
  brand: CardBrand;
  /** The card number's last four digits, when a card number was entered or taken from the vault. */
  lastFour?: string;
  authentication?: Authentication;
  acquirerReference?: string;
  /** A success that stores the card in the vault (enrollment, storeInVault). */
  vault?: PreparedCard;
  /** Enrollments: whether the cardholder was authenticated (docs/api.md#the-details-object). */
  scaToken?: boolean;
  /** A customer-present authorisation's scheme reference, for the stored card paid with (`vaultCardId`) or stored (docs/vault.md "Paying off-session"). */
  networkReference?: { vaultCardId?: string; networkReference: string };
  /** A refusal: why, in the acquirer's words, and whether the card may be tried again (`details.acquirerRefusal`). */
  acquirerRefusal?: AcquirerRefusal;
}

/** A step the acquirer asked for (3-D Secure by the acquirer): its session keeps the acquirer's token; a 3-D Secure 1 redirect of the acquirer's carries Kassa's MD in the TermUrl. */
const waitsForBrowser = (step: PageStep) =>
  ((step.step === 'method' || step.step === 'challenge') && step.session.acquirer_token !== null) || (step.step === 'redirect3ds1' && step.termMd !== undefined);

/** commit of a card payment: its one state change (if the act reached one), and the lease given back. */
export async function commitSettlement(tx: Db, settlement: Settlement, ctx: CardContext): Promise<PageStep> {
  const { reference } = ctx.caller.row;
  await releaseProcessingLease(tx, reference);
  if ('show' in settlement) {
    // The acquirer answered with a step for the customer's browser (its 3DS method, its challenge): nothing is in flight while the customer takes it.
    if (!waitsForBrowser(settlement.show) || (await settleAuthorisationInFlight(tx, reference))) return settlement.show;
    return { step: 'final', row: (await findTransaction(tx, reference))! };
  }
  // An unknown outcome stays in flight: the recovery job or the acquirer's notification settles it.
  if (settlement.finish.status !== 'manualintervention' && !(await settleAuthorisationInFlight(tx, reference))) {
    return { step: 'final', row: (await findTransaction(tx, reference))! };
  }
  return finish(tx, settlement.finish, ctx);
}

/** The one state change of the payment, with what it learned (brand, authentication, capture state, vault card). */
export async function finish(tx: Db, outcome: Finish, { ports, caller, now }: CardContext): Promise<PageStep> {
  const { reference } = caller.row;
  const current = (await findTransaction(tx, reference))!;
  if (current.status === 'pending') {
    const stored =
      outcome.status === 'success' && outcome.vault
        ? { ...shownOfStoredCard(outcome.vault), ...(outcome.scaToken === undefined ? {} : { scaToken: outcome.scaToken }) }
        : undefined;
    const refusal = outcome.acquirerRefusal ? { acquirerRefusal: outcome.acquirerRefusal } : undefined;
    const details = { ...(JSON.parse(current.details) as Record<string, unknown>), ...stored, ...refusal };
    const authorisedOnly = current.type === 'authorise' && outcome.status === 'success';
    const moved = await transition(tx, {
      reference,
      from: 'pending',
      to: outcome.status,
      failureCode: outcome.failureCode ?? null,
      cause: outcome.cause,
      at: now,
      set: {
        brand: outcome.brand,
        ...(outcome.lastFour ? { card_last_four: outcome.lastFour } : {}),
        authentication: outcome.authentication ? JSON.stringify(outcome.authentication) : null,
        ...(authorisedOnly || stored || refusal ? { details: authorisedOnly ? authorisedDetails(details) : JSON.stringify(details) } : {}),
      },
    });
    // Only with the state change: a payment cancelled meanwhile stores no card.
    if (moved && stored && outcome.vault) await ports.vault.insert(tx, outcome.vault);
    const kept = outcome.networkReference;
    if (moved && kept?.vaultCardId) await ports.vault.keepNetworkReference(tx, kept.vaultCardId, kept.networkReference);
    if (outcome.acquirerReference) await setPageFields(tx, reference, { acquirer_reference: outcome.acquirerReference });
  }
  return { step: 'final', row: (await findTransaction(tx, reference))! };
}

/** after: an authorisation whose payment was cancelled or expired meanwhile releases the money it just held. */
export async function reverseLostAuthorisation(step: PageStep, settlement: Settlement, { ports, caller }: CardContext): Promise<void> {
  if (!('finish' in settlement) || !settlement.finish.acquirerReference || step.step !== 'final') return;
  // Held for review by the recovery job meanwhile: its technical cancel or the acquirer's notification decides, not this.
  if (step.row.status === 'success' || step.row.status === 'manualintervention') return;
  const { row } = caller;
  await (await ports.acquirers.for(ownerOf(row)))
    .reversal(
      { reference: row.reference, acquirerReference: settlement.finish.acquirerReference, amountMinor: row.amount_minor, currency: row.currency },
      `${row.reference}:reversal`,
    )
    .catch(() => undefined);
}

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

async function failNow(tx: Db, row: TransactionRow, failureCode: FailureCode, cause: string, at: number): Promise<PageStep> {
  await transition(tx, { reference: row.reference, from: 'pending', to: 'failed', failureCode, cause, at });
  return { step: 'final', row: (await findTransaction(tx, row.reference))! };
}

/** The card payment's stages after its own parse, load and decide: the same for the card form and a stored card. */
export const payingByCard = {
  reserve: reserveCardAttempt,
  release: releaseLease,
  act: authenticateAndAuthorise,
  commit: commitSettlement,
  answer: (step: PageStep) => step,
  after: reverseLostAuthorisation,
};

export type SessionGate =
  | { step: 'go'; session: ThreeDSSessionRow }
  /** The session has no result yet (3DS2: the RReq has not come; 3DS1: the PaRes is to be checked). Lease held for 3DS1. */
  | { step: 'waiting'; session: ThreeDSSessionRow }
  | { step: 'final'; row: TransactionRow }
  | { step: 'busy' }
  | { step: 'stale' };

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
