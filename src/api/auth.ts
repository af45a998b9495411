/**
 * API authentication (docs/api.md#authentication, docs/decisions.md#authentication-and-keys): HTTP Basic with the API key as user name
 * and an empty password. The key decides merchant and mode.
 */
import type { FastifyRequest } from 'fastify';
import { Problem } from '../ground/problem.ts';
import type { Caller, KeyResolver, VerifiedKey } from '../merchants/merchants.ts';
import type { FailedAuthentications } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const unauthorized = (detail: string, headers: Record<string, string> = {}) =>
  new Problem('unauthorized', { detail, headers: { 'WWW-Authenticate': 'Basic realm="Kassa API", charset="UTF-8"', ...headers } });
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

/** Authorization headers remembered at most; past it the oldest is forgotten (and verified again when it comes back). */
const MAX_HEADERS = 10_000;

export class Authenticator {
  /**
   * The callers of Authorization headers whose key was verified, each until its key's entry in the
   * key cache runs out: a client sends the same header with every request, so recognising it is one
   * map lookup, without decoding the key or hashing it (docs/decisions.md "A read's fixed costs").
   */
  private readonly verified = new Map<string, VerifiedKey>();

  constructor(
    private readonly keys: KeyResolver,
    private readonly failures: FailedAuthentications,
  ) {}

  /** The request's Authorization header's key (its caller and prefix) when it was verified lately (within API_KEY_CACHE_MS); otherwise undefined. */
  recognised(request: FastifyRequest, now = Date.now()): VerifiedKey | undefined {
    const header = request.headers.authorization;
    const verified = header === undefined ? undefined : this.verified.get(header);
    return verified && verified.until > now ? verified : undefined;
  }

  /**
   * The request's key (its caller and prefix). A key verified lately passes at once; any other takes one of
   * its client address's attempts first (rate-limit.ts). A valid key is served whatever its address
   * sent before (one shop's wrong key must not lock out the other shops of its host); a wrong one
   * past the address's allowance gets `Retry-After` with its 401, and a key already known to be wrong
   * is never looked up again.
   */
  async authenticate(request: FastifyRequest, required: boolean): Promise<VerifiedKey | undefined> {
    const recognised = this.recognised(request);
    if (recognised) return recognised;
    const key = presentedKey(request);
    if (key === undefined) {
      if (required) throw unauthorized('An API key is required: send it as the Basic user name with an empty password.');
      return undefined;
    }
    const known = this.keys.known(key);
    if (known) return this.remember(request, known);
    const retryAfter = await this.failures.take(request.ip);
    let verified: VerifiedKey | undefined;
    try {
      verified = known === null ? undefined : await this.keys.lookUp(key);
    } catch (error) {
      // Not an answer about the key (the database failed): the attempt is not the client's fault.
      await this.failures.settle(request.ip, retryAfter === undefined);
      throw error;
    }
    await this.failures.settle(request.ip, verified !== undefined && retryAfter === undefined);
    if (verified) return this.remember(request, verified);
    // A wrong key past the allowance is still the answer of a wrong key, with how long until the
    // address's lookups run side by side again: clients stop on a 401 (the official library's
    // isKeyValid() answers false) and retry a 429 for ever, so a 429 here would hang a shop behind
    // a wrong key (docs/operations.md).
    throw invalidKey(retryAfter === undefined ? undefined : { 'Retry-After': String(retryAfter) });
  }

  private remember(request: FastifyRequest, verified: VerifiedKey): VerifiedKey {
    const header = request.headers.authorization!;
    this.verified.delete(header);
    if (this.verified.size >= MAX_HEADERS) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(header, verified);
    return verified;
  }
}
