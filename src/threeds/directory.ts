/**
 * The Directory Server port of Kassa's 3DS Server (docs/architecture.md#ports-and-adapters): one interface for the
 * schemes' directory servers, with the built-in simulator as the test-mode adapter.
 * Messages follow EMVCo 3-D Secure 2.2.0 (AReq/ARes, RReq) and, for the 3-D Secure 1
 * fallback, the VEReq/VERes and PaReq/PaRes exchange.
 */
import type { CardBrand } from '../ground/card-brand.ts';

export type TransStatus = 'Y' | 'N' | 'U' | 'A' | 'C' | 'R' | 'I';

/** The fields an ARes and an RReq share: who the transaction is, and how authentication went. */
interface AuthenticationMessage {
  messageVersion: string;
  threeDSServerTransID: string;
  dsTransID: string;
  acsTransID: string;
  transStatus: TransStatus;
  transStatusReason?: string;
  eci?: string;
  authenticationValue?: string;
}

export interface ARes extends AuthenticationMessage {
  messageType: 'ARes';
  /** Present with transStatus C: where the browser posts the CReq. */
  acsURL?: string;
}

/** Results Request: the ACS's authoritative outcome of a challenge (the CRes is only the browser's signal). */
export interface RReq extends AuthenticationMessage {
  messageType: 'RReq';
  /** 01 = the cardholder cancelled the challenge. */
  challengeCancel?: string;
}

export type AuthenticationResponse =
  | { kind: 'ares'; ares: ARes }
  /** The card range does not take part in 3-D Secure 2: 3-D Secure 2 is not applicable (then 3-D Secure 1: docs/api.md#the-service). */
  | { kind: 'not_enrolled' };

export interface EnrolmentRequest3DS1 {
  /** Kassa's id for the authentication (the 3DS1 XID). */
  sessionId: string;
  pan: string;
  amountMinor: number;
  currency: string;
  exponent: number;
  merchantName: string;
}

export type Enrolment3DS1 = { enrolled: 'Y'; acsUrl: string; paReq: string } | { enrolled: 'N' | 'U' };

export interface PaResult {
  /** Y authenticated, A attempted, N failed, U unavailable. */
  status: 'Y' | 'A' | 'N' | 'U';
  eci?: string;
  cavv?: string;
  xid: string;
}

export interface DirectoryServer {
  /** Sends the AReq (which carries the card number as acctNumber) to the brand's DS. */
  authenticate(brand: CardBrand, areq: Record<string, unknown>): Promise<AuthenticationResponse>;
  /** 3-D Secure 1: is the card enrolled, and where is its ACS? */
  verifyEnrolment(brand: CardBrand, request: EnrolmentRequest3DS1): Promise<Enrolment3DS1>;
  /** 3-D Secure 1: checks the PaRes the browser brought back and reads its outcome. */
  verifyPaRes(paRes: string, sessionId: string): Promise<PaResult | undefined>;
}

/** ECI values by scheme: Visa-style (05/06/07) and Mastercard-style (02/01/00). */
export const eciByBrand: Record<CardBrand, { authenticated: string; attempted: string; failed: string }> = {
  visa: { authenticated: '05', attempted: '06', failed: '07' },
  amex: { authenticated: '05', attempted: '06', failed: '07' },
  bcmc: { authenticated: '05', attempted: '06', failed: '07' },
  mastercard: { authenticated: '02', attempted: '01', failed: '00' },
  maestro: { authenticated: '02', attempted: '01', failed: '00' },
};
