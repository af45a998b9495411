/**
 * What operations reach beyond the payment itself (their `act` stage, docs/architecture.md#ports-and-adapters),
 * built once per store: the store, acquirers (each merchant's connection per mode, else the
 * simulator in test mode), Kassa's 3DS Server with its Directory Server port (the simulator
 * in test mode), the ACS simulator, the card sealer and the vault.
 */
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { Mode, TransactionRow } from '../store/schema.ts';
import { ownerOf } from '../store/transactions.ts';
import { Acquirers } from '../acquirer/select.ts';
import { AcsSimulator } from '../threeds/acs-simulator.ts';
import { SimulatedDirectoryServer } from '../threeds/ds-simulator.ts';
import { ThreeDSServer } from '../threeds/server.ts';
import { AcquirerThreeDS } from '../threeds/by-acquirer.ts';
import type { DirectoryServer } from '../threeds/directory.ts';
import { CardSealer } from './card-seal.ts';
import { flowOf } from './flows.ts';
import type { PaymentLinks } from './serialize.ts';
import { Vault } from '../vault/vault.ts';
import { loadVaultKeyring } from '../vault/keys.ts';

export interface Ports {
  config: Config;
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

const built = new WeakMap<Store, Ports>();

export function paymentPorts(config: Config, store: Store): Ports {
  let processing = built.get(store);
  if (processing) return processing;
  let threeDS: ThreeDSServer | undefined;
  // The simulated ACS answers Kassa's 3DS Server directly (a real ACS goes through the DS).
  const acs = new AcsSimulator(store, async (rreq) => void (await threeDS!.receiveResults(rreq)));
  const simulatedDirectory = new SimulatedDirectoryServer(acs, config.publicUrl);
  const directoryFor = (mode: Mode): DirectoryServer | undefined => (mode === 'test' ? simulatedDirectory : undefined);
  threeDS = new ThreeDSServer(store, directoryFor, config.publicUrl);
  processing = {
    config,
    store,
    acquirers: new Acquirers(store, { timeoutMs: config.acquirerTimeoutMs }),
    threeDS,
    acquirerThreeDS: new AcquirerThreeDS(store),
    acs,
    sealer: new CardSealer(config.cardSealKey),
    vault: new Vault(store, loadVaultKeyring(config)),
    links: { publicUrl: config.publicUrl, secrets: store.secrets },
  };
  built.set(store, processing);
  return processing;
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
