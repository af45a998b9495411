/**
 * The one error handler: every failure leaves as RFC 9457 problem details (docs/decisions.md#decisions-where-the-api-contract-is-silent
 * "Errors"). Services throw `Problem` (so does the JSON body parser, json-body.ts); Fastify's
 * own refusals (wrong content type, body too large, a malformed address, schema validation,
 * malformed HTTP) are told here in Kassa's words, never in Fastify's or Node's, which can
 * echo the request; the database being away is a 503 with Retry-After (store/unavailable.ts);
 * anything else is a 500 with an error id only. The pages answer their errors as pages
 * (pages/routes.ts).
 */
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, LogController } from 'fastify';
import type { Socket } from 'node:net';
import { Problem, type FieldError } from '../ground/problem.ts';
import { databaseUnavailable } from '../store/unavailable.ts';

/** The titles of the problems answered, by reply, for the request log (request-log.ts): only errors are set, so a success costs nothing. */
const problemTitles = new WeakMap<FastifyReply, string>();

/** The title of the problem this reply answered, or undefined when it answered none. */
export const answeredProblemTitle = (reply: FastifyReply): string | undefined => problemTitles.get(reply);

/** A problem answered to a request: its `type` under this Kassa's PUBLIC_URL, its body also naming the request id (request-id.ts). */
function sendProblem(reply: FastifyReply, problem: Problem, publicUrl: string) {
  problemTitles.set(reply, problem.title);
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/problem+json')
    .send(problemBody(reply, problem.toBody(publicUrl)));
}

export const problemBody = (reply: FastifyReply, body: Record<string, unknown>) => ({ ...body, requestId: reply.request.id });

export function installErrorHandling(app: FastifyInstance, publicUrl: string) {
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new Problem('notFound', `There is nothing at ${request.method} ${request.url.split('?')[0]}.`), publicUrl),
  );
  app.setErrorHandler((error: FastifyError | Problem, request: FastifyRequest, reply: FastifyReply) => sendProblem(reply, toProblem(error, request), publicUrl));
  // Fastify's own answer to a request arriving while the server stops is not a problem: this one is (return503OnClosing is off, server.ts).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => done(closing ? stopping : undefined));
}

const stopping = new Problem('serviceStopping', { detail: 'This Kassa process is stopping; send the request again.', headers: { 'Retry-After': '1' } });

/** Fastify's refusals by their code. */
const frameworkProblems: Readonly<Record<string, Problem>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: new Problem('unsupportedContentType', 'Send the request body as JSON with Content-Type: application/json.'),
  FST_ERR_CTP_BODY_TOO_LARGE: new Problem('bodyTooLarge', 'The request body must be at most 64 KiB.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: new Problem('malformedRequest', 'The request body is not as long as its Content-Length says.'),
  FST_ERR_BAD_URL: new Problem('malformedRequest', 'The request address is not valid: a percent-encoded part of it does not decode.'),
  FST_ERR_MAX_PARAM_LENGTH: new Problem('addressTooLong', 'A part of the request address is longer than any address of Kassa.'),
};

/** What the schema validation of a route's query (Ajv) found, in the field errors' own codes and words. */
function fieldErrorOf(v: NonNullable<FastifyError['validation']>[number]): FieldError {
  const params = v.params as { missingProperty?: string; limit?: number; type?: string };
  switch (v.keyword) {
    case 'required':
      return { field: `${v.instancePath}/${params.missingProperty}`, code: 'required', message: 'is required' };
    case 'maxLength':
      return { field: v.instancePath, code: 'max_length', message: `must be at most ${params.limit} characters` };
    case 'minLength':
      return { field: v.instancePath, code: 'min_length', message: `must be at least ${params.limit} character${params.limit === 1 ? '' : 's'}` };
    case 'type':
      return { field: v.instancePath, code: 'type', message: `must be a single ${params.type}` };
    default:
      return { field: v.instancePath, code: v.keyword, message: 'is not valid' };
  }
}

function toProblem(error: FastifyError | Problem, request: FastifyRequest): Problem {
  if (error instanceof Problem) return error;
  if (error.validation) {
    return new Problem('validationFailed', {
      detail: `The request ${error.validationContext ?? 'input'} has invalid fields; see errors.`,
      errors: error.validation.map(fieldErrorOf),
    });
  }
  const known = frameworkProblems[error.code];
  if (known) return known;
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new Problem('badRequest', { detail: 'Kassa could not read this request as sent.', status: error.statusCode });
  }
  const unavailable = databaseUnavailable(error, request.log);
  if (unavailable) return unavailable;
  const errorId = randomUUID();
  request.log.error({ err: error, errorId }, 'unhandled error');
  return new Problem('internalError', `Something went wrong on our side. Quote error id ${errorId} when you contact support.`);
}

/**
 * Fastify's `frameworkErrors`: a request refused before routing (an address that does not
 * decode), so before any hook. It gets the answer headers a hook would have set.
 */
export function frameworkErrorHandler(headers: Record<string, string>, publicUrl: string, requestLines: LogController) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    void sendProblem(reply.headers(headers).header('X-Request-Id', request.id), toProblem(error, request), publicUrl);
    // Fastify writes no line for a request it refused before routing: its one line (LOG_REQUESTS, request-logger.ts) is written here.
    requestLines.requestCompleted(null, request, reply);
  };
}

/** Node's refusals of what is not HTTP at all, before any request exists: written to the socket as Node's own would be. */
const clientProblems: Readonly<Record<string, Problem>> = {
  HPE_HEADER_OVERFLOW: new Problem('headersTooLarge', `The request line and headers must be at most ${Math.floor(maxHeaderSize / 1024)} KiB together.`),
  ERR_HTTP_REQUEST_TIMEOUT: new Problem('requestTimeout', 'The whole request did not arrive in time.'),
};
const notHttp = new Problem('malformedRequest', 'The request is not valid HTTP/1.1.');

/** Fastify's `clientErrorHandler` (called with the app as `this`). */
export function clientErrorHandler(headers: Record<string, string>, publicUrl: string) {
  return function (this: FastifyInstance, error: ConnectionError, socket: Socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Only the code: the error also carries the raw request (rawPacket), keys and capability tokens included.
    this.log.debug({ code: error.code }, 'malformed HTTP request');
    if (socket.writable) {
      const problem = clientProblems[error.code] ?? notHttp;
      const body = JSON.stringify(problem.toBody(publicUrl));
      const head = [
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
        'Content-Type: application/problem+json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
    }
    socket.destroy(error);
  };
}
