/**
 * The API's limits (docs/decisions.md#limits). Counters live in memory, or in Redis (REDIS_URL) so
 * that several Kassa processes share them; a Redis outage skips a limit rather than taking
 * payments down with it.
 *
 * Per API key, with @fastify/rate-limit: a window of two seconds allowing twice the
 * per-second rate, so a key averages RATE_LIMIT_PER_SECOND with bursts up to twice that.
 * Answers carry `RateLimit-*` headers; a key over its limit gets a 429 problem with `Retry-After`.
 *
 * Per client address, for keys that are not valid (`FailedAuthentications`, used by auth.ts).
 */
import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { Problem } from '../ground/problem.ts';
import type { Config } from '../config.ts';

const WINDOW_MS = 2000;

/** The Redis connection the limits share, when REDIS_URL is set and a limit is on; closed with the app. */
export function openRedis(app: FastifyInstance, config: Config): Redis | undefined {
  if (!config.redisUrl || (config.rateLimitPerSecond <= 0 && config.authFailureLimit <= 0)) return undefined;
  const redis = new Redis(config.redisUrl, { connectTimeout: 500, maxRetriesPerRequest: 1, lazyConnect: false });
  app.addHook('onClose', async () => void redis.disconnect());
  return redis;
}

export async function registerRateLimit(scope: FastifyInstance, config: Config, redis: Redis | undefined) {
  if (config.rateLimitPerSecond <= 0) return;
  await scope.register(rateLimit, {
    global: true,
    max: config.rateLimitPerSecond * (WINDOW_MS / 1000),
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    redis,
    nameSpace: 'kassa-rate-',
    skipOnError: true,
    keyGenerator: (request) => `${request.caller.merchantId}:${request.caller.mode}`,
    errorResponseBuilder: (_request, context) =>
      new Problem('tooManyRequests', {
        detail: `This API key is limited to ${config.rateLimitPerSecond} requests per second (bursts up to ${context.max}). Retry after ${context.after}.`,
        headers: {
          'Retry-After': String(Math.max(1, Math.ceil(context.ttl / 1000))),
        },
      }),
  });
}

export const AUTH_FAILURE_WINDOW_MS = 60_000;
const MAX_TRACKED_ADDRESSES = 10_000;

// One attempt taken in Redis: the milliseconds until the window ends when none is left, else -1.
const TAKE = `local taken = tonumber(redis.call('GET', KEYS[1]) or '0')
if taken >= tonumber(ARGV[1]) then return redis.call('PTTL', KEYS[1]) end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return -1`;
const GIVE_BACK = `if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Failed authentication per client address. Every request whose key is not already verified
 * takes one attempt of its address's allowance (AUTH_FAILURE_LIMIT a minute) before the key
 * is looked up, and a good key gives it back: so an address gets that many lookups of wrong keys
 * a minute at once, concurrent requests included. Past its allowance an address's keys are still
 * looked up, as a good key must be served whoever else shares the address (a shop host, a proxy),
 * but one at a time in this process: a flood of wrong keys costs one indexed query at a time, and
 * each wrong key gets its answer with `Retry-After` (api/auth.ts). While this process has lookups of
 * the address out, a request finding no attempt left waits for one of them to settle: a burst of
 * good keys (a platform's many merchants when their cache entries expire) queues rather than takes
 * the slow lane. IPv6 clients count by /64, the smallest network one subscriber is given.
 */
export class FailedAuthentications {
  private readonly local = new Map<string, { taken: number; resetAt: number }>();
  /** This process's attempts not yet settled, per address, and the requests waiting for one to settle. */
  private readonly outstanding = new Map<string, { attempts: number; waiting: (() => void)[] }>();

  constructor(
    readonly limit: number,
    private readonly redis: Redis | undefined,
  ) {}

  /**
   * Takes an attempt, to be settled: undefined when the allowance had one, else the seconds until
   * the address has its allowance again (then this request is the address's only lookup out here).
   */
  async take(address: string): Promise<number | undefined> {
    if (this.limit <= 0) return undefined;
    const bucket = addressBucket(address);
    for (;;) {
      const retryAfter = await this.takeOne(bucket, Date.now());
      const outstanding = this.outstanding.get(bucket);
      if (retryAfter === undefined || !outstanding) {
        if (outstanding) outstanding.attempts++;
        else this.outstanding.set(bucket, { attempts: 1, waiting: [] });
        return retryAfter;
      }
      await new Promise<void>((resolve) => outstanding.waiting.push(resolve));
    }
  }

  /** A taken attempt's outcome: `givesBack` (a good key, on an attempt of the allowance) returns it; a wrong key keeps it used up. */
  async settle(address: string, givesBack: boolean): Promise<void> {
    if (this.limit <= 0) return;
    const bucket = addressBucket(address);
    if (givesBack) await this.giveBackOne(bucket);
    const outstanding = this.outstanding.get(bucket)!;
    outstanding.attempts--;
    if (outstanding.attempts === 0) {
      // Nothing left to wait for: every waiting request tries again (one of them the next lookup past the allowance).
      this.outstanding.delete(bucket);
      for (const wake of outstanding.waiting) wake();
    } else if (givesBack) {
      outstanding.waiting.shift()?.();
    }
  }

  private async takeOne(bucket: string, now: number): Promise<number | undefined> {
    if (this.redis) {
      try {
        const waitMs = Number(await this.redis.eval(TAKE, 1, redisKey(bucket), this.limit, AUTH_FAILURE_WINDOW_MS));
        return waitMs < 0 ? undefined : Math.max(1, Math.ceil(waitMs / 1000));
      } catch {
        return undefined;
      }
    }
    let entry = this.local.get(bucket);
    if (!entry || entry.resetAt <= now) {
      // A new window goes to the end of the map; when it is full, the oldest window makes room (at worst its address gets a fresh allowance early).
      this.local.delete(bucket);
      if (this.local.size >= MAX_TRACKED_ADDRESSES) this.local.delete(this.local.keys().next().value!);
      entry = { taken: 0, resetAt: now + AUTH_FAILURE_WINDOW_MS };
      this.local.set(bucket, entry);
    }
    if (entry.taken >= this.limit) return Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
    entry.taken++;
    return undefined;
  }

  private async giveBackOne(bucket: string): Promise<void> {
    if (this.redis) {
      await this.redis.eval(GIVE_BACK, 1, redisKey(bucket)).catch(() => undefined);
      return;
    }
    const entry = this.local.get(bucket);
    if (entry && entry.taken > 0) entry.taken--;
  }
}

const redisKey = (bucket: string) => `kassa-auth-failures:${bucket}`;

/** The address an allowance belongs to: an IPv4 address itself (also written IPv4-mapped), an IPv6 address's /64. */
export function addressBucket(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
