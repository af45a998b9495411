/**
 * The end of a 3-D Secure 2 challenge (docs/api.md#the-service): the challenge window reported completion.
 * In a session of Kassa's 3DS Server the outcome was already taken from the RReq the ACS sent
 * it, and the card, sealed with the customer's browser across the step, is then authorised. In
 * a session of the acquirer's (threeds/by-acquirer.ts) the acquirer is told the CRes's
 * transStatus and its answer is the authorisation.
 */
import { encodeCReq, type Authentication } from '../../threeds/server.ts';
import type { CardData } from '../../acquirer/connector.ts';
import { updateThreeDSSession, type ThreeDSSessionRow } from '../../store/payment-pages.ts';
import { claimThreeDSSession, releaseLease } from '../card/reserve.ts';
import { commitCardOutcome, reverseLostAuthorisation } from '../card/commit.ts';
import { concludeAuthentication } from '../card/authenticate.ts';
import { continueByAcquirer } from '../card/acquirer-authentication.ts';
import { sealBinding } from '../card/card-seal.ts';
import { type PageStep } from '../card/steps.ts';
import { customerOperation, stop } from '../runner/operation.ts';

interface ChallengeEnd {
  sessionId: string;
  sealedCard: string;
  card: CardData | undefined;
  /** The RReq's outcome (the CRes's, in a session of the acquirer), once the session is claimed. */
  authentication?: Authentication;
  session?: ThreeDSSessionRow;
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
    if (!plan.card) return stop<PageStep>({ step: 'stale' });
    const gate = await claimThreeDSSession(tx, caller.row.reference, plan.sessionId, 'challenge', now);
    if (gate.step === 'waiting') {
      const { session } = gate;
      return stop<PageStep>({ step: 'challenge', session, acsUrl: session.acs_url!, creq: encodeCReq(session), sealedCard: plan.sealedCard, pending: true });
    }
    if (gate.step !== 'go') return stop<PageStep>(gate);
    await updateThreeDSSession(tx, plan.sessionId, ['result'], { state: 'used' });
    return { ...plan, session: gate.session, authentication: JSON.parse(gate.session.result!) as Authentication };
  },
  release: releaseLease,
  act: async (plan, ctx) => {
    const { sealedCard, session, authentication } = plan as Required<ChallengeEnd>;
    const card = plan.card!;
    if (session.acquirer_token === null) return concludeAuthentication(card, authentication, plan.sessionId, ctx);
    return continueByAcquirer({ card, sealedCard, session, authentication, after: { step: 'challenge', transStatus: authentication.transStatus } }, ctx);
  },
  commit: commitCardOutcome,
  answer: (step) => step,
  after: reverseLostAuthorisation,
});
