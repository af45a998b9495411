/**
 * Which acquirer a payment goes to (docs/acquirers.md): the merchant's connection for the
 * payment's mode (`kassa acquirer set`), else in test mode the simulator. Live keys never reach
 * the simulator; a live payment of a merchant with no live connection is refused with a clear
 * error. Connections are read from the store and kept a short while, so a change made with
 * the command line reaches every process within `CONNECTION_CACHE_MS`.
 */
import { Problem } from '../ground/problem.ts';
import type { Mode } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { findAcquirerConnection, type AcquirerConnection } from '../store/acquirer-connections.ts';
import type { AcquirerConnector } from './connector.ts';
import { SimulatedAcquirer } from './simulator.ts';
import { AdyenConnector } from './adyen.ts';
import { observed } from './observed.ts';
import type { NotificationReader } from './notifications.ts';
import { readAdyenNotification } from './adyen-notifications.ts';
import { AdyenDisputes } from './adyen-disputes.ts';
import { SIMULATED_DISPUTES, simulatedDisputes, type DisputeService } from './dispute-service.ts';

/** The connectors a connection may name, each made from the connection's settings and credentials. */
export const connectors: Record<string, (connection: AcquirerConnection, options: { timeoutMs: number }) => AcquirerConnector> = {
  adyen: (connection, { timeoutMs }) =>
    new AdyenConnector({
      endpoint: connection.endpoint,
      ...(connection.endpoints.checkout ? { checkoutEndpoint: connection.endpoints.checkout } : {}),
      merchantAccount: connection.account,
      apiKey: connection.secrets.apiKey ?? '',
      timeoutMs,
    }),
};

/**
 * Who accepts or defends a dispute at each connector that can (docs/disputes.md "Accepting and
 * defending"): Adyen's Disputes API, once the connection names its root (`--disputes-endpoint`).
 */
export const disputeServices: Record<string, (connection: AcquirerConnection, options: { timeoutMs: number }) => DisputeService | undefined> = {
  adyen: (connection, { timeoutMs }) =>
    connection.endpoints.disputes
      ? new AdyenDisputes({ endpoint: connection.endpoints.disputes, merchantAccount: connection.account, apiKey: connection.secrets.apiKey ?? '', timeoutMs })
      : undefined,
};

/**
 * How each connector's notifications are read, by the name in their address
 * (`PUBLIC_URL/acquirer/<connector>/notifications`, docs/acquirers.md "Notifications"). The
 * simulator sends none.
 */
export const notificationReaders: Record<string, NotificationReader> = {
  adyen: readAdyenNotification,
};

/** The reader of the connector named in a notification's address, or undefined for a name that reads none. */
export const notificationReaderOf = (connector: string): NotificationReader | undefined =>
  Object.hasOwn(notificationReaders, connector) ? notificationReaders[connector] : undefined;

const CONNECTION_CACHE_MS = 5_000;

export class AcquirerUnavailable extends Problem {
  constructor() {
    super(
      'noAcquirer',
      'Live payments need an acquirer connection, and this merchant has none for live mode (`kassa acquirer set`, docs/acquirers.md). Test keys use the built-in simulator.',
    );
  }
}

interface Owner {
  merchantId: string;
  mode: Mode;
}

export class Acquirers {
  readonly simulator = new SimulatedAcquirer();
  /** What payments use: the connectors, timed and counted (observed.ts). */
  private readonly test = observed(this.simulator);
  private readonly cache = new Map<string, { connector: AcquirerConnector | undefined; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly options: { timeoutMs: number },
  ) {}

  /** The owner's acquirer, or undefined when it has none (live without a connection). */
  async find(owner: Owner): Promise<AcquirerConnector | undefined> {
    const key = `${owner.merchantId}:${owner.mode}`;
    const now = Date.now();
    const cached = this.cache.get(key);
    if (cached && cached.until > now) return cached.connector;
    const connection = await findAcquirerConnection(this.store.read, this.store.secrets, owner);
    const make = connection && connectors[connection.connector];
    const connector = make ? observed(make(connection, this.options)) : owner.mode === 'test' && !connection ? this.test : undefined;
    this.cache.set(key, { connector, until: now + CONNECTION_CACHE_MS });
    return connector;
  }

  /** Whether the owner's payments go to the simulator (test mode without a connection of its own): only then may a simulated page decide them. */
  async simulated(owner: Owner): Promise<boolean> {
    return (await this.find(owner)) === this.test;
  }

  /** Whether payments of the owner can be authorised at all. */
  async available(owner: Owner): Promise<boolean> {
    return (await this.find(owner)) !== undefined;
  }

  /**
   * What accepts or defends the owner's dispute told of by `connector`: the simulator's for the test
   * helper's disputes, else the owner's connection to that connector, when it can; undefined otherwise.
   */
  async disputes(owner: Owner, connector: string): Promise<DisputeService | undefined> {
    if (connector === SIMULATED_DISPUTES) return simulatedDisputes;
    const connection = await findAcquirerConnection(this.store.read, this.store.secrets, owner);
    if (!connection || connection.connector !== connector || !Object.hasOwn(disputeServices, connector)) return undefined;
    return disputeServices[connector](connection, this.options);
  }

  /** The owner's acquirer, or the 503 saying there is none. */
  async for(owner: Owner): Promise<AcquirerConnector> {
    const connector = await this.find(owner);
    if (!connector) throw new AcquirerUnavailable();
    return connector;
  }
}
