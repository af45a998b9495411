/**
 * The issuer's ACS posted the CRes to the payment's notification URL, inside the challenge
 * window (EMVCo browser flow). It counts only with the session's `threeDSSessionData` (the
 * secret Kassa's frame posted with the CReq, echoed by the ACS). In a session of Kassa's own
 * 3DS Server the outcome comes from the RReq and the CRes only tells the page to go on; in a
 * session of the acquirer's the CRes's transStatus is recorded for the acquirer
 * (threeds/by-acquirer.ts). Answers whether the CRes was the session's.
 */
import { findThreeDSSession, type ThreeDSSessionRow } from '../../store/payment-pages.ts';
import { recordChallengeResponse, transactionOf } from '../../threeds/by-acquirer.ts';
import { csrfValid } from '../../lib/page-security.ts';
import { customerOperation } from '../runner/operation.ts';

export const receiveChallengeResponse = customerOperation({
  name: 'receiveChallengeResponse',
  parse: (body: { cres?: string; sessionData?: string }) => ({ ...body, message: transactionOf(body.cres) }),
  load: async ({ message }, { ports }) => {
    const id = message?.threeDSServerTransID;
    return typeof id === 'string' ? findThreeDSSession(ports.store.read, id) : undefined;
  },
  decide: (session, { message, sessionData }, { caller }) =>
    session && session.reference === caller.row.reference && csrfValid(session.session_secret, sessionData) ? { session, cres: message! } : undefined,
  commit: async (tx, plan: { session: ThreeDSSessionRow; cres: { transStatus?: unknown } } | undefined) => {
    if (plan) await recordChallengeResponse(tx, plan.session, plan.cres);
    return plan !== undefined;
  },
  answer: (received) => received,
});
