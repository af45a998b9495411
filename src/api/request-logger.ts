/**
 * The logger of one request, made when the request first writes a line. Fastify gives every
 * request a pino child bound to its request id; pino serializes a child's bindings when it is
 * made, through the redaction paths (server.ts), which cost a read about 2.5 % of its CPU
 * (docs/decisions.md "Performance per core"), while most requests write no line at all. Lines
 * are the same: the child is pino's own, with the same bindings and options.
 */
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';

const LINE_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

class RequestLogger {
  private made: FastifyBaseLogger | undefined;
  declare readonly fatal: LogFn;
  declare readonly error: LogFn;
  declare readonly warn: LogFn;
  declare readonly info: LogFn;
  declare readonly debug: LogFn;
  declare readonly trace: LogFn;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  silent(): void {}

  /** A line at `level`. Nothing is made while the parent drops that level (pino's method for it is then its no-op `silent`) and the child keeps the parent's level. */
  line(level: (typeof LINE_LEVELS)[number], args: unknown[]): void {
    if (this.made === undefined && this.options.level === undefined && this.parent[level] === this.parent.silent) return;
    (this.logger[level] as (...line: unknown[]) => void)(...args);
  }
}

for (const level of LINE_LEVELS) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value: function (this: RequestLogger, ...args: unknown[]) {
      this.line(level, args);
    },
  });
}

/** Fastify's `childLoggerFactory`. */
export const requestLogger = (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger =>
  new RequestLogger(logger, bindings, options);

/**
 * One log line per request when it is answered (LOG_REQUESTS): method, route pattern, status and
 * time, with the request id the request's logger is bound to. Fastify's own controller writes two,
 * `incoming request` and `request completed`, the first of which says nothing the second does not.
 * Its other lines (a request that errored, a stream error) are Fastify's, unchanged.
 *
 * The line of an answered request is written by a child of the root logger without its redaction
 * paths, the request id in the line instead of in a child's bindings: the same bytes, for a third of
 * the CPU (docs/decisions.md "The request line without redaction"). It carries only what the `req`
 * and `res` serializers keep (method, route pattern, request id, status), so nothing to redact; a
 * line with an error goes through the request's own logger, redaction and all.
 */
export class OneLinePerRequest extends LogController {
  private lines: FastifyBaseLogger | undefined;

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...line, err: error }, 'request errored');
      return;
    }
    this.lines ??= request.server.log.child({}, { redact: [] });
    this.lines.info({ reqId: request.id, ...line }, 'request completed');
  }
}
