/**
 * SSRF guard for webhooks (docs/webhooks.md#where-webhooks-go). In
 * every mode a webhook never reaches a link-local, cloud-metadata or other special-purpose
 * address. Live webhooks use https and reach public unicast addresses only; test webhooks use
 * http or https and may also reach loopback and private networks where the operator allows it
 * (WEBHOOK_TEST_PRIVATE_NETWORKS, on by default so the quickstart's local receiver works), since
 * test keys are handed around more freely than live ones. Names are checked inside the socket's
 * own DNS lookup, so the address checked is the address used (no gap for DNS rebinding); literal
 * addresses are checked before any socket exists.
 */
import dns from 'node:dns';
import net from 'node:net';
import type { Mode } from '../store/schema.ts';
import type { WebhookSettings } from './settings.ts';

/**
 * Address ranges webhooks may not reach (IANA special-purpose registries, cloud metadata
 * services), as data. `internal` marks loopback and private networks, which test-mode webhooks
 * reach where the operator allows it; every other range is refused in every mode. The first
 * match decides: the metadata services inside a private range come before it.
 */
export const forbiddenRanges: readonly (readonly [cidr: string, why: string, kind?: 'internal'])[] = [
  ['100.100.100.200/32', 'cloud metadata (Alibaba Cloud)'],
  ['fd00:ec2::/32', 'cloud metadata (AWS)'],
  ['168.63.129.16/32', 'cloud platform (Azure)'],
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private', 'internal'],
  ['100.64.0.0/10', 'shared address space (CGNAT)', 'internal'],
  ['127.0.0.0/8', 'loopback', 'internal'],
  // 169.254.169.254 is the metadata service of AWS, Google Cloud, Azure and OpenStack.
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private', 'internal'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay'],
  ['192.168.0.0/16', 'private', 'internal'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::1/128', 'loopback', 'internal'],
  ['::/96', 'unspecified or IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique local (private)', 'internal'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const blocks = forbiddenRanges.map(([cidr, why, kind]) => {
  const [network, bits] = cidr.split('/');
  const list = new net.BlockList();
  list.addSubnet(network, Number(bits), net.isIPv6(network) ? 'ipv6' : 'ipv4');
  return { list, why, internal: kind === 'internal' };
});

/** Where the webhooks of one mode may go. */
export interface Reach {
  /** Only https URLs (live mode). */
  httpsOnly: boolean;
  /** Loopback and private networks too (test mode, where the operator allows it). */
  internal: boolean;
}

/** Where webhooks of `mode` may go under the operator's settings. */
export function webhookReach(mode: Mode, settings: Pick<WebhookSettings, 'testPrivateNetworks'>): Reach {
  return mode === 'live' ? { httpsOnly: true, internal: false } : { httpsOnly: false, internal: settings.testPrivateNetworks };
}

/** The most any webhook may reach, whatever its mode and the settings: what is refused here is refused everywhere. */
export const widestReach: Reach = { httpsOnly: false, internal: true };

/** Why `address` may not be reached by a webhook of `reach`, or undefined when it may. IPv4-mapped IPv6 counts as its IPv4 address. */
export function forbiddenAddress(address: string, reach: Reach): string | undefined {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const block = blocks.find(({ list }) => list.check(address, type));
  return block && !(block.internal && reach.internal) ? block.why : undefined;
}

/** A refused destination: recorded on the attempt, never connected to. */
export class RefusedDestination extends Error {
  override name = 'RefusedDestination';
}

/** Why a webhook of `reach` may not go to `url`, checked before any connection (the scheme, and the host when it is a literal address), or undefined. */
export function whyRefused(url: URL, reach: Reach): string | undefined {
  const scheme = url.protocol.replace(':', '');
  if (reach.httpsOnly && scheme !== 'https') return `live webhooks must use https, not ${scheme}`;
  if (scheme !== 'https' && scheme !== 'http') return `webhooks use http(s), not ${scheme}`;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const why = net.isIP(host) ? forbiddenAddress(host, reach) : undefined;
  return why && `${host} is a ${why} address`;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
export type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A `lookup` for the sockets of webhooks of `reach`: resolves every address of the name and
 * refuses the connection when any of them is forbidden, so a name cannot mix a public
 * address with an internal one. `resolve` is replaceable for tests.
 */
export function guardedLookup(reach: Reach, resolve: Resolver = dns.lookup as Resolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find(({ address }) => forbiddenAddress(address, reach));
      if (bad) return callback(new RefusedDestination(`${hostname} resolves to ${bad.address}, a ${forbiddenAddress(bad.address, reach)} address`), []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
