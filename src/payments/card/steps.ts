/**
 * What a card payment's stages hand each other and answer (docs/architecture.md "Paying by card"):
 * the card and request on their way (`CardPlan`), what the act decided (`CardOutcome`), the one
 * state change it may reach (`Finish`), and the one result every stage ends in, what the
 * customer's page shows next (`PageStep`; the session gate answers a narrower part of it). Types
 * only.
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { ThreeDSSessionRow } from '../../store/payment-pages.ts';
import type { BrowserInfo } from '../../ground/browser-info.ts';
import type { AcquirerRefusal, CardData } from '../../acquirer/connector.ts';
import type { Authentication } from '../../threeds/server.ts';
import type { CardBrand } from '../../ground/card-brand.ts';
import type { FailureCode, Status } from '../../ground/states.ts';
import type { PreparedCard } from '../../vault/vault.ts';
import type { PaymentContext } from '../payment-context.ts';
import type { CardError, CardField } from '../requests/card-input.ts';
import type { Context } from '../runner/operation.ts';
import type { EventCause } from '../../ground/event-causes.ts';

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

/** What every stage of a card payment knows besides its own input: the payment and its merchant. */
export type CardPaymentContext = Context<PaymentContext>;

/** A card on its way to the acquirer, and the request it came with. */
export interface CardPlan {
  check: CardCheck;
  browser: BrowserFacts;
  /** Which attempt this is (set by the reservation); part of the acquirer's idempotency key. */
  attempt?: number;
  /** The card cannot be had (a stored card that no longer opens). */
  unavailable?: boolean;
}

/** What the act decided: a step to show with no state change, or the one state change. */
export type CardOutcome = { show: PageStep } | { finish: Finish };

export interface Finish {
  status: Status;
  failureCode?: FailureCode;
  cause: EventCause;
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

/** Where the end of a 3-D Secure step stands: go on with the session, wait for its result, or one of the page's own steps. */
export type SessionGate =
  | { step: 'go'; session: ThreeDSSessionRow }
  /** The session has no result yet (3DS2: the RReq has not come; 3DS1: the PaRes is to be checked). Lease held for 3DS1. */
  | { step: 'waiting'; session: ThreeDSSessionRow }
  | Extract<PageStep, { step: 'final' | 'busy' | 'stale' }>;
