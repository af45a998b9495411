/**
 * Per-API-key rate limit (DESIGN §3 "Limits"), with @fastify/rate-limit: a window of
 * two seconds allowing twice the per-second rate, so a key averages RATE_LIMIT_PER_SECOND
 * with bursts up to twice that. Counters live in memory, or in Redis (REDIS_URL) so
 * that several Kassa processes share them. Answers carry `RateLimit-*` headers; a key
 * over its limit gets a 429 problem with `Retry-After`.
 */
import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { Problem } from '../ground/problem.ts';
import type { Config } from '../config.ts';

const WINDOW_MS = 2000;

export async function registerRateLimit(scope: FastifyInstance, config: Config) {
  if (config.rateLimitPerSecond <= 0) return;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 500, maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  if (redis) scope.addHook('onClose', async () => void redis.disconnect());
  await scope.register(rateLimit, {
    global: true,
    max: config.rateLimitPerSecond * (WINDOW_MS / 1000),
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    redis,
    nameSpace: 'kassa-rate-',
    // A Redis outage must not take payments down with it.
    skipOnError: true,
    keyGenerator: (request) => `${request.caller.merchantId}:${request.caller.mode}`,
    errorResponseBuilder: (_request, context) =>
      new Problem(
        429,
        'Too many requests',
        `This API key is limited to ${config.rateLimitPerSecond} requests per second (bursts up to ${context.max}). Retry after ${context.after}.`,
        undefined,
        {
          'Retry-After': String(Math.max(1, Math.ceil(context.ttl / 1000))),
        },
      ),
  });
}
