/**
 * The end of a 3-D Secure 1 redirect (docs/api.md#the-service: the fallback where 3DS2 does not apply):
 * the ACS sends the browser back to the TermUrl with the PaRes and Kassa's MD, which is
 * the session id and the card sealed to it. The PaRes is checked, then the card authorised.
 */
import { updateThreeDSSession, type ThreeDSSessionRow } from '../../store/payment-pages.ts';
import type { CardData } from '../../acquirer/connector.ts';
import { claimThreeDSSession, commitSettlement, concludeAuthentication, releaseLease, reverseLostAuthorisation, sealBinding, type PageStep } from '../card-payment.ts';
import { customerOperation, stop } from './operation.ts';

interface RedirectEnd {
  paRes: string;
  sessionId: string;
  card: CardData | undefined;
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
    const card = sessionId ? ports.sealer.unseal(md.slice(dot + 1), sealBinding(caller.row.reference, sessionId), now) : undefined;
    return { paRes, sessionId, card };
  },
  reserve: async (tx, plan: RedirectEnd, { caller, now }) => {
    if (!plan.card) return stop<PageStep>({ step: 'stale' });
    const gate = await claimThreeDSSession(tx, caller.row.reference, plan.sessionId, '3ds1', now);
    if (gate.step !== 'waiting') return stop<PageStep>(gate.step === 'go' ? { step: 'stale' } : gate);
    return { ...plan, session: gate.session };
  },
  release: releaseLease,
  act: async (plan, ctx) => {
    const authentication = await ctx.ports.threeDS.finish3ds1(ctx.caller.row.mode, plan.session!, plan.paRes);
    return { sessionId: plan.sessionId, settlement: await concludeAuthentication(plan.card!, authentication, plan.sessionId, ctx) };
  },
  commit: async (tx, { sessionId, settlement }, ctx) => {
    await updateThreeDSSession(tx, sessionId, ['result'], { state: 'used' });
    return commitSettlement(tx, settlement, ctx);
  },
  answer: (step) => step,
  after: (step, { settlement }, ctx) => reverseLostAuthorisation(step, settlement, ctx),
});
