/**
 * A merchant API route is one line: `app.post('/capture', handle(capture, ports))`. The
 * request becomes the operation's body and context; the runner answers (replays included,
 * docs/decisions.md#idempotency).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../ground/problem.ts';
import { problemBody } from './errors.ts';
import { idempotentReplays } from '../lib/metrics.ts';
import type { Caller } from '../merchants/merchants.ts';
import type { Ports } from '../payments/ports.ts';
import type { AnyOperation } from '../payments/runner/operation.ts';
import { runForMerchant, type MerchantAnswer } from '../payments/runner/run.ts';

export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Problem('malformedRequest', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

export function sendAnswer(reply: FastifyReply, outcome: MerchantAnswer) {
  if (outcome.replayed) {
    reply.header('Idempotent-Replayed', 'true');
    idempotentReplays.inc({ route: reply.request.routeOptions.url ?? 'unmatched' });
  }
  // A recorded problem names the request that is answered now: its log lines are the ones a support question leads to.
  if (outcome.status >= 400)
    return reply
      .code(outcome.status)
      .type('application/problem+json')
      .send(problemBody(reply, outcome.json ? JSON.parse(outcome.json) : outcome.body));
  if (outcome.json !== undefined) reply.type('application/json; charset=utf-8');
  return reply.code(outcome.status).send(outcome.json ?? outcome.body);
}

const idempotencyReferenceOf = (request: FastifyRequest) => {
  const value = request.headers['idempotency-reference'];
  return Array.isArray(value) ? value[0] : value;
};

/** The route handler of a merchant operation whose body is the request's JSON object. */
export function handle(op: AnyOperation<Caller, Record<string, unknown>>, ports: Ports) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = { ports, caller: request.caller, now: Date.now(), log: request.log };
    return sendAnswer(reply, await runForMerchant(op, objectBody(request.body), ctx, idempotencyReferenceOf(request)));
  };
}
