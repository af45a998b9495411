/**
 * An acquirer's notifications (docs/acquirers.md "Notifications"): each connector owns how its
 * own are read, behind the one route `POST PUBLIC_URL/acquirer/<connector>/notifications`
 * (api/acquirer-notifications.ts). A reader verifies every item against the connections it may
 * belong to, then says in Kassa's words what the acquirer did; what that settles is
 * payments/operations/settle-by-acquirer.ts. The readers are listed beside the connectors (select.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FailureCode } from '../ground/states.ts';
import type { DisputeStage } from '../ground/dispute-stages.ts';
import type { Mode } from '../store/schema.ts';
import type { AcquirerConnection } from '../store/acquirer-connections.ts';

/** One verified item of a notification: the acquirer's word on something Kassa asked it. */
export interface AcquirerWord {
  /** Whose connection the notification was signed for. */
  owner: { merchantId: string; mode: Mode };
  /** Kassa's reference of what the acquirer was asked: the payment (its authorisation or reversal), its capture or its refund. */
  reference: string;
  event: AcquirerEvent;
  success: boolean;
  /** The acquirer's reference of what it did (an authorisation's is what a capture or refund names later). */
  acquirerReference: string;
  /** Why an authorisation was refused, in Kassa's words. */
  failureCode: FailureCode;
  /** How the acquirer names the item it came in: with `acquirerReference`, what makes it one. */
  item: { connector: string; eventCode: string; originalReference: string | undefined };
  /**
   * What the item says of its amount, in Kassa's minor units of its currency (undefined when they
   * cannot carry it: `asSent` is the acquirer's own number), and why (the acquirer's words), for the
   * payment's timeline.
   */
  amount: { minor: number | undefined; currency: string; asSent: number };
  reason: string | undefined;
  /** For a `dispute`: what its notification says of the dispute, whose own reference is `acquirerReference`. */
  dispute?: DisputeFacts;
}

/** What a dispute's notification says of it (docs/disputes.md). */
export interface DisputeFacts {
  /** The stage it moves the dispute to; undefined: an entry of its timeline only (a defense period ended, the issuer's comments). */
  stage: DisputeStage | undefined;
  /** The scheme's reason code (Adyen's `chargebackReasonCode`, or the request for information's). */
  reasonCode: string | undefined;
  /** The card scheme (Adyen's `chargebackSchemeCode`). */
  schemeCode: string | undefined;
  /** Until when the merchant may defend it, as the acquirer wrote it (ISO 8601). */
  defensePeriodEndsAt: string | undefined;
}

/**
 * What an acquirer's notification tells, in Kassa's words (docs/acquirers.md "Notifications"); what
 * each does is payments/operations/settle-by-acquirer.ts:
 * - `authorisation`, `capture`, `refund`, `reversal`: the outcome of what Kassa asked;
 * - `captureFailed`, `refundFailed`: a capture or refund the acquirer had taken failed (possibly after it said done);
 * - `refundReversed`: a refund that was done came back to the merchant;
 * - `authorisationExpired`: an authorisation's held amount was released without a capture;
 * - `cancelled`: the outcome of a cancel by Kassa's own reference (the technical cancel of an unknown authorisation);
 * - `offerClosed`: a payment the customer never finished at the method was closed by the acquirer;
 * - `dispute`: a chargeback's stage, or an entry of its timeline (payments/follow-ups/disputes.ts, docs/disputes.md);
 * - `notice`: something that changes nothing for the payment (a report, a review, a payout), kept on its timeline;
 * - `unknown`: an event the connector does not know; it changes nothing and is logged.
 */
export type AcquirerEvent =
  | 'authorisation'
  | 'capture'
  | 'refund'
  | 'reversal'
  | 'captureFailed'
  | 'refundFailed'
  | 'refundReversed'
  | 'authorisationExpired'
  | 'cancelled'
  | 'offerClosed'
  | 'dispute'
  | 'notice'
  | 'unknown';

/** A notification as it arrived. */
export interface ReceivedNotification {
  /** The body's bytes as the acquirer sent them (what a signature over the whole body covers); empty without a body. */
  raw: Buffer;
  /** The body as the API's JSON parser read it (api/json-body.ts), or undefined when it was not sent as JSON. */
  json: unknown;
  headers: IncomingHttpHeaders;
}

/** The connections (their credentials opened) of one account at this connector in one mode: whose notification an item may be. */
export type ConnectionsOf = (account: string, mode: Mode) => Promise<AcquirerConnection[]>;

export interface NotificationRead {
  /** The items signed for one of their connections, in the order they came. */
  words: AcquirerWord[];
  /** How many items no connection signed: they change nothing, and are logged by count, never by content. */
  forged: number;
  /** What the acquirer expects back once every word is recorded. */
  answer: { contentType: string; body: string };
}

/** Reads one connector's notification; throws a 400 Problem for a body that is not one. */
export type NotificationReader = (received: ReceivedNotification, connectionsOf: ConnectionsOf) => Promise<NotificationRead>;
