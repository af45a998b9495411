/**
 * The authorisation of a card payment at the acquirer of its mode (docs/acquirers.md "Unknown
 * outcomes"): recorded in flight in its own unit of work before it is sent, under the attempt's
 * idempotency key, and its answer turned into the payment's one state change — with what the
 * payment keeps of the card, and the card prepared for the vault where the payment stores it.
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { AuthoriseResult, CardData, PaymentAmount } from '../../acquirer/connector.ts';
import { ownerOf } from '../../store/transactions.ts';
import { recordAuthorisationInFlight } from '../../store/payment-pages.ts';
import { toAuthenticationData, type Authentication } from '../../threeds/server.ts';
import { findCurrency } from '../../ground/amount.ts';
import type { PreparedCard } from '../../vault/vault.ts';
import { networkReferenceToKeep, storedCardUseOf, storesCard } from './stored-card-use.ts';
import { shopperOf } from './shopper.ts';
import type { CardOutcome, CardPaymentContext } from './steps.ts';

/** What a payment keeps of its card: the brand, and the last four digits (PCI DSS allows them; the console finds payments by them). */
export const cardFacts = (card: CardData) => ({ brand: card.brand, lastFour: card.pan.slice(-4) });
/** What the 3-D Secure server and the acquirer both need to know of the payment: which one, and how much. */
export function paymentAmount(row: TransactionRow): PaymentAmount {
  return { reference: row.reference, mode: row.mode, amountMinor: row.amount_minor, currency: row.currency, exponent: findCurrency(row.currency)!.exponent };
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
export function sendingAuthorisation({ ports, caller, now }: CardPaymentContext, idempotencyKey: string): Promise<boolean> {
  const inFlight = { key: idempotencyKey, recoveryDueAt: now + ports.settings.acquirerRecoveryAfterMs };
  return ports.store.transact((tx) => recordAuthorisationInFlight(tx, caller.row.reference, inFlight));
}

/** Authorises at the acquirer of the payment's mode, recorded in flight first; its answer decides the one state change. */
export async function authorise(card: CardData, authentication: Authentication | undefined, key: string, ctx: CardPaymentContext): Promise<CardOutcome> {
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
  return outcomeOfAuthorisation(result, card, authentication, ctx);
}

/** The acquirer's answer as the payment's one state change. */
export function outcomeOfAuthorisation(result: AuthoriseResult, card: CardData, authentication: Authentication | undefined, ctx: CardPaymentContext): CardOutcome {
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
export function prepareForVault(card: CardData, { ports, caller, now }: CardPaymentContext): PreparedCard | undefined {
  const { row } = caller;
  return ports.vault.available ? ports.vault.prepare(card, ownerOf(row), row.reference, now) : undefined;
}
