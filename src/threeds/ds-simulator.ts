/**
 * The test-mode Directory Server: decides per the test scenarios of docs/decisions.md#test-scenarios (the cents of
 * the AReq's purchaseAmount; for a zero-amount vault enrollment, the last two digits of
 * the card number) and hands challenges to the ACS simulator. It reads the
 * AReq as a real DS would; nothing of the card is kept.
 */
import { randomUUID } from 'node:crypto';
import currencyCodes from 'currency-codes';
import type { CardBrand } from '../ground/card-brand.ts';
import { scenarioFor } from '../ground/test-scenarios.ts';
import { formatAmount } from '../ground/amount.ts';
import { AcsSimulator, newAuthenticationValue } from './acs-simulator.ts';
import { eciByBrand, type AuthenticationResponse, type DirectoryServer, type Enrolment3DS1, type EnrolmentRequest3DS1, type PaResult } from './directory.ts';

export const ACS_SIMULATOR_PATH = '/simulator/acs';

const amountText = (minor: number, exponent: number, currencyAlpha: string) =>
  `${formatAmount(minor, { code: currencyAlpha.toLowerCase(), numeric: '', exponent })} ${currencyAlpha.toUpperCase()}`;

export class SimulatedDirectoryServer implements DirectoryServer {
  constructor(
    private readonly acs: AcsSimulator,
    private readonly publicUrl: string,
  ) {}

  async authenticate(brand: CardBrand, areq: Record<string, unknown>): Promise<AuthenticationResponse> {
    const amountMinor = Number(areq.purchaseAmount ?? 0);
    const exponent = Number(areq.purchaseExponent ?? 2);
    // A vault enrollment without amount (02-NPA) has no cents: the card number's last two digits stand in for them.
    const withoutAmount = areq.purchaseAmount === undefined;
    const scenario = withoutAmount ? scenarioFor(Number(String(areq.acctNumber ?? '').slice(-2)) || 0, 2) : scenarioFor(amountMinor, exponent);
    if (scenario.threeDS === 'not_applicable') return { kind: 'not_enrolled' };
    const threeDSServerTransID = String(areq.threeDSServerTransID);
    const dsTransID = randomUUID();
    const eci = eciByBrand[brand];
    const base = { messageType: 'ARes' as const, messageVersion: String(areq.messageVersion ?? '2.2.0'), threeDSServerTransID, dsTransID };
    switch (scenario.threeDS) {
      case 'frictionless':
        return { kind: 'ares', ares: { ...base, acsTransID: randomUUID(), transStatus: 'Y', eci: eci.authenticated, authenticationValue: newAuthenticationValue() } };
      case 'attempted':
        return { kind: 'ares', ares: { ...base, acsTransID: randomUUID(), transStatus: 'A', eci: eci.attempted, authenticationValue: newAuthenticationValue() } };
      case 'not_authenticated':
        return { kind: 'ares', ares: { ...base, acsTransID: randomUUID(), transStatus: 'N', eci: eci.failed, transStatusReason: '01' } };
      case 'challenge': {
        const currency = currencyCodes.number(String(areq.purchaseCurrency ?? ''));
        const acsTransID = await this.acs.open({
          threeDSServerTransID,
          dsTransID,
          protocol: '2.2.0',
          brand,
          merchantName: String(areq.merchantName ?? ''),
          // An enrollment (no amount) confirms the card itself: the bank page then shows no amount.
          amountText: withoutAmount ? '' : amountText(amountMinor, exponent, currency?.code ?? 'XXX'),
          notificationUrl: typeof areq.notificationURL === 'string' ? areq.notificationURL : undefined,
        });
        return { kind: 'ares', ares: { ...base, acsTransID, transStatus: 'C', acsURL: `${this.publicUrl}${ACS_SIMULATOR_PATH}/challenge` } };
      }
    }
  }

  async verifyEnrolment(brand: CardBrand, request: EnrolmentRequest3DS1): Promise<Enrolment3DS1> {
    const acsTransID = await this.acs.open({
      threeDSServerTransID: request.sessionId,
      dsTransID: request.sessionId,
      protocol: '1.0.2',
      brand,
      merchantName: request.merchantName,
      amountText: amountText(request.amountMinor, request.exponent, request.currency),
    });
    const paReq = Buffer.from(JSON.stringify({ acsTransID, xid: request.sessionId })).toString('base64url');
    return { enrolled: 'Y', acsUrl: `${this.publicUrl}${ACS_SIMULATOR_PATH}/3ds1`, paReq };
  }

  async verifyPaRes(paRes: string, sessionId: string): Promise<PaResult | undefined> {
    let parsed: { acsTransID?: unknown; xid?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(paRes, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof parsed.acsTransID !== 'string' || parsed.xid !== sessionId) return undefined;
    // The outcome is the ACS's own record, not anything the browser carried: a PaRes cannot be forged.
    const transaction = await this.acs.find(parsed.acsTransID);
    if (!transaction || transaction.three_ds_server_trans_id !== sessionId || transaction.state !== 'done' || !transaction.outcome) return undefined;
    const outcome = JSON.parse(transaction.outcome) as { transStatus: string; eci?: string; authenticationValue?: string };
    const status = outcome.transStatus === 'Y' || outcome.transStatus === 'A' ? outcome.transStatus : 'N';
    return { status, eci: outcome.eci, cavv: outcome.authenticationValue, xid: sessionId };
  }
}
