/**
 * Token confidentiality: picks the payment processing key the token names
 * (`publicKeyHash`), recovers the symmetric key (EC_v1: ECDH P-256 + the wallet's KDF;
 * RSA_v1: RSA-OAEP-SHA256 unwrap), opens `data` with AES-GCM and reads the payment inside.
 * Never puts key material or the card number into an error message.
 */
import { createDecipheriv, createHash, createPrivateKey, createPublicKey, constants, diffieHellman, privateDecrypt, type KeyObject } from 'node:crypto';
import type * as pkijs from 'pkijs';
import { certificateFromPem, merchantIdentifierHash, spkiDer } from './pki.ts';
import { WalletTokenError, type DecryptedWalletPayment, type WalletPaymentToken, type WalletProcessingKey } from './token.ts';

/** The wallet format uses a 16-byte all-zero IV: each token has its own key. */
export const walletGcmIv = Buffer.alloc(16);
const gcmTagBytes = 16;

/** EC_v1 KDF (NIST SP 800-56A concatenation, one round): SHA-256(counter ‖ Z ‖ algorithm id ‖ party U ‖ party V). */
export function ecSymmetricKey(sharedSecret: Buffer, merchantIdHash: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(sharedSecret)
    .update(Buffer.from('\x0did-aes256-GCM', 'latin1'))
    .update('Apple')
    .update(merchantIdHash)
    .digest();
}

export function publicKeyHash(certificate: pkijs.Certificate): string {
  return createHash('sha256').update(spkiDer(certificate)).digest('base64');
}

interface ProcessingKey {
  privateKey: KeyObject;
  certificate: pkijs.Certificate;
}

function selectKey(token: WalletPaymentToken, keys: WalletProcessingKey[]): ProcessingKey {
  for (const key of keys) {
    const certificate = certificateFromPem(key.certificatePem);
    if (publicKeyHash(certificate) === token.paymentData.header.publicKeyHash) return { privateKey: createPrivateKey(key.privateKeyPem), certificate };
  }
  throw new WalletTokenError('unknown_key', 'no configured payment processing key matches the token');
}

function symmetricKey(token: WalletPaymentToken, key: ProcessingKey): Buffer {
  const { header } = token.paymentData;
  if (token.paymentData.version === 'EC_v1') {
    const ephemeral = createPublicKey({ key: Buffer.from(header.ephemeralPublicKey ?? '', 'base64'), format: 'der', type: 'spki' });
    if (ephemeral.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('the ephemeral key is not on P-256');
    return ecSymmetricKey(diffieHellman({ privateKey: key.privateKey, publicKey: ephemeral }), merchantIdentifierHash(key.certificate));
  }
  const unwrapped = privateDecrypt(
    { key: key.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(header.wrappedKey ?? '', 'base64'),
  );
  if (unwrapped.length !== 16) throw new Error('the wrapped key is not an AES-128 key');
  return unwrapped;
}

function openData(data: string, key: Buffer): Buffer {
  const sealed = Buffer.from(data, 'base64');
  if (sealed.length <= gcmTagBytes) throw new Error('the data is shorter than its tag');
  const decipher = createDecipheriv(key.length === 32 ? 'aes-256-gcm' : 'aes-128-gcm', key, walletGcmIv);
  decipher.setAuthTag(sealed.subarray(sealed.length - gcmTagBytes));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - gcmTagBytes)), decipher.final()]);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The decrypted payment data, as the wallet format defines it. */
function readPayment(plaintext: Buffer): Omit<DecryptedWalletPayment, 'signedAt'> {
  let payment: Record<string, unknown>;
  try {
    payment = JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new WalletTokenError('decryption', 'the decrypted payment data is not JSON');
  }
  const invalid = (field: string): WalletTokenError => new WalletTokenError('decryption', `the decrypted payment data has no valid ${field}`);
  if (typeof payment !== 'object' || payment === null) throw invalid('object');
  const pan = payment.applicationPrimaryAccountNumber;
  if (typeof pan !== 'string' || !/^\d{12,19}$/.test(pan)) throw invalid('applicationPrimaryAccountNumber');
  const expiry = typeof payment.applicationExpirationDate === 'string' ? /^(\d\d)(\d\d)(\d\d)$/.exec(payment.applicationExpirationDate) : null;
  const expiryMonth = Number(expiry?.[2]);
  if (!expiry || expiryMonth < 1 || expiryMonth > 12) throw invalid('applicationExpirationDate');
  const currency = payment.currencyCode;
  if (typeof currency !== 'string' || !/^\d{3}$/.test(currency)) throw invalid('currencyCode');
  const amount = payment.transactionAmount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) throw invalid('transactionAmount');
  const paymentDataType = optionalString(payment.paymentDataType);
  if (!paymentDataType) throw invalid('paymentDataType');
  const details = typeof payment.paymentData === 'object' && payment.paymentData !== null ? (payment.paymentData as Record<string, unknown>) : {};
  const optional = {
    cryptogram: optionalString(details.onlinePaymentCryptogram),
    eci: optionalString(details.eciIndicator),
    deviceManufacturerIdentifier: optionalString(payment.deviceManufacturerIdentifier),
    cardholderName: optionalString(payment.cardholderName),
  };
  return {
    pan,
    expiryMonth,
    expiryYear: 2000 + Number(expiry[1]),
    currencyNumeric: currency,
    amountMinor: amount,
    paymentDataType,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** Decrypts a token whose signature has been verified. */
export function decryptWalletPayment(token: WalletPaymentToken, keys: WalletProcessingKey[]): Omit<DecryptedWalletPayment, 'signedAt'> {
  const key = selectKey(token, keys);
  let plaintext: Buffer;
  try {
    plaintext = openData(token.paymentData.data, symmetricKey(token, key));
  } catch {
    throw new WalletTokenError('decryption', `the token cannot be decrypted with the ${token.paymentData.version} processing key it names`);
  }
  return readPayment(plaintext);
}
