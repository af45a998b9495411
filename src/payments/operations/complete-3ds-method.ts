/**
 * The end of the issuer's 3DS method (EMVCo 3DS method: the issuer reads the browser in the
 * page's hidden frame) in a 3-D Secure session of the acquirer (threeds/by-acquirer.ts): the
 * page's completion form says whether the method posted back in time (`Y`) or not (`N`); the
 * acquirer, told so with the session's token, answers with the challenge or the authorisation.
 * The card comes sealed with the customer's browser, as across a challenge.
 */
import type { CardData } from '../../acquirer/connector.ts';
import { updateThreeDSSession, type ThreeDSSessionRow } from '../../store/payment-pages.ts';
import { claimThreeDSSession, releaseLease } from '../card/reserve.ts';
import { commitCardOutcome, reverseLostAuthorisation } from '../card/commit.ts';
import { continueByAcquirer } from '../card/acquirer-authentication.ts';
import { sealBinding } from '../card/card-seal.ts';
import { type PageStep } from '../card/steps.ts';
import { customerOperation, stop } from '../runner/operation.ts';

interface MethodEnd {
  sessionId: string;
  sealedCard: string;
  completed: 'Y' | 'N';
  card: CardData | undefined;
  /** The session, once claimed. */
  session?: ThreeDSSessionRow;
}

export const complete3dsMethod = customerOperation({
  name: 'complete3dsMethod',
  parse: (body: { sessionId: string; sealedCard: string; completed: string }) => ({ ...body, completed: body.completed === 'Y' ? ('Y' as const) : ('N' as const) }),
  load: () => undefined,
  decide: (_nothing, input, { ports, caller, now }): MethodEnd => ({
    ...input,
    card: ports.sealer.unseal(input.sealedCard, sealBinding(caller.row.reference, input.sessionId), now),
  }),
  reserve: async (tx, plan: MethodEnd, { caller, now }) => {
    if (!plan.card) return stop<PageStep>({ step: 'stale' });
    const gate = await claimThreeDSSession(tx, caller.row.reference, plan.sessionId, 'method', now);
    if (gate.step !== 'go') return stop<PageStep>(gate.step === 'waiting' ? { step: 'stale' } : gate);
    // The session is being continued: a second completion of the same method finds it no longer waiting.
    await updateThreeDSSession(tx, plan.sessionId, ['method'], { state: 'started' });
    return { ...plan, session: gate.session };
  },
  release: releaseLease,
  act: (plan, ctx) =>
    continueByAcquirer({ card: plan.card!, sealedCard: plan.sealedCard, session: plan.session!, after: { step: 'method', completed: plan.completed } }, ctx),
  commit: commitCardOutcome,
  answer: (step) => step,
  after: reverseLostAuthorisation,
});
