/**
 * The wallet PKI's vocabulary: its certificate extension OIDs, PEM ↔ pkijs certificates,
 * and the merchant identifier a payment processing certificate carries. pkijs is given
 * Node's WebCrypto explicitly rather than relying on its process-global engine.
 */
import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export const walletOids = {
  /** Marks the wallet's token-signing leaf certificate. */
  signingLeaf: '1.2.840.113635.100.6.29',
  /** Marks the wallet's intermediate CA for token signing. */
  intermediateCa: '1.2.840.113635.100.6.2.14',
  /** Holds, in a payment processing certificate, the hex SHA-256 of the merchant identifier. */
  merchantIdentifier: '1.2.840.113635.100.6.32',
} as const;

export const pkiCrypto = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as Crypto });

export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Every CERTIFICATE block in a PEM text (a file may hold a bundle). */
export function certificatesFromPem(pem: string): pkijs.Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => {
    const der = Buffer.from(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64');
    return pkijs.Certificate.fromBER(toArrayBuffer(der));
  });
}

export function certificateFromPem(pem: string): pkijs.Certificate {
  const [certificate] = certificatesFromPem(pem);
  if (!certificate) throw new Error('no CERTIFICATE block in the PEM text');
  return certificate;
}

export function certificateToPem(certificate: pkijs.Certificate): string {
  const base64 = Buffer.from(certificate.toSchema().toBER()).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

export function extensionOf(certificate: pkijs.Certificate, oid: string): pkijs.Extension | undefined {
  return certificate.extensions?.find((extension) => extension.extnID === oid);
}

/** DER SubjectPublicKeyInfo, whose SHA-256 is what a token's `publicKeyHash` names. */
export function spkiDer(certificate: pkijs.Certificate): Buffer {
  return Buffer.from(certificate.subjectPublicKeyInfo.toSchema().toBER());
}

/**
 * The 32 bytes the EC_v1 KDF takes as "SHA-256(merchant identifier)": the wallet vendor
 * puts that hash, as 64 hex characters in a UTF8String, into the certificate.
 */
export function merchantIdentifierHash(certificate: pkijs.Certificate): Buffer {
  const extension = extensionOf(certificate, walletOids.merchantIdentifier);
  if (!extension) throw new Error(`the processing certificate has no merchant identifier extension (${walletOids.merchantIdentifier})`);
  const parsed = asn1js.fromBER(extension.extnValue.valueBlock.valueHexView);
  const value = parsed.result;
  const hex = value instanceof asn1js.Utf8String || value instanceof asn1js.IA5String ? value.valueBlock.value : '';
  if (parsed.offset === -1 || !/^[0-9A-Fa-f]{64}$/.test(hex)) throw new Error('the merchant identifier extension does not hold a hex SHA-256');
  return Buffer.from(hex, 'hex');
}
