/**
 * The wallet payment token as the wallet delivers it (docs/api.md#wallet-tokens), its structural check,
 * and the shapes every other wallet module shares: processing keys, trust, the decrypted
 * payment and the one error type verification and decryption throw.
 */
import type { FieldError } from '../ground/problem.ts';

export interface WalletPaymentToken {
  paymentData: {
    version: string;
    data: string;
    signature: string;
    header: { publicKeyHash: string; ephemeralPublicKey?: string; wrappedKey?: string; transactionId: string; applicationData?: string };
  };
  paymentMethod?: { displayName?: string; network?: string; type?: string };
  transactionIdentifier?: string;
}

/** A payment processing key; the merchant identifier is read from the certificate (extension 1.2.840.113635.100.6.32). */
export interface WalletProcessingKey {
  privateKeyPem: string;
  certificatePem: string;
}

export interface WalletTrust {
  rootsPem: string[];
  /** Epoch ms; injectable so expired real tokens can be checked at their own time. */
  now?: () => number;
  /** Oldest accepted signing time, default 5 minutes. */
  maxAgeMs?: number;
}

export interface DecryptedWalletPayment {
  pan: string;
  expiryMonth: number;
  expiryYear: number;
  currencyNumeric: string;
  amountMinor: number;
  paymentDataType: string;
  cryptogram?: string;
  eci?: string;
  deviceManufacturerIdentifier?: string;
  cardholderName?: string;
  /** CMS signingTime, epoch ms. */
  signedAt: number;
}

export type WalletTokenFailure = 'signature' | 'certificate' | 'stale' | 'unknown_key' | 'decryption';

export class WalletTokenError extends Error {
  constructor(
    readonly failure: WalletTokenFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WalletTokenError';
  }
}

const walletTokenVersions = ['EC_v1', 'RSA_v1'] as const;

/**
 * Only the canonical encoding is accepted: the signature covers the decoded bytes, so a
 * second spelling of the same bytes (unused trailing bits, missing padding, stray
 * characters Node would skip, hex letter case) would be a one-bit change nothing detects.
 */
function isCanonicalBase64(text: string): boolean {
  return text.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, 'base64').toString('base64') === text;
}

function isCanonicalHex(text: string): boolean {
  return text.length > 0 && text.length % 2 === 0 && /^[0-9a-f]+$/.test(text);
}

const SHA256_BYTES = 32;

type Check = (value: string) => string | undefined;
const base64: Check = (value) => (isCanonicalBase64(value) ? undefined : 'must be canonical base64');
const hex: Check = (value) => (isCanonicalHex(value) ? undefined : 'must be lower-case hexadecimal');
const sha256Base64: Check = (value) => base64(value) ?? (Buffer.from(value, 'base64').length === SHA256_BYTES ? undefined : 'must be a base64 SHA-256 hash');
const text: Check = () => undefined;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural check (docs/api.md#wallet-tokens): every failing field is listed, its pointer prefixed by `pointer`. */
export function parseWalletToken(value: unknown, pointer: string): { token?: WalletPaymentToken; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const fail = (path: string, code: string, message: string): void => {
    errors.push({ field: pointer + path, code, message });
  };
  const object = (container: Record<string, unknown>, key: string, path: string, required: boolean): Record<string, unknown> | undefined => {
    const member = container[key];
    if (member === undefined) {
      if (required) fail(path, 'required', 'is required');
      return undefined;
    }
    if (!isObject(member)) {
      fail(path, 'type', 'must be an object');
      return undefined;
    }
    return member;
  };
  const string = (container: Record<string, unknown>, key: string, path: string, required: boolean, check: Check): void => {
    const member = container[key];
    if (member === undefined) {
      if (required) fail(path, 'required', 'is required');
    } else if (typeof member !== 'string') {
      fail(path, 'type', 'must be a string');
    } else {
      const problem = check(member);
      if (problem) fail(path, 'format', problem);
    }
  };

  if (!isObject(value)) {
    fail('', 'type', 'must be a wallet payment token object');
    return { errors };
  }
  const paymentData = object(value, 'paymentData', '/paymentData', true);
  if (paymentData) {
    const version = paymentData.version;
    const knownVersion = walletTokenVersions.find((known) => known === version);
    if (version === undefined) fail('/paymentData/version', 'required', 'is required');
    else if (typeof version !== 'string') fail('/paymentData/version', 'type', 'must be a string');
    else if (!knownVersion) fail('/paymentData/version', 'enum', `must be one of ${walletTokenVersions.join(', ')}`);
    string(paymentData, 'data', '/paymentData/data', true, base64);
    string(paymentData, 'signature', '/paymentData/signature', true, base64);
    const header = object(paymentData, 'header', '/paymentData/header', true);
    if (header) {
      string(header, 'publicKeyHash', '/paymentData/header/publicKeyHash', true, sha256Base64);
      string(header, 'transactionId', '/paymentData/header/transactionId', true, hex);
      string(header, 'applicationData', '/paymentData/header/applicationData', false, hex);
      for (const [key, ownVersion] of [
        ['ephemeralPublicKey', 'EC_v1'],
        ['wrappedKey', 'RSA_v1'],
      ] as const) {
        const path = `/paymentData/header/${key}`;
        if (header[key] === undefined) {
          if (knownVersion === ownVersion) fail(path, 'conditional_required', `is required for ${ownVersion}`);
        } else if (knownVersion && knownVersion !== ownVersion) {
          // Outside the signed bytes for this version: refused rather than passed on unverified.
          fail(path, 'not_allowed', `is only allowed for ${ownVersion}`);
        } else {
          string(header, key, path, false, base64);
        }
      }
    }
  }
  const paymentMethod = object(value, 'paymentMethod', '/paymentMethod', false);
  if (paymentMethod) {
    for (const key of ['displayName', 'network', 'type']) string(paymentMethod, key, `/paymentMethod/${key}`, false, text);
  }
  string(value, 'transactionIdentifier', '/transactionIdentifier', false, text);
  return errors.length > 0 ? { errors } : { token: value as unknown as WalletPaymentToken, errors };
}
