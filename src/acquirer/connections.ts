/**
 * Setting a merchant's acquirer connection for one mode (`kassa acquirer set`, docs/acquirers.md):
 * the connector and what it needs, checked before anything is stored — a known connector, an
 * https endpoint, the account, and the credentials it signs and authenticates with. The
 * credentials are sealed at rest and never shown again (`kassa acquirer show` leaves them out).
 */
import type { Store } from '../store/store.ts';
import type { Mode } from '../store/schema.ts';
import { findMerchant } from '../store/merchants.ts';
import { listAcquirerConnections, saveAcquirerConnection, type AcquirerConnection, type AcquirerEndpoints } from '../store/acquirer-connections.ts';
import { Problem } from '../ground/problem.ts';
import { connectors } from './select.ts';

export interface ConnectionInput {
  merchantId: string;
  mode: Mode;
  connector: string;
  endpoint: string;
  /** The acquirer's other API roots (`--checkout-endpoint`, `--disputes-endpoint`), each checked as `endpoint` is. */
  endpoints?: AcquirerEndpoints;
  account: string;
  /** As read from standard input: one JSON object. */
  secretsJson: string;
}

/** What each connector's credentials must hold. */
const requiredSecrets: Record<string, Record<string, (value: string) => boolean>> = {
  adyen: { apiKey: (value) => value.length > 0, hmacKey: (value) => /^([0-9a-f]{2}){16,}$/i.test(value) },
};

export async function setAcquirerConnection(store: Store, input: ConnectionInput, now: number): Promise<Omit<AcquirerConnection, 'secrets'>> {
  if (!connectors[input.connector]) throw new Problem('invalidSetting', `--connector must be one of ${Object.keys(connectors).join(', ')}`);
  if (!(await findMerchant(store.read, input.merchantId))) throw new Problem('invalidSetting', `no merchant ${input.merchantId}`);
  const endpoint = apiRoot(input.endpoint, '--endpoint');
  const endpoints: AcquirerEndpoints = {};
  for (const [api, root] of Object.entries(input.endpoints ?? {}) as [keyof AcquirerEndpoints, string | undefined][]) {
    if (root !== undefined) endpoints[api] = apiRoot(root, `--${api}-endpoint`);
  }
  if (!input.account.trim()) throw new Problem('invalidSetting', '--merchant-account must not be empty');
  let secrets: unknown;
  try {
    secrets = JSON.parse(input.secretsJson);
  } catch {
    throw new Problem('invalidSetting', 'standard input must be one JSON object with the credentials');
  }
  if (typeof secrets !== 'object' || secrets === null || Array.isArray(secrets))
    throw new Problem('invalidSetting', 'standard input must be one JSON object with the credentials');
  const given = secrets as Record<string, unknown>;
  for (const [name, valid] of Object.entries(requiredSecrets[input.connector])) {
    if (typeof given[name] !== 'string' || !valid(given[name])) throw new Problem('invalidSetting', `the credentials must have a valid "${name}" (docs/acquirers.md)`);
  }
  const connection = {
    merchantId: input.merchantId,
    mode: input.mode,
    connector: input.connector,
    endpoint,
    endpoints,
    account: input.account.trim(),
    secrets: Object.fromEntries(Object.keys(requiredSecrets[input.connector]).map((name) => [name, given[name] as string])),
    updated: now,
  };
  await store.transact((db) => saveAcquirerConnection(db, store.secrets, connection));
  const { secrets: _hidden, ...shown } = connection;
  return shown;
}

/** An API root as stored: a URL without its trailing slash; https, as card data goes there, except to this machine (a local acquirer stand-in). */
function apiRoot(given: string, option: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new Problem('invalidSetting', `${option} must be a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))) {
    throw new Problem('invalidSetting', `${option} must be an https URL`);
  }
  return url.href.replace(/\/$/, '');
}

/** A merchant's connections, without their credentials. */
export async function showAcquirerConnections(store: Store, merchantId: string): Promise<Omit<AcquirerConnection, 'secrets'>[]> {
  if (!(await findMerchant(store.read, merchantId))) throw new Problem('invalidSetting', `no merchant ${merchantId}`);
  return (await listAcquirerConnections(store.read, store.secrets, merchantId)).map(({ secrets: _hidden, ...shown }) => shown);
}
