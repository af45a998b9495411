/**
 * The card payment's commit and after stages (docs/api.md#states): the one state change through
 * `transition()` with what the payment learned (brand, authentication, capture state, the vault
 * card), the lease given back; and an authorisation that lost the race to a cancel or expiry
 * reversed. `payingByCard` is the card payment's stages after its own parse, load and decide.
 */
import type { Db } from '../../store/store.ts';
import { findTransaction, ownerOf } from '../../store/transactions.ts';
import { releaseProcessingLease, settleAuthorisationInFlight, setPageFields } from '../../store/payment-pages.ts';
import { shownOfStoredCard } from '../../vault/vault.ts';
import { transition } from '../transition.ts';
import { authorisedDetails } from '../follow-ups/authorisation.ts';
import { releaseLease, reserveCardAttempt } from './reserve.ts';
import { authenticateAndAuthorise } from './authenticate.ts';
import type { CardOutcome, CardPaymentContext, Finish, PageStep } from './steps.ts';

/** A step the acquirer asked for (3-D Secure by the acquirer): its session keeps the acquirer's token; a 3-D Secure 1 redirect of the acquirer's carries Kassa's MD in the TermUrl. */
const waitsForBrowser = (step: PageStep) =>
  ((step.step === 'method' || step.step === 'challenge') && step.session.acquirer_token !== null) || (step.step === 'redirect3ds1' && step.termMd !== undefined);

/** commit of a card payment: its one state change (if the act reached one), and the lease given back. */
export async function commitCardOutcome(tx: Db, outcome: CardOutcome, ctx: CardPaymentContext): Promise<PageStep> {
  const { reference } = ctx.caller.row;
  await releaseProcessingLease(tx, reference);
  if ('show' in outcome) {
    // The acquirer answered with a step for the customer's browser (its 3DS method, its challenge): nothing is in flight while the customer takes it.
    if (!waitsForBrowser(outcome.show) || (await settleAuthorisationInFlight(tx, reference))) return outcome.show;
    return { step: 'final', row: (await findTransaction(tx, reference))! };
  }
  // An unknown outcome stays in flight: the recovery job or the acquirer's notification settles it.
  if (outcome.finish.status !== 'manualintervention' && !(await settleAuthorisationInFlight(tx, reference))) {
    return { step: 'final', row: (await findTransaction(tx, reference))! };
  }
  return finish(tx, outcome.finish, ctx);
}

/** The one state change of the payment, with what it learned (brand, authentication, capture state, vault card). */
export async function finish(tx: Db, outcome: Finish, { ports, caller, now }: CardPaymentContext): Promise<PageStep> {
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
export async function reverseLostAuthorisation(step: PageStep, outcome: CardOutcome, { ports, caller }: CardPaymentContext): Promise<void> {
  if (!('finish' in outcome) || !outcome.finish.acquirerReference || step.step !== 'final') return;
  // Held for review by the recovery job meanwhile: its technical cancel or the acquirer's notification decides, not this.
  if (step.row.status === 'success' || step.row.status === 'manualintervention') return;
  const { row } = caller;
  await (await ports.acquirers.for(ownerOf(row)))
    .reversal(
      { reference: row.reference, acquirerReference: outcome.finish.acquirerReference, amountMinor: row.amount_minor, currency: row.currency },
      `${row.reference}:reversal`,
    )
    .catch(() => undefined);
}
/** The card payment's stages after its own parse, load and decide: the same for the card form and a stored card. */
export const payingByCard = {
  reserve: reserveCardAttempt,
  release: releaseLease,
  act: authenticateAndAuthorise,
  commit: commitCardOutcome,
  answer: (step: PageStep) => step,
  after: reverseLostAuthorisation,
};
