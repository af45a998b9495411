/**
 * API authentication (docs/api.md#authentication, docs/decisions.md#authentication-and-keys): HTTP Basic with the API key as user name
 * and an empty password. The key decides merchant and mode.
 */
import type { FastifyRequest } from 'fastify';
import { Problem } from '../ground/problem.ts';
import type { Caller, KeyResolver } from '../merchants/merchants.ts';
import type { FailedAuthentications } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const unauthorized = (detail: string, headers: Record<string, string> = {}) =>
  new Problem(401, 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Basic realm="Kassa API", charset="UTF-8"', ...headers });
const invalidKey = (headers?: Record<string, string>) => unauthorized('The API key is not valid.', headers);

/** The API key in a Basic `Authorization` header, or undefined when there is no such header. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const [scheme, encoded] = header.split(' ', 2);
  if (scheme?.toLowerCase() !== 'basic' || !encoded) throw unauthorized('Use HTTP Basic authentication with your API key as the user name.');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? decoded : decoded.slice(0, colon);
}

export class Authenticator {
  constructor(
    private readonly keys: KeyResolver,
    private readonly failures: FailedAuthentications,
  ) {}

  /**
   * The caller of the request's key. A key verified lately passes at once; any other takes one of
   * its client address's attempts first (rate-limit.ts), so a client sending wrong keys is no longer
   * looked up once its attempts are used up (the same 401, with `Retry-After`), and a key already
   * known to be wrong is never looked up again.
   */
  async authenticate(request: FastifyRequest, required: boolean): Promise<Caller | undefined> {
    const key = presentedKey(request);
    if (key === undefined) {
      if (required) throw unauthorized('An API key is required: send it as the Basic user name with an empty password.');
      return undefined;
    }
    const known = this.keys.known(key);
    if (known) return known;
    const retryAfter = await this.failures.take(request.ip);
    // The answer a wrong key gets, with how long until this address's keys are looked at again:
    // clients stop on a 401 (the official library's isKeyValid() answers false) and retry a 429
    // for ever, so a 429 here would hang a shop behind a wrong key (docs/operations.md).
    if (retryAfter !== undefined) throw invalidKey({ 'Retry-After': String(retryAfter) });
    let caller: Caller | undefined;
    try {
      caller = known === null ? undefined : await this.keys.lookUp(key);
    } catch (error) {
      // Not an answer about the key (the database failed): the attempt is not the client's fault.
      await this.failures.settle(request.ip, true);
      throw error;
    }
    await this.failures.settle(request.ip, caller !== undefined);
    if (!caller) throw invalidKey();
    return caller;
  }
}
