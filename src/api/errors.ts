/**
 * The one error handler: every failure leaves as RFC 9457 problem details. Services
 * throw `Problem` (so does the JSON body parser, json-body.ts); Fastify's own errors (wrong
 * content type, body too large, schema validation) are translated here; anything else is a 500 with an error id only.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, type FieldError } from '../ground/problem.ts';

export function sendProblem(reply: FastifyReply, problem: Problem) {
  return reply.code(problem.status).headers(problem.headers).type('application/problem+json').send(problem.toBody());
}

export function installErrorHandling(app: FastifyInstance) {
  app.setNotFoundHandler((request, reply) => sendProblem(reply, Problem.notFound(`There is nothing at ${request.method} ${request.url.split('?')[0]}.`)));
  app.setErrorHandler((error: FastifyError | Problem, request: FastifyRequest, reply: FastifyReply) => sendProblem(reply, toProblem(error, request)));
}

function toProblem(error: FastifyError | Problem, request: FastifyRequest): Problem {
  if (error instanceof Problem) return error;
  if (error.validation) {
    const errors: FieldError[] = error.validation.map((v) => {
      const missing = v.keyword === 'required' ? `/${(v.params as { missingProperty: string }).missingProperty}` : '';
      return { field: `${v.instancePath}${missing}`, code: v.keyword === 'required' ? 'required' : v.keyword, message: v.message ?? 'is invalid' };
    });
    return Problem.validation(errors, `The request ${error.validationContext ?? 'input'} has invalid fields; see errors.`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem(400, 'Unsupported content type', 'Send the request body as JSON with Content-Type: application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem(413, 'Request body too large', 'The request body must be at most 64 KiB.');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new Problem(error.statusCode, 'Bad request', error.message);
  }
  const errorId = randomUUID();
  request.log.error({ err: error, errorId }, 'unhandled error');
  return new Problem(500, 'Internal error', `Something went wrong on our side. Quote error id ${errorId} when you contact support.`);
}
