/**
 * 3-D Secure done by the acquirer (docs/acquirers.md "3-D Secure through Adyen"): when the
 * merchant's connector authenticates (`AcquirerConnector.authentication`, e.g. Adyen's native
 * 3DS2), the acquirer's 3DS Server talks to the schemes' directories, and Kassa's page only runs
 * what the issuer asks of the browser — its 3DS method in the hidden frame, its challenge in
 * the pop-up — in the same 3-D Secure sessions (`threeds_sessions`) as Kassa's own 3DS Server.
 * A session of the acquirer is named by the acquirer's threeDSServerTransID (what the issuer's
 * 3DS method data and CRes carry back) and keeps the acquirer's token for its next call. The
 * acquirer's last answer is the authorisation. Network calls happen outside units of work.
 */
import type { Store, Db } from '../store/store.ts';
import type { AcquirerAuthentication, AuthenticatingRequest, AuthenticationContinuation, AuthenticationStep, AuthoriseResult } from '../acquirer/connector.ts';
import { findThreeDSSession, insertThreeDSSession, updateThreeDSSession, type ThreeDSSessionRow } from '../store/payment-pages.ts';
import { randomUUID } from 'node:crypto';
import { identifierShaped, randomBase62 } from '../lib/tokens.ts';
import { encodeCReq, THREEDS_SESSION_TTL_MS, type Authentication } from './server.ts';
import type { TransStatus } from './directory.ts';

export type AcquirerOutcome =
  /** The acquirer's answer: authorised, declined, or unknown. */
  | { kind: 'done'; result: AuthoriseResult }
  /** The issuer's 3DS method runs in the page's hidden frame: the 3DS method data (`encodeMethodData`) posted to `methodUrl`. */
  | { kind: 'method'; session: ThreeDSSessionRow; methodUrl: string }
  | { kind: 'challenge'; session: ThreeDSSessionRow; acsUrl: string; creq: string }
  /** 3-D Secure 1: the browser posts the PaReq and the acquirer's MD to the issuer, whose PaRes comes back to the page. */
  | { kind: 'redirect'; session: ThreeDSSessionRow; issuerUrl: string; paRequest: string; md: string };

export interface AcquirerStart {
  request: AuthenticatingRequest;
  idempotencyKey: string;
  /** The challenge window's size (browserInfo.challengeWindowSize, or chosen from the customer's window). */
  windowSize: string;
  now: number;
}

/** EMVCo 3DS method data: base64url JSON naming the transaction and where the method posts back. */
export const encodeMethodData = (threeDSServerTransID: string, methodNotificationUrl: string) =>
  Buffer.from(JSON.stringify({ threeDSServerTransID, threeDSMethodNotificationURL: methodNotificationUrl })).toString('base64url');

/** The threeDSServerTransID of base64url JSON the browser brought back (3DS method data, CRes), or undefined. */
export function transactionOf(encoded: string | undefined): { threeDSServerTransID?: unknown; transStatus?: unknown } | undefined {
  try {
    const value = JSON.parse(Buffer.from(encoded ?? '', 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

const transStatuses: readonly TransStatus[] = ['Y', 'N', 'U', 'A', 'C', 'R', 'I'];

/**
 * The CRes the issuer's ACS posted to Kassa's page, for a session of the acquirer: the acquirer
 * takes the challenge's outcome from its own RReq and is told the CRes's transStatus
 * (`/authorise3ds2` `threeDS2Result`), so the CRes is recorded as it came — anything that is no
 * transStatus as U. Kassa's own sessions trust only the RReq (server.ts): for them, nothing.
 */
export async function recordChallengeResponse(db: Db, session: ThreeDSSessionRow, cres: { transStatus?: unknown }): Promise<void> {
  if (session.acquirer_token === null) return;
  const transStatus = transStatuses.find((status) => status === cres.transStatus) ?? 'U';
  const authentication: Authentication = {
    protocolVersion: session.message_version ?? '2.2.0',
    transStatus,
    challenged: true,
    threeDSServerTransID: session.id,
    ...(session.acs_trans_id ? { acsTransID: session.acs_trans_id } : {}),
  };
  await updateThreeDSSession(db, session.id, ['challenge'], { state: 'result', result: JSON.stringify(authentication) });
}

/** A new session of the acquirer's for the payment, before its step's own fields (state, ACS address, token). */
const newSessionRow = (id: string, protocol: string, at: { reference: string; brand: string; windowSize: string; now: number }) => ({
  id,
  reference: at.reference,
  protocol,
  session_secret: randomBase62(32),
  ds_trans_id: null,
  acs_trans_id: null,
  message_version: null,
  window_size: at.windowSize,
  brand: at.brand,
  result: null,
  created: at.now,
  expires_at: at.now + THREEDS_SESSION_TTL_MS,
});

export class AcquirerThreeDS {
  constructor(private readonly store: Store) {}

  /** The first authorisation, the acquirer authenticating: decided at once (frictionless, no 3-D Secure), or a step for the browser. */
  async start(authentication: AcquirerAuthentication, input: AcquirerStart): Promise<AcquirerOutcome> {
    const step = await authentication.authorise(input.request, input.idempotencyKey);
    return this.take(step, { ...input, reference: input.request.reference, brand: input.request.card.brand });
  }

  /**
   * The next call after the browser's step (the 3DS method ran or not; the CRes came), with the
   * session's token. `session` was claimed by the caller (its state `started` or `used`).
   */
  async continue(
    authentication: AcquirerAuthentication,
    session: ThreeDSSessionRow,
    input: { request: Omit<AuthenticationContinuation, 'token'>; idempotencyKey: string; now: number },
  ): Promise<AcquirerOutcome> {
    const step = await authentication.continue({ ...input.request, token: session.acquirer_token! }, input.idempotencyKey);
    return this.take(step, { ...input, reference: session.reference, brand: session.brand, windowSize: session.window_size ?? 'FULL_SCREEN', session });
  }

  private async take(
    step: AuthenticationStep,
    at: { reference: string; brand: string; windowSize: string; now: number; session?: ThreeDSSessionRow },
  ): Promise<AcquirerOutcome> {
    const { session } = at;
    if (step.step === 'done') {
      if (session) await this.store.transact((db) => updateThreeDSSession(db, session.id, ['started'], { state: 'used' }));
      return { kind: 'done', result: step.result };
    }
    if (step.step === 'redirect')
      return { kind: 'redirect', session: await this.redirectSession(step, at), issuerUrl: step.issuerUrl, paRequest: step.paRequest, md: step.md };
    // A session is named by the acquirer's transaction id; one that could name nothing of Kassa's cannot be followed.
    if (!identifierShaped(step.threeDSServerTransID) || (session && session.id !== step.threeDSServerTransID)) {
      return { kind: 'done', result: { outcome: 'declined', failureCode: 'processing_error' } };
    }
    const fields =
      step.step === 'method'
        ? { state: 'method' as const, acs_url: step.methodUrl, acquirer_token: step.token }
        : { state: 'challenge' as const, acs_url: step.acsUrl, acs_trans_id: step.acsTransID, message_version: step.messageVersion, acquirer_token: step.token };
    const row = await this.store.transact(async (db) => {
      if (session) await updateThreeDSSession(db, session.id, ['started'], fields);
      else await insertThreeDSSession(db, { ...newSessionRow(step.threeDSServerTransID, '2.2.0', at), ...fields });
      return (await findThreeDSSession(db, step.threeDSServerTransID))!;
    });
    if (step.step === 'method') return { kind: 'method', session: row, methodUrl: step.methodUrl };
    return { kind: 'challenge', session: row, acsUrl: step.acsUrl, creq: encodeCReq(row) };
  }

  /**
   * A 3-D Secure 1 session of the acquirer's (no 3DS2 transaction names it: Kassa does), waiting
   * for the issuer's PaRes as Kassa's own 3DS1 sessions do, the acquirer's md kept for the next call.
   */
  private redirectSession(
    step: Extract<AuthenticationStep, { step: 'redirect' }>,
    at: { reference: string; brand: string; windowSize: string; now: number; session?: ThreeDSSessionRow },
  ): Promise<ThreeDSSessionRow> {
    const id = randomUUID();
    return this.store.transact(async (db) => {
      if (at.session) await updateThreeDSSession(db, at.session.id, ['started'], { state: 'used' });
      await insertThreeDSSession(db, { ...newSessionRow(id, '1.0.2', at), state: 'challenge', acs_url: step.issuerUrl, acquirer_token: step.md });
      return (await findThreeDSSession(db, id))!;
    });
  }
}
