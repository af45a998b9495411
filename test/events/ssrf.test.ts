/**
 * The webhook SSRF guard (docs/webhooks.md#where-webhooks-go), in both
 * modes, at create time and at connect time. Nothing here sends a packet beyond 127.0.0.1:
 * link-local, metadata and private addresses are refused by pure checks (`whyRefused`, the
 * guarded lookup with a stand-in resolver) before any socket exists; the end-to-end refusals
 * aim only at loopback, where a listening socket proves that no connection was made.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type dns from 'node:dns';
import type { AddressInfo } from 'node:net';
import { forbiddenAddress, guardedLookup, webhookReach, whyRefused, type Reach, type Resolver } from '../../src/events/ssrf.ts';
import { WebhookSender } from '../../src/events/sender.ts';
import { WebhookWorker } from '../../src/events/worker.ts';
import { setWebhookUrl } from '../../src/events/admin.ts';
import { loadWebhookSettings } from '../../src/events/settings.ts';
import { signWebhook, secretKey } from '../../src/events/signing.ts';
import { newWebhookSecret } from '../../src/lib/tokens.ts';
import { cardPayment, suiteApp } from '../support/app.ts';
import { attemptsFor, completePayment, deliveriesFor, fastWorkerOptions, insertPendingPayment, waitFor } from './support.ts';

const live = webhookReach('live', { testPrivateNetworks: true });
const testOpen = webhookReach('test', { testPrivateNetworks: true });
const testClosed = webhookReach('test', { testPrivateNetworks: false });

/** A loopback server counting the connections it gets: a refusal must leave it at zero. */
async function listener() {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test('WEBHOOK_TEST_PRIVATE_NETWORKS is on unless the operator turns it off', () => {
  assert.equal(loadWebhookSettings({}).testPrivateNetworks, true);
  assert.equal(loadWebhookSettings({ WEBHOOK_TEST_PRIVATE_NETWORKS: 'false' }).testPrivateNetworks, false);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_TEST_PRIVATE_NETWORKS: 'sometimes' }), /WEBHOOK_TEST_PRIVATE_NETWORKS must be true or false/);
});

// [address, why it is refused in live mode, whether test mode may reach it where private networks are allowed]
const addressCases: [address: string, why: string | undefined, internal: boolean][] = [
  ['127.0.0.1', 'loopback', true],
  ['127.255.0.9', 'loopback', true],
  ['10.0.0.1', 'private', true],
  ['172.16.5.4', 'private', true],
  ['172.31.255.255', 'private', true],
  ['192.168.1.1', 'private', true],
  ['100.64.0.1', 'shared address space (CGNAT)', true],
  ['::1', 'loopback', true],
  ['fd12:3456::1', 'unique local (private)', true],
  ['::ffff:127.0.0.1', 'loopback', true],
  ['::ffff:10.1.2.3', 'private', true],
  ['169.254.169.254', 'link-local', false],
  ['169.254.170.2', 'link-local', false],
  ['::ffff:169.254.169.254', 'link-local', false],
  ['fe80::1', 'link-local', false],
  ['100.100.100.200', 'cloud metadata (Alibaba Cloud)', false],
  ['fd00:ec2::254', 'cloud metadata (AWS)', false],
  ['168.63.129.16', 'cloud platform (Azure)', false],
  ['0.0.0.0', 'this-network', false],
  ['::', 'unspecified or IPv4-compatible', false],
  ['224.0.0.251', 'multicast', false],
  ['255.255.255.255', 'reserved', false],
  ['198.18.0.1', 'benchmarking', false],
  ['ff02::1', 'multicast', false],
  ['64:ff9b::a9fe:a9fe', 'NAT64', false],
  ['2001:db8::1', 'documentation', false],
  ['93.184.215.14', undefined, false],
  ['8.8.8.8', undefined, false],
  ['172.32.0.1', undefined, false],
  ['2606:4700:4700::1111', undefined, false],
  ['::ffff:8.8.8.8', undefined, false],
];
for (const [address, why, internal] of addressCases) {
  const where = !why ? 'allowed everywhere' : internal ? `refused (${why}) unless test mode allows private networks` : `refused (${why}) in every mode`;
  test(`${address} is ${where}`, () => {
    assert.equal(forbiddenAddress(address, live), why);
    assert.equal(forbiddenAddress(address, testClosed), why);
    assert.equal(forbiddenAddress(address, testOpen), internal ? undefined : why);
  });
}

// [url, refusal in live mode, in test mode with private networks, in test mode without]
const urlCases: [url: string, live: RegExp | undefined, testOpen: RegExp | undefined, testClosed: RegExp | undefined][] = [
  ['http://shop.example/hook', /^live webhooks must use https, not http$/, undefined, undefined],
  ['ftp://shop.example/hook', /must use https, not ftp/, /^webhooks use http\(s\), not ftp$/, /not ftp/],
  ['https://shop.example/hook', undefined, undefined, undefined],
  ['https://93.184.215.14/hook', undefined, undefined, undefined],
  ['https://127.0.0.1/hook', /^127\.0\.0\.1 is a loopback address$/, undefined, /^127\.0\.0\.1 is a loopback address$/],
  ['http://10.0.0.1:8080/hook', /must use https/, undefined, /^10\.0\.0\.1 is a private address$/],
  ['https://[::1]:8443/hook', /^::1 is a loopback address$/, undefined, /^::1 is a loopback address$/],
  ['http://169.254.169.254/latest/meta-data/', /must use https/, /^169\.254\.169\.254 is a link-local address$/, /link-local/],
  ['https://169.254.169.254/latest/meta-data/', /link-local/, /link-local/, /link-local/],
  // The URL parser's spellings of the same address: decimal, hexadecimal, IPv4-mapped IPv6.
  ['http://2852039166/', /must use https/, /^169\.254\.169\.254 is a link-local address$/, /link-local/],
  ['http://0xa9fea9fe/', /must use https/, /link-local/, /link-local/],
  ['https://[::ffff:169.254.169.254]/', /link-local/, /link-local/, /link-local/],
  ['http://[fe80::1]/hook', /must use https/, /link-local/, /link-local/],
  ['http://100.100.100.200/latest/meta-data/', /must use https/, /cloud metadata \(Alibaba Cloud\)/, /cloud metadata/],
  ['https://[fd00:ec2::254]/latest/meta-data/', /cloud metadata \(AWS\)/, /cloud metadata \(AWS\)/, /cloud metadata \(AWS\)/],
  ['http://0.0.0.0:8080/', /must use https/, /this-network/, /this-network/],
  // Names are left to the connect-time check.
  ['http://localhost:3000/hook', /must use https/, undefined, undefined],
];
for (const [url, liveRefusal, testOpenRefusal, testClosedRefusal] of urlCases) {
  test(`${url} before any connection: live ${liveRefusal ? 'refused' : 'passes'}, test ${testOpenRefusal ? 'refused' : 'passes'}, test without private networks ${testClosedRefusal ? 'refused' : 'passes'}`, () => {
    for (const [reach, refusal] of [
      [live, liveRefusal],
      [testOpen, testOpenRefusal],
      [testClosed, testClosedRefusal],
    ] as [Reach, RegExp | undefined][]) {
      const why = whyRefused(new URL(url), reach);
      if (refusal) assert.match(why ?? '', refusal);
      else assert.equal(why, undefined);
    }
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

function lookup(reach: Reach, resolve: Resolver, hostname: string, options: dns.LookupOptions) {
  return new Promise<{ error: Error | null; address: unknown; family?: number }>((done) =>
    guardedLookup(reach, resolve)(hostname, options, (error, address, family) => done({ error, address, family })),
  );
}

const names = fakeDns({
  'internal.example': ['10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'rebind.example': ['93.184.215.14', '127.0.0.1'],
  'public.example': ['93.184.215.14'],
});

test('the guarded lookup refuses a name with any forbidden address, and passes a public one through', async () => {
  for (const reach of [live, testClosed]) {
    assert.match((await lookup(reach, names, 'internal.example', {})).error?.message ?? '', /internal\.example resolves to 10\.0\.0\.7, a private address/);
    assert.match((await lookup(reach, names, 'rebind.example', {})).error?.message ?? '', /resolves to 127\.0\.0\.1, a loopback address/);
  }
  for (const reach of [live, testOpen, testClosed]) {
    assert.match((await lookup(reach, names, 'metadata.example', { all: true })).error?.message ?? '', /resolves to 169\.254\.169\.254, a link-local address/);
    assert.deepEqual(await lookup(reach, names, 'public.example', {}), { error: null, address: '93.184.215.14', family: 4 });
    assert.deepEqual((await lookup(reach, names, 'public.example', { all: true })).address, [{ address: '93.184.215.14', family: 4 }]);
  }
});

test('test mode with private networks allowed resolves names to them', async () => {
  assert.deepEqual(await lookup(testOpen, names, 'internal.example', {}), { error: null, address: '10.0.0.7', family: 4 });
  assert.deepEqual((await lookup(testOpen, names, 'rebind.example', { all: true })).address, [
    { address: '93.184.215.14', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ]);
});

describe('sends that are refused never connect', () => {
  let server: Awaited<ReturnType<typeof listener>>;
  const resolve = fakeDns({ 'shop.example': ['127.0.0.1'], 'metadata.example': ['169.254.169.254'], localhost: ['127.0.0.1', '::1'] });
  const open = new WebhookSender({ timeoutMs: 2000, maxSockets: 4, resolve, testPrivateNetworks: true });
  const closed = new WebhookSender({ timeoutMs: 2000, maxSockets: 4, resolve, testPrivateNetworks: false });
  const closedRealDns = new WebhookSender({ timeoutMs: 2000, maxSockets: 4, testPrivateNetworks: false });
  const liveRealDns = new WebhookSender({ timeoutMs: 2000, maxSockets: 4, testPrivateNetworks: true });
  const body = '{"id":"tr_x"}';
  const headers = signWebhook(secretKey(newWebhookSecret()), 'msg_x', Date.now(), body);

  before(async () => {
    server = await listener();
  });
  after(async () => {
    for (const sender of [open, closed, closedRealDns, liveRealDns]) sender.close();
    await server.close();
  });

  const cases: [what: string, sender: () => WebhookSender, mode: 'test' | 'live', url: () => string, refusal: RegExp][] = [
    ['live: plain http', () => open, 'live', () => `http://127.0.0.1:${server.port}/hook`, /^refused: live webhooks must use https, not http$/],
    ['live: a loopback address', () => open, 'live', () => `https://127.0.0.1:${server.port}/hook`, /^refused: 127\.0\.0\.1 is a loopback address$/],
    ['live: the IPv6 loopback', () => open, 'live', () => `https://[::1]:${server.port}/hook`, /^refused: ::1 is a loopback address$/],
    [
      'live: a name resolving to loopback',
      () => open,
      'live',
      () => `https://shop.example:${server.port}/hook`,
      /^refused: shop\.example resolves to 127\.0\.0\.1, a loopback address$/,
    ],
    [
      'live: localhost through the real resolver',
      () => liveRealDns,
      'live',
      () => `https://localhost:${server.port}/hook`,
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    ],
    [
      'test without private networks: a loopback address',
      () => closed,
      'test',
      () => `http://127.0.0.1:${server.port}/hook`,
      /^refused: 127\.0\.0\.1 is a loopback address$/,
    ],
    [
      'test without private networks: a name resolving to loopback',
      () => closed,
      'test',
      () => `http://shop.example:${server.port}/hook`,
      /^refused: shop\.example resolves to 127\.0\.0\.1, a loopback address$/,
    ],
    [
      'test without private networks: localhost through the real resolver',
      () => closedRealDns,
      'test',
      () => `http://localhost:${server.port}/hook`,
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    ],
    ['test: the metadata address', () => open, 'test', () => 'http://169.254.169.254/latest/meta-data/', /^refused: 169\.254\.169\.254 is a link-local address$/],
    [
      'test: a name resolving to the metadata address',
      () => open,
      'test',
      () => 'http://metadata.example/latest/meta-data/',
      /^refused: metadata\.example resolves to 169\.254\.169\.254, a link-local address$/,
    ],
  ];
  for (const [what, sender, mode, url, refusal] of cases) {
    test(what, async () => {
      const result = await sender().send(url(), mode, headers, body);
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, null);
      assert.match(result.error ?? '', refusal);
      assert.equal(server.connections(), 0);
    });
  }

  test('test mode with private networks allowed connects to the same loopback address, and through a name', async () => {
    for (const url of [`http://127.0.0.1:${server.port}/hook`, `http://shop.example:${server.port}/hook`]) {
      const before = server.connections();
      const result = await open.send(url, 'test', headers, body);
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', /socket hang up|connection reset/);
      assert.equal(server.connections(), before + 1, url);
    }
  });
});

describe('at create time, and for a URL stored before: test mode without private networks', () => {
  const t = suiteApp('sqlite', { WEBHOOK_TEST_PRIVATE_NETWORKS: 'false' });

  test('a payment or an enrollment with a webhookUrl test mode may not reach is a 422 on /webhookUrl', async () => {
    const refused: [url: string, message: RegExp][] = [
      ['http://127.0.0.1:9000/hook', /127\.0\.0\.1 is a loopback address/],
      ['http://10.0.0.8/hook', /10\.0\.0\.8 is a private address/],
      ['http://[::1]/hook', /::1 is a loopback address/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
    ];
    for (const [webhookUrl, message] of refused) {
      for (const [path, body] of [
        ['/payment', cardPayment({ webhookUrl })],
        ['/token', { dataType: 'card', returnUrl: 'https://shop.example/back', webhookUrl }],
      ] as const) {
        const response = await t.client.post(path, body);
        assert.equal(response.statusCode, 422, `${path} ${webhookUrl}`);
        assert.deepEqual(
          response.json().errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`),
          ['/webhookUrl format'],
        );
        assert.match(response.json().errors[0].message, message);
      }
    }
    assert.equal((await t.client.post('/payment', cardPayment({ webhookUrl: 'http://shop.example/hook' }))).statusCode, 200);
  });

  test('a stored webhookUrl pointing inside is refused at connect time, without a connection', async () => {
    const server = await listener();
    const worker = new WebhookWorker(t.store, fastWorkerOptions({ testPrivateNetworks: false })).start();
    try {
      const urls = [`http://127.0.0.1:${server.port}/hook`, 'http://169.254.169.254/latest/meta-data/'];
      const references = await Promise.all(urls.map((webhookUrl) => insertPendingPayment(t.store, t.merchant.merchantId, { webhookUrl })));
      for (const reference of references) await completePayment(t.store, reference, 'failed');
      for (const [i, reference] of references.entries()) {
        const [delivery] = await waitFor('an attempt', async () => {
          const rows = await deliveriesFor(t.store, reference);
          return rows.length === 1 && rows[0].attempts > 0 && rows;
        });
        const [attempt] = await attemptsFor(t.store, delivery.id);
        assert.equal(attempt.status_code, null);
        assert.match(attempt.error ?? '', i === 0 ? /^refused: 127\.0\.0\.1 is a loopback address$/ : /^refused: 169\.254\.169\.254 is a link-local address$/);
      }
      assert.equal(server.connections(), 0);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  test("the merchant's URL (both modes) refuses only what no webhook may reach", async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'https://[fd00:ec2::254]/', 'http://0.0.0.0/']) {
      await assert.rejects(setWebhookUrl(t.store, t.merchant.merchantId, url), /--url is refused for webhooks in every mode/, url);
    }
    assert.equal((await setWebhookUrl(t.store, t.merchant.merchantId, 'http://127.0.0.1:9/hook')).url, 'http://127.0.0.1:9/hook');
  });
});
