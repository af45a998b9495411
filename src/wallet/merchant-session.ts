/**
 * Merchant validation for the hybrid wallet flow (docs/api.md#create-a-payment, docs/api.md#hybrid-wallet-checkout; docs/decisions.md#wallet):
 * Kassa obtains a merchant session from the `walletPayValidationUrl` the wallet gave the
 * merchant's page, presenting its merchant identity certificate (mutual TLS), and hands
 * the session back as `details.walletPayPaymentSession` (a JSON document as a string).
 *
 * Only the wallet's official validation hosts are ever contacted: the URL is checked
 * against the allow-list before any request, in both modes (validation rules are the
 * same for test and live keys, docs/api.md#authentication). Test mode never calls out: it answers with a
 * simulated session of the same shape.
 */
import https from 'node:https';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Problem, type FieldError } from '../ground/problem.ts';
import { sha256Hex } from '../lib/tokens.ts';
import type { Mode } from '../store/schema.ts';
import type { MerchantIdentity } from './settings.ts';

/** The wallet's validation hosts (production, sandbox `-cert`, regional pods, China). */
const VALIDATION_HOST = /^(cn-)?apple-pay-gateway(-cert|-[a-z]{2}-pod\d{1,2})?\.apple\.com$/;
const VALIDATION_TIMEOUT_MS = 10_000;
/** A merchant session is good for this long (the wallet's own sessions last 5 minutes to an hour). */
const TEST_SESSION_LIFETIME_MS = 5 * 60_000;
const MAX_SESSION_BYTES = 64 * 1024;

/** Why `url` may not be used as a validation URL, or undefined when it may. */
export function checkValidationUrl(url: string, field = '/details/walletPayValidationUrl'): FieldError | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { field, code: 'format', message: 'must be an absolute https URL' };
  }
  if (parsed.protocol !== 'https:' || parsed.username || parsed.password || (parsed.port && parsed.port !== '443') || !VALIDATION_HOST.test(parsed.hostname)) {
    return {
      field,
      code: 'not_allowed',
      message: "must be one of the wallet's validation addresses (https://apple-pay-gateway….apple.com/…), as given by the wallet's merchant-validation event",
    };
  }
  return undefined;
}

export interface SessionRequest {
  mode: Mode;
  validationUrl: string;
  domainName: string;
  /** The merchant's name: the test session's display name. */
  merchantName: string;
}

/** The merchant session as the JSON text to pass on unchanged (`walletPayPaymentSession`, docs/api.md#the-details-object). */
export async function obtainMerchantSession(request: SessionRequest, identity: MerchantIdentity | undefined, now = Date.now()): Promise<string> {
  const refused = checkValidationUrl(request.validationUrl);
  if (refused) throw new Problem('validationFailed', { errors: [refused] });
  if (request.mode === 'test') return simulatedSession(request, now);
  if (!identity) {
    throw new Problem(
      'walletNotConfigured',
      'Live hybrid wallet payments need the wallet merchant identity (WALLET_MERCHANT_ID, WALLET_MERCHANT_IDENTITY_CERT, WALLET_MERCHANT_IDENTITY_KEY); this Kassa has none.',
    );
  }
  return requestSession(request, identity);
}

function simulatedSession(request: SessionRequest, now: number): string {
  const body = {
    epochTimestamp: now,
    expiresAt: now + TEST_SESSION_LIFETIME_MS,
    merchantSessionIdentifier: `SSH${randomBytes(16).toString('hex').toUpperCase()}`,
    nonce: randomBytes(4).toString('hex'),
    merchantIdentifier: sha256Hex('merchant.dev.kassa.test').toUpperCase(),
    domainName: request.domainName,
    displayName: request.merchantName,
    operationalAnalyticsIdentifier: `${request.merchantName}:${randomUUID()}`,
    retries: 0,
  };
  // Shaped like the wallet's signature; nothing verifies it in test mode.
  const signature = createHmac('sha256', randomBytes(32)).update(JSON.stringify(body)).digest('base64');
  return JSON.stringify({ ...body, signature });
}

function requestSession(request: SessionRequest, identity: MerchantIdentity): Promise<string> {
  const payload = JSON.stringify({
    merchantIdentifier: identity.merchantIdentifier,
    displayName: identity.displayName,
    initiative: 'web',
    initiativeContext: request.domainName,
  });
  const failed = (detail: string) => new Problem('walletMerchantValidationFailed', detail);
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      request.validationUrl,
      {
        method: 'POST',
        cert: identity.certificatePem,
        key: identity.privateKeyPem,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: VALIDATION_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_SESSION_BYTES) response.destroy(failed('the validation host answered with an oversized session'));
          else chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) return reject(failed(`the validation host answered HTTP ${response.statusCode}`));
          try {
            JSON.parse(text);
          } catch {
            return reject(failed('the validation host did not answer with JSON'));
          }
          resolve(text);
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(failed(`the validation host did not answer within ${VALIDATION_TIMEOUT_MS / 1000} s`)));
    outgoing.on('error', (error) => reject(error instanceof Problem ? error : failed(`could not reach the validation host (${error.message})`)));
    outgoing.end(payload);
  });
}
