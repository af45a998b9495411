/**
 * SSRF guard for live-mode webhooks (DESIGN §3): the URL must be https and the
 * address actually connected to must be a public unicast one. Names are checked
 * inside the socket's own DNS lookup, so the address checked is the address used
 * (no gap for DNS rebinding); literal addresses are checked before any socket exists.
 * Test mode is not guarded: merchants test against localhost and private networks.
 */
import dns from 'node:dns';
import net from 'node:net';

/** Address ranges a live webhook may never reach (IANA special-purpose registries), as data. */
export const forbiddenRanges: readonly (readonly [cidr: string, why: string])[] = [
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/96', 'loopback, unspecified or IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const blocks = forbiddenRanges.map(([cidr, why]) => {
  const [network, bits] = cidr.split('/');
  const list = new net.BlockList();
  list.addSubnet(network, Number(bits), net.isIPv6(network) ? 'ipv6' : 'ipv4');
  return { list, why };
});

/** Why `address` may not be reached by a live webhook, or undefined when it may. IPv4-mapped IPv6 counts as its IPv4 address. */
export function forbiddenAddress(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  return blocks.find(({ list }) => list.check(address, type))?.why;
}

/** A refused destination: recorded on the attempt, never connected to. */
export class RefusedDestination extends Error {
  override name = 'RefusedDestination';
}

/** Checks a live webhook URL before any connection: scheme, and the host when it is a literal address. */
export function checkLiveUrl(url: URL): void {
  if (url.protocol !== 'https:') throw new RefusedDestination(`live webhooks must use https, not ${url.protocol.replace(':', '')}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host)) {
    const why = forbiddenAddress(host);
    if (why) throw new RefusedDestination(`${host} is a ${why} address`);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
export type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A `lookup` for the live agent's sockets: resolves every address of the name and
 * refuses the connection when any of them is forbidden, so a name cannot mix a public
 * address with an internal one. `resolve` is replaceable for tests.
 */
export function guardedLookup(resolve: Resolver = dns.lookup as Resolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find(({ address }) => forbiddenAddress(address));
      if (bad) return callback(new RefusedDestination(`${hostname} resolves to ${bad.address}, a ${forbiddenAddress(bad.address)} address`), []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
