/**
 * What operations reach beyond the payment itself (their `act` stage, docs/architecture.md#ports-and-adapters),
 * built once per process where it starts (main.ts, cli/kassa.ts; server.ts puts them on the Fastify
 * instance for the route plugins): the store, acquirers (each merchant's connection per mode, else the
 * simulator in test mode), Kassa's 3DS Server with its Directory Server port (the simulator
 * in test mode), the ACS simulator, the card sealer and the vault. Each part is given only the
 * settings it reads, and the operations theirs (`OperationSettings`), never the whole Config.
 */
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { Mode, TransactionRow } from '../store/schema.ts';
import { ownerOf } from '../store/transactions.ts';
import { Problem } from '../ground/problem.ts';
import { methods } from '../ground/payment-method.ts';
import { expresses, takes } from '../acquirer/connector.ts';
import { Acquirers } from '../acquirer/select.ts';
import { AcsSimulator } from '../threeds/acs-simulator.ts';
import { SimulatedDirectoryServer } from '../threeds/ds-simulator.ts';
import { ThreeDSServer } from '../threeds/server.ts';
import { AcquirerThreeDS } from '../threeds/by-acquirer.ts';
import type { DirectoryServer } from '../threeds/directory.ts';
import { CardSealer } from './card/card-seal.ts';
import { flowOf } from './flows.ts';
import type { PaymentLinks } from './serialize.ts';
import type { PaymentRequest } from './requests/payment-request.ts';
import { Vault } from '../vault/vault.ts';
import { loadVaultKeyring, type KeySettings } from '../vault/keys.ts';

/**
 * The settings operations read (`ports.settings`): default expiry, refund windows, the acquirer
 * recovery lease and retry, the wallet keys, and the rules a request's webhookUrl and returnUrl are
 * checked by (operations/fields.ts).
 */
export type OperationSettings = Pick<
  Config,
  'paymentExpiry' | 'paymentExpiryMs' | 'refundWindows' | 'acquirerRecoveryAfterMs' | 'acquirerRecoveryIntervalMs' | 'wallet' | 'webhooks' | 'returnUrlSchemes'
>;

/**
 * What building the ports reads: the operations' settings, and the adapters' own: PUBLIC_URL (the
 * addresses handed out, the 3DS Server's and simulated Directory Server's), the acquirers' timeout,
 * the card-sealing key and the vault's keys (vault/keys.ts).
 */
export type PortSettings = OperationSettings & Pick<Config, 'publicUrl' | 'acquirerTimeoutMs' | 'cardSealKey'> & KeySettings;

export interface Ports {
  settings: OperationSettings;
  store: Store;
  acquirers: Acquirers;
  threeDS: ThreeDSServer;
  /** 3-D Secure by the acquirer, when the merchant's connector authenticates (threeds/by-acquirer.ts). */
  acquirerThreeDS: AcquirerThreeDS;
  acs: AcsSimulator;
  sealer: CardSealer;
  vault: Vault;
  /** What the payment object's addresses are built from (serialize.ts). */
  links: PaymentLinks;
}

/**
 * Builds the ports on an open store. Once per process: the simulators keep what they answered in
 * memory, so the server and the workers of one process share one set (main.ts).
 */
export function buildPorts(settings: PortSettings, store: Store): Ports {
  let threeDS: ThreeDSServer | undefined;
  // The simulated ACS answers Kassa's 3DS Server directly (a real ACS goes through the DS).
  const acs = new AcsSimulator(store, async (rreq) => void (await threeDS!.receiveResults(rreq)));
  const simulatedDirectory = new SimulatedDirectoryServer(acs, settings.publicUrl);
  const directoryFor = (mode: Mode): DirectoryServer | undefined => (mode === 'test' ? simulatedDirectory : undefined);
  threeDS = new ThreeDSServer(store, directoryFor, settings.publicUrl);
  const { paymentExpiry, paymentExpiryMs, refundWindows, acquirerRecoveryAfterMs, acquirerRecoveryIntervalMs, wallet, webhooks, returnUrlSchemes } = settings;
  return {
    settings: { paymentExpiry, paymentExpiryMs, refundWindows, acquirerRecoveryAfterMs, acquirerRecoveryIntervalMs, wallet, webhooks, returnUrlSchemes },
    store,
    acquirers: new Acquirers(store, { timeoutMs: settings.acquirerTimeoutMs }),
    threeDS,
    acquirerThreeDS: new AcquirerThreeDS(store),
    acs,
    sealer: new CardSealer(settings.cardSealKey),
    vault: new Vault(store, loadVaultKeyring(settings)),
    links: { publicUrl: settings.publicUrl, secrets: store.secrets },
  };
}

/**
 * Whether the payment's merchant takes cards in its mode now: the card form authenticates the
 * cardholder first and then authorises (the merchant's acquirer). Authentication is Kassa's own
 * 3DS Server where the mode has one (test: the simulator), else the acquirer's when its connector
 * authenticates — for payments: an enrollment moves no money, so there is no authorisation for
 * the acquirer to authenticate.
 */
export async function cardsTaken(ports: Ports, row: Pick<TransactionRow, 'merchant_id' | 'mode' | 'flow'>): Promise<boolean> {
  const acquirer = await ports.acquirers.find(ownerOf(row));
  if (!acquirer) return false;
  return ports.threeDS.available(row.mode) || (!!acquirer.authentication && flowOf(row.flow).threeDS.operation === 'payment');
}

/**
 * A payment its acquirer would refuse is refused at creation (docs/api.md#create-a-payment),
 * whichever operation creates it (on a page, or off-session): a method the acquirer does not take
 * (`/method`), a currency it does not take the method in, or an amount its own units cannot carry
 * exactly (Adyen's CVE has no cents: docs/acquirers.md "Amounts"). A method paid elsewhere needs
 * an acquirer (503 without one); a card payment without one is still created, its page saying
 * cards are unavailable (docs/acquirers.md). A landing page (no instrument of its own) offers only
 * what the acquirer takes (choose-method.ts).
 */
export async function refuseWhatTheAcquirerWouldRefuse(ports: Ports, caller: { merchantId: string; mode: Mode }, request: PaymentRequest): Promise<void> {
  const { method, amountMinor } = request;
  const { instrument } = methods[method];
  const acquirer = instrument === 'redirect' ? await ports.acquirers.for(caller) : instrument === 'card' ? await ports.acquirers.find(caller) : undefined;
  if (!acquirer) return;
  const currency = request.currency.code;
  const by = `this merchant's ${caller.mode} acquirer (${acquirer.name})`;
  if (!acquirer.serves.methods.includes(method)) {
    throw new Problem('validationFailed', { errors: [{ field: '/method', code: 'not_served', message: `is not taken in ${currency.toUpperCase()} by ${by}` }] });
  }
  if (!takes(acquirer.serves, method, currency))
    throw new Problem('validationFailed', { errors: [{ field: '/currency', code: 'not_served', message: `is not taken by ${by}` }] });
  if (!expresses(acquirer.serves, amountMinor, currency)) {
    throw new Problem('validationFailed', {
      errors: [{ field: '/amount', code: 'not_served', message: `has more decimals than ${by} takes in ${currency.toUpperCase()}` }],
    });
  }
}
