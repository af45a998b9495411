/**
 * The end of a 3-D Secure 1 redirect (docs/api.md#the-service: the fallback where 3DS2 does not apply):
 * the ACS sends the browser back to the TermUrl with the PaRes and Kassa's MD, which is
 * the session id and the card sealed to it. The PaRes is checked, then the card authorised. When
 * the acquirer authenticates (Adyen's `RedirectShopper`), the MD posted was the acquirer's and
 * Kassa's comes in the TermUrl; the acquirer reads the PaRes, and its answer is the authorisation.
 */
import { updateThreeDSSession, type ThreeDSSessionRow } from '../../store/payment-pages.ts';
import type { CardData } from '../../acquirer/connector.ts';
import { claimThreeDSSession, releaseLease } from '../card/reserve.ts';
import { commitCardOutcome, reverseLostAuthorisation } from '../card/commit.ts';
import { concludeAuthentication } from '../card/authenticate.ts';
import { continueByAcquirer } from '../card/acquirer-authentication.ts';
import { sealBinding } from '../card/card-seal.ts';
import { type PageStep } from '../card/steps.ts';
import { customerOperation, stop } from '../runner/operation.ts';

interface RedirectEnd {
  paRes: string;
  sessionId: string;
  card: CardData | undefined;
  /** The card as it came, sealed to the session. */
  sealedCard: string;
  /** The 3DS1 session, once claimed. */
  session?: ThreeDSSessionRow;
}

export const complete3ds1 = customerOperation({
  name: 'complete3ds1',
  parse: (body: { paRes: string; md: string }) => body,
  load: () => undefined,
  decide: (_nothing, { paRes, md }, { ports, caller, now }): RedirectEnd => {
    const dot = md.indexOf('.');
    const sessionId = dot > 0 ? md.slice(0, dot) : '';
    const sealedCard = md.slice(dot + 1);
    const card = sessionId ? ports.sealer.unseal(sealedCard, sealBinding(caller.row.reference, sessionId), now) : undefined;
    return { paRes, sessionId, card, sealedCard };
  },
  reserve: async (tx, plan: RedirectEnd, { caller, now }) => {
    if (!plan.card) return stop<PageStep>({ step: 'stale' });
    const gate = await claimThreeDSSession(tx, caller.row.reference, plan.sessionId, '3ds1', now);
    if (gate.step !== 'waiting') return stop<PageStep>(gate.step === 'go' ? { step: 'stale' } : gate);
    return { ...plan, session: gate.session };
  },
  release: releaseLease,
  act: async (plan, ctx) => {
    const session = plan.session!;
    // A session of the acquirer's (docs/acquirers.md "3-D Secure through Adyen"): the acquirer reads the PaRes, and its answer is the authorisation.
    if (session.acquirer_token !== null) {
      const sealedCard = plan.sealedCard;
      return {
        sessionId: plan.sessionId,
        settlement: await continueByAcquirer({ card: plan.card!, sealedCard, session, after: { step: 'redirect', paRes: plan.paRes } }, ctx),
      };
    }
    const authentication = await ctx.ports.threeDS.finish3ds1(ctx.caller.row.mode, session, plan.paRes);
    return { sessionId: plan.sessionId, settlement: await concludeAuthentication(plan.card!, authentication, plan.sessionId, ctx) };
  },
  commit: async (tx, { sessionId, settlement }, ctx) => {
    // Kassa's own session holds the checked PaRes (`result`); the acquirer's is still waiting for it (`challenge`).
    await updateThreeDSSession(tx, sessionId, ['result', 'challenge'], { state: 'used' });
    return commitCardOutcome(tx, settlement, ctx);
  },
  answer: (step) => step,
  after: (step, { settlement }, ctx) => reverseLostAuthorisation(step, settlement, ctx),
});
