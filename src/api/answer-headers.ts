/**
 * Headers on every answer, API and pages alike. `Cache-Control: no-store`: an API answer can
 * carry a vault access token and a page a payment's state, and no shared or browser cache
 * may keep either. `Strict-Transport-Security` when PUBLIC_URL is https: a browser that once
 * reached Kassa over TLS never again sends a customer to it in clear. Without
 * includeSubDomains: Kassa speaks for its own host, not for its neighbours.
 */
import type { FastifyInstance } from 'fastify';

export const HSTS_MAX_AGE_S = 365 * 24 * 3600;

export function answerHeaders(publicUrl: string): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    ...(new URL(publicUrl).protocol === 'https:' ? { 'Strict-Transport-Security': `max-age=${HSTS_MAX_AGE_S}` } : {}),
  };
}

/** Sets `headers` and the request id (request-id.ts) on every answer that goes through Fastify's routing (a route or the not-found handler). */
export function installAnswerHeaders(app: FastifyInstance, headers: Record<string, string>) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers).header('X-Request-Id', request.id);
    done();
  });
}
