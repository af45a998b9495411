/**
 * The live-mode SSRF guard (DESIGN §3 "Webhooks"). Nothing here sends a packet beyond 127.0.0.1:
 * private and link-local addresses are refused by pure checks (`checkLiveUrl`, the
 * guarded lookup with a stand-in resolver); the end-to-end refusals aim only at
 * loopback, where a listening socket proves that no connection was made.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type dns from 'node:dns';
import type { AddressInfo } from 'node:net';
import { checkLiveUrl, forbiddenAddress, guardedLookup, type Resolver } from '../../src/events/ssrf.ts';
import { WebhookSender } from '../../src/events/sender.ts';
import { signWebhook, secretKey } from '../../src/events/signing.ts';
import { newWebhookSecret } from '../../src/lib/tokens.ts';

const addressCases: [address: string, why: string | undefined][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'shared address space (CGNAT)'],
  ['0.0.0.0', 'this-network'],
  ['224.0.0.251', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['198.18.0.1', 'benchmarking'],
  ['::1', 'loopback, unspecified or IPv4-compatible'],
  ['::', 'loopback, unspecified or IPv4-compatible'],
  ['fe80::1', 'link-local'],
  ['fd12:3456::1', 'unique local (private)'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['64:ff9b::a00:1', 'NAT64'],
  ['2001:db8::1', 'documentation'],
  ['93.184.215.14', undefined],
  ['8.8.8.8', undefined],
  ['172.32.0.1', undefined],
  ['2606:4700:4700::1111', undefined],
  ['::ffff:8.8.8.8', undefined],
];
for (const [address, why] of addressCases) {
  test(`${address} is ${why ? `refused (${why})` : 'allowed'} for live webhooks`, () => {
    assert.equal(forbiddenAddress(address), why);
  });
}

const urlCases: [url: string, refusal: RegExp | undefined][] = [
  ['http://shop.example/hook', /must use https, not http/],
  ['https://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
  ['https://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
  ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local address/],
  ['https://[::1]:8443/hook', /::1 is a loopback, unspecified or IPv4-compatible address/],
  ['https://[fe80::1]/hook', /link-local/],
  ['https://shop.example/hook', undefined],
  ['https://93.184.215.14/hook', undefined],
];
for (const [url, refusal] of urlCases) {
  test(`live URL ${url} is ${refusal ? 'refused before any connection' : 'left to the connect-time check'}`, () => {
    if (refusal) assert.throws(() => checkLiveUrl(new URL(url)), refusal);
    else assert.doesNotThrow(() => checkLiveUrl(new URL(url)));
  });
}

/** A stand-in DNS: names map to fixed addresses, nothing is asked of a real resolver. */
const fakeDns =
  (table: Record<string, string[]>): Resolver =>
  (hostname, _options, callback) => {
    const addresses = table[hostname];
    if (!addresses) return callback(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 })),
    );
  };

function lookup(resolve: Resolver, hostname: string, options: dns.LookupOptions) {
  return new Promise<{ error: Error | null; address: unknown; family?: number }>((done) =>
    guardedLookup(resolve)(hostname, options, (error, address, family) => done({ error, address, family })),
  );
}

test('the guarded lookup refuses a name with any forbidden address, and passes a public one through', async () => {
  const resolve = fakeDns({
    'internal.example': ['10.0.0.7'],
    'metadata.example': ['169.254.169.254'],
    'rebind.example': ['93.184.215.14', '127.0.0.1'],
    'public.example': ['93.184.215.14'],
  });
  assert.match((await lookup(resolve, 'internal.example', {})).error?.message ?? '', /internal\.example resolves to 10\.0\.0\.7, a private address/);
  assert.match((await lookup(resolve, 'metadata.example', { all: true })).error?.message ?? '', /link-local/);
  assert.match((await lookup(resolve, 'rebind.example', {})).error?.message ?? '', /resolves to 127\.0\.0\.1, a loopback address/);
  assert.deepEqual(await lookup(resolve, 'public.example', {}), { error: null, address: '93.184.215.14', family: 4 });
  assert.deepEqual((await lookup(resolve, 'public.example', { all: true })).address, [{ address: '93.184.215.14', family: 4 }]);
});

describe('live-mode sends to loopback are refused without a connection', () => {
  let server: net.Server;
  let port: number;
  let connections = 0;
  const sender = new WebhookSender({ timeoutMs: 2000, maxSockets: 4, resolve: fakeDns({ 'shop.example': ['127.0.0.1'], localhost: ['127.0.0.1', '::1'] }) });
  const realDnsSender = new WebhookSender({ timeoutMs: 2000, maxSockets: 4 });
  const body = '{"id":"tr_x"}';
  const headers = signWebhook(secretKey(newWebhookSecret()), 'msg_x', Date.now(), body);

  before(async () => {
    server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    sender.close();
    realDnsSender.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const cases: [what: string, url: () => string, refusal: RegExp, via?: () => WebhookSender][] = [
    ['plain http', () => `http://127.0.0.1:${port}/hook`, /^refused: live webhooks must use https, not http$/],
    ['a loopback address', () => `https://127.0.0.1:${port}/hook`, /^refused: 127\.0\.0\.1 is a loopback address$/],
    ['the IPv6 loopback', () => `https://[::1]:${port}/hook`, /^refused: ::1 is a/],
    ['a name resolving to loopback', () => `https://shop.example:${port}/hook`, /^refused: shop\.example resolves to 127\.0\.0\.1, a loopback address$/],
    [
      'localhost through the real resolver',
      () => `https://localhost:${port}/hook`,
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a .*loopback/,
      () => realDnsSender,
    ],
  ];
  for (const [what, url, refusal, via] of cases) {
    test(what, async () => {
      const result = await (via?.() ?? sender).send(url(), 'live', headers, body);
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, null);
      assert.match(result.error ?? '', refusal);
      assert.equal(connections, 0);
    });
  }

  test('test mode is not guarded: the same loopback address is connected to', async () => {
    const result = await sender.send(`http://127.0.0.1:${port}/hook`, 'test', headers, body);
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /socket hang up|connection reset/);
    assert.equal(connections, 1);
  });
});
