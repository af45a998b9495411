/** Builds the Fastify application from config and an open store. No listening, no workers: see main.ts. */
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from './config.ts';
import type { Store } from './store/store.ts';
import { KeyResolver } from './merchants/merchants.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './api/errors.ts';
import { installJsonBodyParser } from './api/json-body.ts';
import { answerHeaders, installAnswerHeaders } from './api/answer-headers.ts';
import { requestIdOf } from './api/request-id.ts';
import { OneLinePerRequest, requestLogger } from './api/request-logger.ts';
import { cancelApi, paymentsApi } from './api/payments.ts';
import { Authenticator } from './api/auth.ts';
import { installRequestLog } from './api/request-log.ts';
import { walletApi } from './api/wallet.ts';
import { acquirerNotifications } from './api/acquirer-notifications.ts';
import { FailedAuthentications, openRedis, registerRateLimit } from './api/rate-limit.ts';
import { pages } from './pages/routes.ts';
import { site } from './pages/site.ts';
import { cockpitRoutes, installRequestMetrics } from './api/cockpit.ts';
import { singleProcess, type Cockpit } from './cockpit.ts';
import { consoleRoutes } from './console/routes.ts';
import { contractRoutes } from './contract/routes.ts';
import { buildPorts, type Ports } from './payments/ports.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the operations reach beyond the payment (payments/ports.ts): one set per server, given to every route plugin. */
    ports: Ports;
  }
}

export const API_PREFIX = '/api/v1';

/**
 * Log lines to standard output, each written when it is made, from the event loop (as Node writes
 * its own standard output to files and pipes): in the file before the request goes on, none lost
 * if the process is killed (docs/operations.md "Logs"). pino's default writes them on libuv's
 * thread pool instead, so a request that arrives alone paid a thread hand-off for its one line
 * (docs/decisions.md "Log lines written from the event loop").
 */
export const standardOutput = () => pino.destination({ dest: 1, sync: true });
export const BODY_LIMIT = 64 * 1024;

export interface ServerOptions {
  /** false: no logging (tests). */
  logger?: boolean;
  /** Where log lines go (default standard output). */
  logStream?: { write(line: string): void };
  /** What readiness and metrics ask of the other processes (main.ts); without: one process that runs no workers (a test's). */
  cockpit?: Cockpit;
  /** The ports this process built once (main.ts shares them with its workers); without: the server builds its own on `store`. */
  ports?: Ports;
}

export async function buildServer(config: Config, store: Store, options: ServerOptions = {}): Promise<FastifyInstance> {
  const headers = answerHeaders(config.publicUrl);
  const requestLines = new OneLinePerRequest({ disableRequestLogging: !config.logRequests });
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            stream: options.logStream ?? standardOutput(),
            // Card data, keys and capability tokens never reach the log: no headers, and of the address only the
            // matched route's pattern (`/pay/:token`); a request that matched no route is logged without one.
            serializers: {
              req: (req) => ({ method: req.method, route: req.routeOptions?.url ?? null, reqId: req.id }),
            },
            redact: ['req.headers.authorization', '*.cardNumber', '*.cvc', '*.pan'],
          },
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    genReqId: requestIdOf,
    childLoggerFactory: requestLogger,
    logController: requestLines,
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    // Fastify's own answers to these are not problems: errors.ts answers them.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler(headers, config.publicUrl, requestLines),
    clientErrorHandler: clientErrorHandler(headers, config.publicUrl),
    ajv: { customOptions: { allErrors: true, coerceTypes: false } },
  });
  app.decorate('ports', options.ports ?? buildPorts(config, store));
  installErrorHandling(app, config.publicUrl);
  installAnswerHeaders(app, headers);
  installRequestMetrics(app);
  installJsonBodyParser(app);
  const redis = openRedis(app, config);
  const auth = new Authenticator(new KeyResolver(store, config.apiKeyCacheMs), new FailedAuthentications(config.authFailureLimit, redis));
  const deps = { config, store, auth };
  await app.register(
    async (api) => {
      // Requests made with an API key, written in batches off the request's path (api/request-log.ts).
      installRequestLog(api, store);
      // Every route in this scope needs an API key; request.caller is its merchant and mode.
      await api.register(async (authenticated) => {
        authenticated.decorateRequest('caller', null as never);
        // A header verified lately is recognised without a promise; any other is authenticated (api/auth.ts).
        authenticated.addHook('onRequest', (request, _reply, done) => {
          const recognised = auth.recognised(request);
          if (recognised) {
            request.apiKey = recognised;
            request.caller = recognised.caller;
            done();
            return;
          }
          auth.authenticate(request, true).then((key) => {
            request.apiKey = key!;
            request.caller = key!.caller;
            done();
          }, done);
        });
        await registerRateLimit(authenticated, config, redis);
        await authenticated.register(paymentsApi, deps);
      });
      // Capability-token routes: the token authorises; an API key is optional.
      await api.register(cancelApi, deps);
      await api.register(walletApi, deps);
    },
    { prefix: API_PREFIX },
  );
  await app.register(pages, deps);
  await app.register(site, { apiRoot: `${config.publicUrl}${API_PREFIX}` });
  await app.register(acquirerNotifications, deps);
  await app.register(cockpitRoutes, { config, store, cockpit: options.cockpit ?? singleProcess(store, () => 'off') });
  await app.register(consoleRoutes, deps);
  await app.register(contractRoutes, { publicUrl: config.publicUrl, apiPrefix: API_PREFIX });
  return app;
}
