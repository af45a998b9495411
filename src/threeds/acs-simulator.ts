/**
 * The test-mode ACS (the issuer's Access Control Server) simulator. It keeps its own
 * records, shows the issuer's challenge page (src/pages/acs-pages.ts) and, once the
 * cardholder answered, sends the Results Request to Kassa's 3DS Server — the outcome
 * Kassa trusts — before the browser carries the CRes back. The one-time code is always
 * 1234 and the page shows it; any other code fails the authentication. It speaks to its
 * cardholder in the language of the payment (what a bank knows of its own customer).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../store/store.ts';
import { findAcsSimTransaction, finishAcsSimTransaction, insertAcsSimTransaction, paymentLanguageOfSession } from '../store/acs-sim-transactions.ts';
import { DEFAULT_LANGUAGE } from '../ground/language.ts';
import { bindings } from '../store/secrets.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { eciByBrand, type RReq, type TransStatus } from './directory.ts';

export const TEST_ONE_TIME_CODE = '1234';

export interface AcsOutcome {
  transStatus: TransStatus;
  eci?: string;
  authenticationValue?: string;
  transStatusReason?: string;
  challengeCancel?: string;
}

export interface OpenChallenge {
  threeDSServerTransID: string;
  dsTransID: string;
  protocol: '2.2.0' | '1.0.2';
  brand: CardBrand;
  merchantName: string;
  amountText: string;
  notificationUrl?: string;
}

export type AcsTransaction = NonNullable<Awaited<ReturnType<AcsSimulator['find']>>>;

/** A CAVV-like authentication value: 20 random bytes, base64 (28 characters), as schemes send it. */
export const newAuthenticationValue = () => randomBytes(20).toString('base64');

export class AcsSimulator {
  constructor(
    private readonly store: Store,
    /** Where results go: Kassa's 3DS Server (in a real deployment, via the DS over HTTPS). */
    private readonly sendResults: (rreq: RReq) => Promise<void>,
  ) {}

  async open(challenge: OpenChallenge): Promise<string> {
    const acsTransID = randomUUID();
    await this.store.transact(async (db) =>
      insertAcsSimTransaction(db, {
        acs_trans_id: acsTransID,
        three_ds_server_trans_id: challenge.threeDSServerTransID,
        ds_trans_id: challenge.dsTransID,
        protocol: challenge.protocol,
        brand: challenge.brand,
        // What a bank knows of its own cardholder: the language the shopper pays in, so the bank's page speaks as the payment's pages do (docs/pages.md "Languages").
        language: (await paymentLanguageOfSession(db, challenge.threeDSServerTransID)) ?? DEFAULT_LANGUAGE,
        merchant_name: challenge.merchantName,
        amount_text: challenge.amountText,
        // It carries the payment's capability token: sealed, as everything of the kind the database keeps.
        notification_url: challenge.notificationUrl === undefined ? null : this.store.secrets.seal(challenge.notificationUrl, bindings.acsNotificationUrl(acsTransID)),
        form_token: randomBase62(32),
        state: 'pending',
        outcome: null,
        created: Date.now(),
      }),
    );
    return acsTransID;
  }

  /** A transaction of a test-mode payment; a live payment's is as unknown as any other (live keys never use the simulator: docs/decisions.md#live-payments-without-an-acquirer-connector). */
  async find(acsTransID: string) {
    const row = await findAcsSimTransaction(this.store.read, acsTransID);
    if (!row?.notification_url) return row;
    return { ...row, notification_url: this.store.secrets.open(row.notification_url, bindings.acsNotificationUrl(acsTransID)) };
  }

  /**
   * The cardholder's answer: the right code authenticates (Y), anything else fails (N),
   * cancelling fails with challengeCancel 01. Answered once; a second answer is refused.
   */
  async answer(transaction: AcsTransaction, answer: { code?: string; cancel?: boolean }): Promise<AcsOutcome | undefined> {
    const eci = eciByBrand[transaction.brand as CardBrand] ?? eciByBrand.visa;
    const passed = !answer.cancel && answer.code?.trim() === TEST_ONE_TIME_CODE;
    const outcome: AcsOutcome = passed
      ? { transStatus: 'Y', eci: eci.authenticated, authenticationValue: newAuthenticationValue() }
      : { transStatus: 'N', eci: eci.failed, transStatusReason: '01', ...(answer.cancel ? { challengeCancel: '01' } : {}) };
    const changed = await this.store.transact((db) => finishAcsSimTransaction(db, transaction.acs_trans_id, JSON.stringify(outcome)));
    if (!changed) return undefined;
    if (transaction.protocol !== '1.0.2') {
      await this.sendResults({
        messageType: 'RReq',
        messageVersion: transaction.protocol,
        threeDSServerTransID: transaction.three_ds_server_trans_id,
        acsTransID: transaction.acs_trans_id,
        dsTransID: transaction.ds_trans_id,
        ...outcome,
      });
    }
    return outcome;
  }
}
