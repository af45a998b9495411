/**
 * Wallet settings, read from the environment by config.ts. Live wallet payments need the
 * merchant identity and payment processing keys issued by the wallet vendor; test mode
 * uses Kassa's built-in test PKI (test-pki.ts) and needs none of them.
 * - WALLET_PROCESSING_KEYS: comma-separated `<private-key.pem>:<certificate.pem>` file
 *   pairs, the payment processing keys that live tokens are encrypted to (several while
 *   a key is being rotated; the token's publicKeyHash picks one).
 * - WALLET_MERCHANT_ID, WALLET_DISPLAY_NAME, WALLET_MERCHANT_IDENTITY_CERT,
 *   WALLET_MERCHANT_IDENTITY_KEY (PEM files): the identity Kassa presents (mutual TLS) to
 *   the wallet's validation host to obtain a merchant session for the hybrid flow.
 * - WALLET_TOKEN_MAX_AGE (PT5M): a token signed longer ago than this is refused (replay).
 */
import fs from 'node:fs';
import { parseIsoDuration } from '../lib/duration.ts';
import type { WalletProcessingKey } from './index.ts';

export interface MerchantIdentity {
  merchantIdentifier: string;
  displayName: string;
  certificatePem: string;
  privateKeyPem: string;
}

export interface WalletSettings {
  liveProcessingKeys: WalletProcessingKey[];
  merchantIdentity?: MerchantIdentity;
  tokenMaxAgeMs: number;
}

type Env = Record<string, string | undefined>;

export function loadWalletSettings(env: Env): WalletSettings {
  const tokenMaxAgeMs = parseIsoDuration(env.WALLET_TOKEN_MAX_AGE || 'PT5M');
  if (tokenMaxAgeMs === undefined || tokenMaxAgeMs <= 0) {
    throw new Error(`WALLET_TOKEN_MAX_AGE must be a positive ISO 8601 duration such as PT5M, got "${env.WALLET_TOKEN_MAX_AGE}"`);
  }
  return { liveProcessingKeys: processingKeys(env.WALLET_PROCESSING_KEYS), merchantIdentity: merchantIdentity(env), tokenMaxAgeMs };
}

function processingKeys(raw: string | undefined): WalletProcessingKey[] {
  if (!raw) return [];
  return raw.split(',').map((pair) => {
    const [keyFile, certificateFile, ...rest] = pair.trim().split(':');
    if (!keyFile || !certificateFile || rest.length > 0) {
      throw new Error(`WALLET_PROCESSING_KEYS must list <private-key.pem>:<certificate.pem> pairs, got "${pair}"`);
    }
    return { privateKeyPem: readPem(keyFile, 'WALLET_PROCESSING_KEYS'), certificatePem: readPem(certificateFile, 'WALLET_PROCESSING_KEYS') };
  });
}

function merchantIdentity(env: Env): MerchantIdentity | undefined {
  const names = ['WALLET_MERCHANT_ID', 'WALLET_MERCHANT_IDENTITY_CERT', 'WALLET_MERCHANT_IDENTITY_KEY'] as const;
  const given = names.filter((name) => env[name]);
  if (given.length === 0) return undefined;
  if (given.length < names.length) throw new Error(`${names.join(', ')} must be set together (missing: ${names.filter((n) => !env[n]).join(', ')})`);
  return {
    merchantIdentifier: env.WALLET_MERCHANT_ID!,
    displayName: env.WALLET_DISPLAY_NAME || 'Kassa',
    certificatePem: readPem(env.WALLET_MERCHANT_IDENTITY_CERT!, 'WALLET_MERCHANT_IDENTITY_CERT'),
    privateKeyPem: readPem(env.WALLET_MERCHANT_IDENTITY_KEY!, 'WALLET_MERCHANT_IDENTITY_KEY'),
  };
}

function readPem(file: string, setting: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${setting}: cannot read ${file} (${(error as Error).message})`);
  }
}
