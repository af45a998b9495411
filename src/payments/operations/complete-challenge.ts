/**
 * The end of a 3-D Secure 2 challenge (spec §1): the challenge window reported completion.
 * The outcome was already taken from the RReq the ACS sent Kassa's 3DS Server; the card,
 * sealed with the customer's browser across the step, is then authorised.
 */
import { encodeCReq, type Authentication } from '../../threeds/server.ts';
import type { CardData } from '../../acquirer/connector.ts';
import { updateThreeDSSession } from '../../store/payment-pages.ts';
import { claimThreeDSSession, commitSettlement, concludeAuthentication, releaseLease, reverseLostAuthorisation, sealBinding, type CardStep } from '../card-payment.ts';
import { customerOperation, stop } from './operation.ts';

interface ChallengeEnd {
  sessionId: string;
  sealedCard: string;
  card: CardData | undefined;
  /** The RReq's outcome, once the session is claimed. */
  authentication?: Authentication;
}

export const completeChallenge = customerOperation({
  name: 'completeChallenge',
  parse: (body: { sessionId: string; sealedCard: string }) => body,
  load: () => undefined,
  decide: (_nothing, { sessionId, sealedCard }, { ports, caller, now }): ChallengeEnd => ({
    sessionId,
    sealedCard,
    card: ports.sealer.unseal(sealedCard, sealBinding(caller.row.reference, sessionId), now),
  }),
  reserve: async (tx, plan: ChallengeEnd, { caller, now }) => {
    if (!plan.card) return stop<CardStep>({ step: 'stale' });
    const gate = await claimThreeDSSession(tx, caller.row.reference, plan.sessionId, '2.2.0', now);
    if (gate.step === 'waiting') {
      const { session } = gate;
      return stop<CardStep>({ step: 'challenge', session, acsUrl: session.acs_url!, creq: encodeCReq(session), sealedCard: plan.sealedCard, pending: true });
    }
    if (gate.step !== 'go') return stop<CardStep>(gate);
    await updateThreeDSSession(tx, plan.sessionId, ['result'], { state: 'used' });
    return { ...plan, authentication: JSON.parse(gate.session.result!) as Authentication };
  },
  release: releaseLease,
  act: async (plan, ctx) => concludeAuthentication(plan.card!, plan.authentication!, plan.sessionId, ctx),
  commit: commitSettlement,
  answer: (step) => step,
  after: reverseLostAuthorisation,
});
