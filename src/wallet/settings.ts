/**
 * Wallet settings (WALLET_* variables), declared here with their defaults and descriptions
 * (lib/settings.ts) and composed by config.ts. Live wallet payments need the merchant identity
 * and payment processing keys issued by the wallet vendor; test mode uses Kassa's built-in test
 * PKI (test-pki.ts) and needs none of them.
 */
import fs from 'node:fs';
import { duration, invalid, setting, SettingError, text, textOr, value, type Env } from '../lib/settings.ts';
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

const variables = {
  processingKeys: setting({
    name: 'WALLET_PROCESSING_KEYS',
    type: '`key.pem:cert.pem` list',
    shownDefault: 'unset',
    description:
      "Live wallet tokens: comma-separated `<private-key.pem>:<certificate.pem>` pairs of the wallet payment processing keys (several during a rotation; the token's `publicKeyHash` picks one). Without it a live wallet token is refused (503). Test keys use Kassa's built-in test PKI",
    read: (raw) => processingKeys(raw),
  }),
  merchantId: text({
    name: 'WALLET_MERCHANT_ID',
    description:
      "Live hybrid wallet flow: the merchant identifier Kassa presents to the wallet's validation host; set together with `WALLET_MERCHANT_IDENTITY_CERT` and `WALLET_MERCHANT_IDENTITY_KEY`",
  }),
  displayName: textOr('Kassa', { name: 'WALLET_DISPLAY_NAME', description: 'Live hybrid wallet flow: the name shown in the wallet sheet' }),
  identityCert: text({
    name: 'WALLET_MERCHANT_IDENTITY_CERT',
    description: "Live hybrid wallet flow: the merchant identity certificate (PEM file) Kassa presents (mutual TLS) to the wallet's validation host",
  }),
  identityKey: text({ name: 'WALLET_MERCHANT_IDENTITY_KEY', description: 'Live hybrid wallet flow: the private key (PEM file) of `WALLET_MERCHANT_IDENTITY_CERT`' }),
  tokenMaxAgeMs: duration('PT5M', { name: 'WALLET_TOKEN_MAX_AGE', description: 'A wallet token signed longer ago than this is refused (`token_stale`)' }),
};

export const walletVariables = Object.values(variables);

export function loadWalletSettings(env: Env): WalletSettings {
  return {
    liveProcessingKeys: value(env, variables.processingKeys),
    merchantIdentity: merchantIdentity(env),
    tokenMaxAgeMs: value(env, variables.tokenMaxAgeMs),
  };
}

function processingKeys(raw: string | undefined): WalletProcessingKey[] {
  if (!raw) return [];
  return raw.split(',').map((pair) => {
    const [keyFile, certificateFile, ...rest] = pair.trim().split(':');
    if (!keyFile || !certificateFile || rest.length > 0) {
      throw invalid('WALLET_PROCESSING_KEYS', 'a list of <private-key.pem>:<certificate.pem> pairs', pair);
    }
    return { privateKeyPem: readPem(keyFile, 'WALLET_PROCESSING_KEYS'), certificatePem: readPem(certificateFile, 'WALLET_PROCESSING_KEYS') };
  });
}

function merchantIdentity(env: Env): MerchantIdentity | undefined {
  const together = [variables.merchantId, variables.identityCert, variables.identityKey];
  const missing = together.filter((definition) => !value(env, definition)).map((definition) => definition.name);
  if (missing.length === together.length) return undefined;
  if (missing.length > 0) throw new SettingError(`${together.map((definition) => definition.name).join(', ')} must be set together (missing: ${missing.join(', ')})`);
  return {
    merchantIdentifier: value(env, variables.merchantId)!,
    displayName: value(env, variables.displayName),
    certificatePem: readPem(value(env, variables.identityCert)!, 'WALLET_MERCHANT_IDENTITY_CERT'),
    privateKeyPem: readPem(value(env, variables.identityKey)!, 'WALLET_MERCHANT_IDENTITY_KEY'),
  };
}

function readPem(file: string, setting: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new SettingError(`${setting} must name readable PEM files, got "${file}" (${(error as Error).message})`);
  }
}
