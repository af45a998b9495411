/**
 * The logger of one request, made when the request first writes a line. Fastify gives every
 * request a pino child bound to its request id; pino serializes a child's bindings when it is
 * made, through the redaction paths (server.ts), which cost a read about 2.5 % of its CPU
 * (docs/decisions.md "Performance per core"), while most requests write no line at all. Lines
 * are the same: the child is pino's own, with the same bindings and options.
 */
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type LogFn } from 'pino';

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

/** What of the root logger a request line is made of: pino's own pieces, so the line is the one pino would write. */
interface LineWriter {
  levelLabel: string;
  time: () => string;
  bindings: string;
  stream: { write(line: string): unknown };
}

/** The root logger's pieces, or undefined when it is not pino (`logger: false`) or does not write `info`. */
function lineWriter(logger: FastifyBaseLogger): LineWriter | undefined {
  const root = logger as unknown as Record<symbol, unknown> & pino.Logger;
  const { lsCacheSym, timeSym, chindingsSym, streamSym } = pino.symbols;
  const stream = root[streamSym] as LineWriter['stream'] | undefined;
  if (!stream || !root.isLevelEnabled('info')) return undefined;
  return {
    levelLabel: (root[lsCacheSym] as Record<number, string>)[pino.levels.values.info!]!,
    time: root[timeSym] as () => string,
    bindings: root[chindingsSym] as string,
    stream,
  };
}

/**
 * One log line per request when it is answered (LOG_REQUESTS): method, route pattern, status and
 * time, with the request id the request's logger is bound to. Fastify's own controller writes two,
 * `incoming request` and `request completed`, the first of which says nothing the second does not.
 * Its other lines (a request that errored, a stream error) are Fastify's, unchanged.
 *
 * The line of an answered request is put together here from pino's own pieces (the level, the
 * time, the root's bindings) and written to the root logger's destination: the line pino writes for
 * `{ reqId, req, res, responseTime }` through the `req` and `res` serializers, byte for byte, for a
 * fraction of the CPU (docs/decisions.md "The request line, put together once"). It carries only
 * the method, the route pattern, the request id (a safe token, request-id.ts), the status and the
 * time, so there is nothing to redact; a line with an error goes through the request's own logger,
 * redaction and all.
 */
export class OneLinePerRequest extends LogController {
  private writer: LineWriter | null | undefined;

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error({ req: request, res: reply, responseTime: reply.elapsedTime, err: error }, 'request errored');
      return;
    }
    if (this.writer === undefined) this.writer = lineWriter(request.server.log) ?? null;
    if (this.writer === null) return;
    const { levelLabel, time, bindings, stream } = this.writer;
    const id = JSON.stringify(request.id);
    const route = request.routeOptions.url;
    stream.write(
      `${levelLabel}${time()}${bindings},"reqId":${id},"req":{"method":${JSON.stringify(request.method)},"route":${route === undefined ? 'null' : JSON.stringify(route)},"reqId":${id}},` +
        `"res":{"statusCode":${reply.statusCode}},"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
    );
  }
}
