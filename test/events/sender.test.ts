/** One webhook attempt over HTTP (test mode, 127.0.0.1 only): what counts as success, redirects, refusals, the deadline. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookSender } from '../../src/events/sender.ts';
import { secretKey, signWebhook } from '../../src/events/signing.ts';
import { newWebhookSecret } from '../../src/lib/tokens.ts';

describe('webhook sender', () => {
  let server: http.Server;
  let base: string;
  const hits: string[] = [];
  const sender = new WebhookSender({ timeoutMs: 250, maxSockets: 4, testPrivateNetworks: true });
  const body = '{"id":"tr_sender"}';
  const headers = signWebhook(secretKey(newWebhookSecret()), 'msg_sender', Date.now(), body);

  before(async () => {
    server = http.createServer((request, response) => {
      hits.push(request.url!);
      const status = Number(request.url!.split('/')[1]);
      if (request.url === '/hang') return;
      if (status >= 300 && status < 400) response.writeHead(status, { location: `${base}/200/redirected` }).end();
      else response.writeHead(status).end('ignored body');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    sender.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const statusCases: [status: number, ok: boolean, error: string | null][] = [
    [200, true, null],
    [202, true, null],
    [204, true, null],
    [299, true, null],
    [301, false, 'HTTP 301: redirects are not followed'],
    [302, false, 'HTTP 302: redirects are not followed'],
    [307, false, 'HTTP 307: redirects are not followed'],
    [400, false, 'HTTP 400'],
    [410, false, 'HTTP 410'],
    [500, false, 'HTTP 500'],
  ];
  for (const [status, ok, error] of statusCases) {
    test(`an answer ${status} is ${ok ? 'a success' : `a failure (${error})`}`, async () => {
      const result = await sender.send(`${base}/${status}`, 'test', headers, body);
      assert.deepEqual([result.ok, result.statusCode, result.error], [ok, status, error]);
    });
  }

  test('a redirect is not followed', async () => {
    hits.length = 0;
    await sender.send(`${base}/302`, 'test', headers, body);
    assert.deepEqual(hits, ['/302']);
  });

  test('a receiver that does not answer is cut off at the deadline', async () => {
    const result = await sender.send(`${base}/hang`, 'test', headers, body);
    assert.deepEqual([result.ok, result.statusCode, result.error], [false, null, 'timed out: no answer within 250 ms']);
  });

  test('a closed port is a failed attempt, not an exception', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await sender.send(`http://127.0.0.1:${port}/`, 'test', headers, body);
    assert.deepEqual([result.ok, result.statusCode, result.error], [false, null, 'connection refused']);
  });

  test('a URL that is not http(s) is refused', async () => {
    const result = await sender.send('ftp://127.0.0.1/hook', 'test', headers, body);
    assert.deepEqual([result.ok, result.error], [false, 'refused: webhooks use http(s), not ftp']);
  });
});
