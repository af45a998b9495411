/**
 * API authentication (spec §5, DESIGN §3): HTTP Basic with the API key as user name
 * and an empty password. The key decides merchant and mode.
 */
import type { FastifyRequest } from 'fastify';
import { Problem } from '../ground/problem.ts';
import type { Caller, KeyResolver } from '../merchants/merchants.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const unauthorized = (detail: string) => new Problem(401, 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Basic realm="Kassa API", charset="UTF-8"' });

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

export async function authenticate(request: FastifyRequest, keys: KeyResolver, required: boolean): Promise<Caller | undefined> {
  const key = presentedKey(request);
  if (key === undefined) {
    if (required) throw unauthorized('An API key is required: send it as the Basic user name with an empty password.');
    return undefined;
  }
  const caller = await keys.resolve(key);
  if (!caller) throw unauthorized('The API key is not valid.');
  return caller;
}
