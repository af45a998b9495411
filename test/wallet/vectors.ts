/**
 * The real third-party wallet tokens, read where they live (never copied into the repository),
 * with their keys, signing times and the payments they decrypt to (the README table of their
 * directory and expected-decrypted.snap). Their directory is WALLETPAY_VECTORS, default
 * /work/shared/test-vectors/walletpay, the copy on the project's build machines; where the
 * tokens come from and how to lay them out: docs/testing.md#wallet-test-vectors. Without them
 * the files that use them skip (fail under CI) with `walletVectorsMissing`.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { DecryptedWalletPayment, WalletPaymentToken, WalletProcessingKey } from '../../src/wallet/index.ts';

export const vectorsDirectory = process.env.WALLETPAY_VECTORS ?? '/work/shared/test-vectors/walletpay';
const read = (path: string): string => readFileSync(`${vectorsDirectory}/${path}`, 'utf8');

/** Why the vectors cannot be read here (for `needs`), or undefined when they can. */
export const walletVectorsMissing = existsSync(`${vectorsDirectory}/roots/AppleRootCA-G3.pem`)
  ? undefined
  : `the wallet test vectors are not at ${vectorsDirectory} (set WALLETPAY_VECTORS; docs/testing.md#wallet-test-vectors)`;

/** The vendor's root as the vectors carry it ('' when they are missing: the tests using it are skipped then). */
export const vendorRootPem = walletVectorsMissing === undefined ? read('roots/AppleRootCA-G3.pem') : '';

/** The wallet's decrypted payment data, as the vendor defines it. */
interface VendorPayment {
  applicationPrimaryAccountNumber: string;
  applicationExpirationDate: string;
  currencyCode: string;
  transactionAmount: number;
  deviceManufacturerIdentifier: string;
  paymentDataType: string;
  paymentData: { onlinePaymentCryptogram: string; eciIndicator?: string };
}

/** A Jest snapshot entry is JSON apart from trailing commas. */
function snapshot(name: string): VendorPayment {
  const snap = read('basis-theory/expected-decrypted.snap');
  const match = new RegExp(`exports\\[\`${name}\`\\] = \`([\\s\\S]*?)\`;`).exec(snap);
  if (!match) throw new Error(`no snapshot "${name}"`);
  return JSON.parse(match[1].replace(/,(\s*[}\]])/g, '$1')) as VendorPayment;
}

function expected(payment: VendorPayment, signedAt: string): DecryptedWalletPayment {
  const expiry = payment.applicationExpirationDate;
  return {
    pan: payment.applicationPrimaryAccountNumber,
    expiryMonth: Number(expiry.slice(2, 4)),
    expiryYear: 2000 + Number(expiry.slice(0, 2)),
    currencyNumeric: payment.currencyCode,
    amountMinor: payment.transactionAmount,
    paymentDataType: payment.paymentDataType,
    cryptogram: payment.paymentData.onlinePaymentCryptogram,
    ...(payment.paymentData.eciIndicator === undefined ? {} : { eci: payment.paymentData.eciIndicator }),
    deviceManufacturerIdentifier: payment.deviceManufacturerIdentifier,
    signedAt: Date.parse(signedAt),
  };
}

export interface DecryptableVector {
  name: string;
  token: WalletPaymentToken;
  key: WalletProcessingKey;
  signedAt: number;
  payment: DecryptedWalletPayment;
}

function decryptable(name: string, tokenFile: string, keyFile: string, certificateFile: string, signedAt: string, payment: VendorPayment): DecryptableVector {
  const json = JSON.parse(read(tokenFile)) as Record<string, unknown>;
  // gala publishes paymentData alone (no paymentMethod, no transactionIdentifier).
  const token = ('paymentData' in json ? json : { paymentData: json }) as unknown as WalletPaymentToken;
  return {
    name,
    token,
    key: { privateKeyPem: read(keyFile), certificatePem: read(certificateFile) },
    signedAt: Date.parse(signedAt),
    payment: expected(payment, signedAt),
  };
}

/** Fresh copies on every call: tests mutate tokens. */
export function decryptableVectors(): DecryptableVector[] {
  if (walletVectorsMissing !== undefined) return [];
  return [
    decryptable('gala (EC_v1)', 'gala/token.json', 'gala/private_key.pem', 'gala/certificate.pem', '2021-09-01T19:03:06Z', {
      // From the README table: gala publishes no snapshot, and its token has no eciIndicator.
      applicationPrimaryAccountNumber: '5353756319181169',
      applicationExpirationDate: '240930',
      currencyCode: '840',
      transactionAmount: 100,
      deviceManufacturerIdentifier: '050110030273',
      paymentDataType: '3DSecure',
      paymentData: { onlinePaymentCryptogram: 'AMwBRjPWDnAgAA7Rls7mAoABFA==' },
    }),
    decryptable(
      'basis-theory EC new',
      'basis-theory/ec/token.new.json',
      'basis-theory/ec/private.new.key',
      'basis-theory/ec/apple_pay.new.pem',
      '2023-09-13T13:49:38Z',
      snapshot('decrypt should decrypt using EC 1'),
    ),
    decryptable(
      'basis-theory EC old',
      'basis-theory/ec/token.old.json',
      'basis-theory/ec/private.old.key',
      'basis-theory/ec/apple_pay.old.pem',
      '2023-03-20T20:46:55Z',
      snapshot('decrypt should support rotation 1'),
    ),
    decryptable(
      'basis-theory RSA',
      'basis-theory/rsa/token.json',
      'basis-theory/rsa/private.key',
      'basis-theory/rsa/apple_pay.pem',
      '2024-01-08T17:54:44Z',
      snapshot('decrypt should decrypt using RSA 1'),
    ),
  ];
}

/** processout publishes no private key: these tokens can only be verified. Signing times read from their CMS. */
export function signatureOnlyVectors(): { name: string; token: WalletPaymentToken; signedAt: number }[] {
  if (walletVectorsMissing !== undefined) return [];
  return [
    { name: 'processout EC_v1', token: JSON.parse(read('processout/token.json')) as WalletPaymentToken, signedAt: Date.parse('2017-02-01T18:45:06Z') },
    { name: 'processout RSA_v1', token: JSON.parse(read('processout/token-rsa.json')) as WalletPaymentToken, signedAt: Date.parse('2017-02-01T21:56:53Z') },
  ];
}
