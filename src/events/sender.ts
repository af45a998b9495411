/**
 * One webhook attempt over HTTP: POST, no redirects followed (node:http never follows
 * them), a hard deadline for the whole exchange, keep-alive sockets reused across
 * deliveries. Both modes go through the SSRF guard (ssrf.ts), each with its own reach: the
 * URL before any connection, every address of a name in the socket's lookup, and the peer
 * actually connected to.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Mode } from '../store/schema.ts';
import { forbiddenAddress, guardedLookup, RefusedDestination, webhookReach, whyRefused, type Reach, type Resolver } from './ssrf.ts';
import type { SignedHeaders } from './signing.ts';

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  /** Sockets per receiver host, at least the worker's concurrency. */
  maxSockets: number;
  /** DNS resolution, checked by the SSRF guard; replaceable in tests. */
  resolve?: Resolver;
  /** Test-mode webhooks may reach loopback and private networks (WEBHOOK_TEST_PRIVATE_NETWORKS). */
  testPrivateNetworks: boolean;
}

const USER_AGENT = 'Kassa-Webhooks/1';

export class WebhookSender {
  private readonly testHttp: http.Agent;
  private readonly testHttps: https.Agent;
  private readonly liveHttps: https.Agent;
  private readonly reach: Record<Mode, Reach>;

  constructor(private readonly options: SenderOptions) {
    this.reach = { test: webhookReach('test', options), live: webhookReach('live', options) };
    const agentOptions = (reach: Reach) => ({
      keepAlive: true,
      maxSockets: options.maxSockets,
      maxFreeSockets: options.maxSockets,
      scheduling: 'lifo' as const,
      lookup: guardedLookup(reach, options.resolve) as never,
    });
    this.testHttp = new http.Agent(agentOptions(this.reach.test));
    this.testHttps = new https.Agent(agentOptions(this.reach.test));
    this.liveHttps = new https.Agent(agentOptions(this.reach.live));
  }

  async send(url: string, mode: Mode, headers: SignedHeaders, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const result = (statusCode: number | null, error: string | null): AttemptResult => ({
      ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return result(null, 'not a valid URL');
    }
    const reach = this.reach[mode];
    const refused = whyRefused(target, reach);
    if (refused) return result(null, `refused: ${refused}`);
    const agent = mode === 'live' ? this.liveHttps : target.protocol === 'https:' ? this.testHttps : this.testHttp;
    const client = target.protocol === 'https:' ? https : http;

    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        resolve(result(statusCode, error));
      };
      const request = client.request(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': USER_AGENT, ...headers },
        },
        (response) => {
          const status = response.statusCode ?? 0;
          // The body is not read (only the status counts) but drained, so the socket can be reused.
          response.resume();
          response.on('error', () => undefined);
          response.on('close', () => clearTimeout(deadline));
          finish(status, status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`);
        },
      );
      const deadline = setTimeout(() => request.destroy(new DeadlineExceeded(this.options.timeoutMs)), this.options.timeoutMs);
      request.on('error', (error) => {
        clearTimeout(deadline);
        finish(null, describe(error));
      });
      request.on('socket', (socket) => guardConnectedAddress(socket, request, reach));
      request.end(body);
    });
  }

  close(): void {
    for (const agent of [this.testHttp, this.testHttps, this.liveHttps]) agent.destroy();
  }
}

class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out: no answer within ${timeoutMs} ms`);
  }
}

/** Second line of defence: whatever resolved the name, the peer actually connected to must be allowed. */
function guardConnectedAddress(socket: Socket, request: http.ClientRequest, reach: Reach) {
  const check = () => {
    const why = socket.remoteAddress ? forbiddenAddress(socket.remoteAddress, reach) : 'unknown peer';
    if (why) request.destroy(new RefusedDestination(`connected to ${socket.remoteAddress}, a ${why} address`));
  };
  if (socket.connecting) socket.once('connect', check);
  else check();
}

function describe(error: Error & { code?: string }): string {
  if (error instanceof DeadlineExceeded) return error.message;
  if (error instanceof RefusedDestination) return `refused: ${error.message}`;
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ENOTFOUND') return 'host not found';
  if (error.code === 'ECONNRESET') return 'connection reset';
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
