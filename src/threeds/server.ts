/**
 * Kassa as 3DS Server (EMVCo 3-D Secure 2.2.0, browser channel), with the 3-D Secure 1
 * redirect as fallback when 3DS2 is not applicable (docs/api.md#the-service). It builds the AReq with the
 * EMVCo mapping (areq.ts), sends it through the Directory Server port, keeps each
 * authentication as a `threeds_sessions` row, and takes a challenge's outcome from the
 * ACS's Results Request (RReq), never from what the browser carries back.
 * Network calls (the DS) happen outside units of work; the rows change in small units.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store.ts';
import type { Mode } from '../store/schema.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import type { CardData, AuthenticationData, PaymentAmount } from '../acquirer/connector.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { findThreeDSSession, insertThreeDSSession, updateThreeDSSession, type ThreeDSSessionRow } from '../store/payment-pages.ts';
import { buildAReq, challengeWindowSizeCode } from './areq.ts';
import type { ThreeDSData } from './fields.ts';
import type { BrowserInfo } from '../ground/browser-info.ts';
import { Problem } from '../ground/problem.ts';
import type { DirectoryServer, PaResult, RReq, TransStatus } from './directory.ts';

/** EMVCo: the challenge must be finished within a bounded time; ours is generous. */
export const THREEDS_SESSION_TTL_MS = 15 * 60_000;

/** What is kept with the transaction (`authentication` column): ECI, transStatus, authentication value. */
export interface Authentication {
  protocolVersion: string;
  transStatus: TransStatus;
  eci?: string;
  authenticationValue?: string;
  transStatusReason?: string;
  challengeCancel?: string;
  challenged: boolean;
  threeDSServerTransID: string;
  dsTransID?: string;
  acsTransID?: string;
}

export const isAuthenticated = (a: Authentication) => a.transStatus === 'Y' || a.transStatus === 'A';

export const toAuthenticationData = (a: Authentication): AuthenticationData => ({
  protocolVersion: a.protocolVersion,
  transStatus: a.transStatus,
  eci: a.eci,
  authenticationValue: a.authenticationValue,
  dsTransID: a.dsTransID,
});

export interface StartAuthentication extends PaymentAmount {
  card: CardData;
  merchantName: string;
  merchantId: string;
  data: ThreeDSData;
  /** A vault enrollment authenticates the cardholder to add the card (EMVCo 02-NPA when without amount). */
  kind: 'payment' | 'enrollment';
  /** A payment with a stored card (details.vaultAccessToken). */
  usesVaultToken: boolean;
  storeInVault: boolean;
  /** Browser facts collected by Kassa's page (used when the merchant gave no browserInfo). */
  collectedBrowser: Partial<BrowserInfo>;
  /** Whether the customer's browser runs scripts (the page found out). */
  javascriptEnabled: boolean;
  /** Where the ACS posts the CRes (3DS2). */
  notificationUrl: string;
  now: Date;
}

export type StartOutcome =
  | { kind: 'result'; authentication: Authentication }
  | { kind: 'challenge'; session: ThreeDSSessionRow; acsUrl: string; creq: string; windowSize: string }
  | { kind: 'redirect3ds1'; session: ThreeDSSessionRow; acsUrl: string; paReq: string };

/** The CReq form field: base64url JSON, as EMVCo's browser flow posts it. */
export function encodeCReq(session: { id: string; acs_trans_id: string | null; window_size: string | null; message_version: string | null }): string {
  return Buffer.from(
    JSON.stringify({
      threeDSServerTransID: session.id,
      acsTransID: session.acs_trans_id,
      messageType: 'CReq',
      // Kassa's own sessions speak 2.2.0; an acquirer's session the version its ACS answered with.
      messageVersion: session.message_version ?? '2.2.0',
      challengeWindowSize: challengeWindowSizeCode(session.window_size ?? undefined),
    }),
  ).toString('base64url');
}

export class ThreeDSServer {
  constructor(
    private readonly store: Store,
    private readonly directories: (mode: Mode) => DirectoryServer | undefined,
    private readonly publicUrl: string,
  ) {}

  /** Whether cardholders of `mode` can be authenticated at all (live needs a Directory Server connection). */
  available(mode: Mode): boolean {
    return this.directories(mode) !== undefined;
  }

  private directoryFor(mode: Mode): DirectoryServer {
    const directory = this.directories(mode);
    if (!directory) throw new Problem('noDirectoryServer', 'Live 3-D Secure needs a Directory Server connection; none is configured.');
    return directory;
  }

  async start(input: StartAuthentication): Promise<StartOutcome> {
    const directory = this.directoryFor(input.mode);
    const id = randomUUID();
    const windowSize = input.data.browserInfo?.challengeWindowSize ?? input.collectedBrowser.challengeWindowSize ?? 'FULL_SCREEN';
    const now = input.now.getTime();
    await this.store.transact((db) =>
      insertThreeDSSession(db, {
        id,
        reference: input.reference,
        protocol: '2.2.0',
        state: 'started',
        session_secret: randomBase62(32),
        acs_trans_id: null,
        ds_trans_id: null,
        acs_url: null,
        window_size: windowSize,
        brand: input.card.brand,
        result: null,
        created: now,
        expires_at: now + THREEDS_SESSION_TTL_MS,
      }),
    );
    // A brand outside the 3DS2 schemes (bcmc) has no 3DS2 directory: 3DS2 is not applicable.
    if (!threeDSSchemeBrands.includes(input.card.brand)) return this.start3ds1(input, id, directory);
    const areq = buildAReq({
      amountMinor: input.amountMinor,
      currency: input.currency,
      kind: input.kind,
      usesVaultToken: input.usesVaultToken,
      storeInVault: input.storeInVault,
      data: input.data,
      collectedBrowserInfo: { ...input.collectedBrowser, challengeWindowSize: windowSize },
      purchaseDate: input.now,
      merchantName: input.merchantName,
      requestor: {
        threeDSServerTransID: id,
        threeDSRequestorID: input.merchantId,
        threeDSRequestorName: input.merchantName,
        threeDSRequestorURL: this.publicUrl,
        notificationURL: input.notificationUrl,
        // No 3DS Method (device fingerprint) call is run before the AReq.
        threeDSCompInd: 'U',
        acctNumber: input.card.pan,
        cardExpiryDate: `${String(input.card.expiryYear % 100).padStart(2, '0')}${String(input.card.expiryMonth).padStart(2, '0')}`,
      },
    });
    // Only the page knows whether scripts run; the mapping assumes they do whenever there is browser data.
    if (!input.data.browserInfo) areq.browserJavascriptEnabled = input.javascriptEnabled;
    areq.cardholderName ??= input.card.holderName;

    const response = await directory.authenticate(input.card.brand, areq);
    if (response.kind === 'not_enrolled') return this.start3ds1(input, id, directory);
    const { ares } = response;
    const base = { protocolVersion: ares.messageVersion, threeDSServerTransID: id, dsTransID: ares.dsTransID, acsTransID: ares.acsTransID };
    if (ares.transStatus === 'C' && ares.acsURL) {
      const session = await this.store.transact(async (db) => {
        await updateThreeDSSession(db, id, ['started'], { state: 'challenge', acs_trans_id: ares.acsTransID, ds_trans_id: ares.dsTransID, acs_url: ares.acsURL! });
        return (await findThreeDSSession(db, id))!;
      });
      return { kind: 'challenge', session, acsUrl: ares.acsURL, creq: encodeCReq(session), windowSize };
    }
    const authentication: Authentication = {
      ...base,
      transStatus: ares.transStatus,
      eci: ares.eci,
      authenticationValue: ares.authenticationValue,
      transStatusReason: ares.transStatusReason,
      challenged: false,
    };
    await this.store.transact((db) =>
      updateThreeDSSession(db, id, ['started'], { state: 'used', acs_trans_id: ares.acsTransID, ds_trans_id: ares.dsTransID, result: JSON.stringify(authentication) }),
    );
    return { kind: 'result', authentication };
  }

  /** 3-D Secure 1: VEReq/VERes; an enrolled card goes to its ACS with a PaReq (a redirect step). */
  private async start3ds1(input: StartAuthentication, id: string, directory: DirectoryServer): Promise<StartOutcome> {
    const enrolment = await directory.verifyEnrolment(input.card.brand, {
      sessionId: id,
      pan: input.card.pan,
      amountMinor: input.amountMinor,
      currency: input.currency,
      exponent: input.exponent,
      merchantName: input.merchantName,
    });
    if (enrolment.enrolled !== 'Y') {
      // Not enrolled in 3DS1 either: no authentication is possible; the acquirer decides without liability shift.
      const authentication: Authentication = { protocolVersion: '1.0.2', transStatus: 'U', challenged: false, threeDSServerTransID: id };
      await this.store.transact((db) => updateThreeDSSession(db, id, ['started'], { protocol: '1.0.2', state: 'used', result: JSON.stringify(authentication) }));
      return { kind: 'result', authentication };
    }
    const session = await this.store.transact(async (db) => {
      await updateThreeDSSession(db, id, ['started'], { protocol: '1.0.2', state: 'challenge', acs_url: enrolment.acsUrl });
      return (await findThreeDSSession(db, id))!;
    });
    return { kind: 'redirect3ds1', session, acsUrl: enrolment.acsUrl, paReq: enrolment.paReq };
  }

  /** The RReq from the ACS (through the DS): the authoritative challenge outcome. */
  async receiveResults(rreq: RReq): Promise<boolean> {
    const authentication: Authentication = {
      protocolVersion: rreq.messageVersion,
      transStatus: rreq.transStatus,
      eci: rreq.eci,
      authenticationValue: rreq.authenticationValue,
      transStatusReason: rreq.transStatusReason,
      challengeCancel: rreq.challengeCancel,
      challenged: true,
      threeDSServerTransID: rreq.threeDSServerTransID,
      dsTransID: rreq.dsTransID,
      acsTransID: rreq.acsTransID,
    };
    return this.store.transact(async (db) => {
      const session = await findThreeDSSession(db, rreq.threeDSServerTransID);
      if (!session || session.acs_trans_id !== rreq.acsTransID) return false;
      return updateThreeDSSession(db, session.id, ['challenge'], { state: 'result', result: JSON.stringify(authentication) });
    });
  }

  /** 3-D Secure 1: the PaRes brought back by the browser, checked with the DS, → the result. */
  async finish3ds1(mode: Mode, session: ThreeDSSessionRow, paRes: string): Promise<Authentication> {
    const result: PaResult | undefined = await this.directoryFor(mode).verifyPaRes(paRes, session.id);
    const authentication: Authentication = result
      ? { protocolVersion: '1.0.2', transStatus: result.status, eci: result.eci, authenticationValue: result.cavv, challenged: true, threeDSServerTransID: session.id }
      : { protocolVersion: '1.0.2', transStatus: 'N', transStatusReason: 'invalid PaRes', challenged: true, threeDSServerTransID: session.id };
    await this.store.transact((db) => updateThreeDSSession(db, session.id, ['challenge'], { state: 'result', result: JSON.stringify(authentication) }));
    return authentication;
  }
}

/** 3-D Secure applies to card payments of merchants that accept a 3DS2 scheme brand (docs/api.md#the-service). */
export const threeDSSchemeBrands: readonly CardBrand[] = ['amex', 'mastercard', 'visa', 'maestro'];

export function merchantSubjectToThreeDS(acceptedBrands: readonly CardBrand[]): boolean {
  return acceptedBrands.some((brand) => threeDSSchemeBrands.includes(brand));
}
