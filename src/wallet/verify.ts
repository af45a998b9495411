/**
 * Token authenticity: the detached CMS SignedData in `paymentData.signature` must sign
 * ephemeralPublicKey|wrappedKey ‖ data ‖ transactionId ‖ applicationData with a leaf
 * certificate (OID …6.29) issued by the wallet's intermediate (OID …6.2.14) that chains to
 * a pinned root, all valid at the signing time; the signing time must be recent.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certificatesFromPem, extensionOf, pkiCrypto, toArrayBuffer, walletOids } from './pki.ts';
import { WalletTokenError, type WalletPaymentToken, type WalletTrust } from './token.ts';

const DEFAULT_MAX_AGE_MS = 5 * 60_000;
/** The wallet device's clock may run a little ahead of ours. */
const FUTURE_SKEW_MS = 60_000;

const oids = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;
const signatureAlgorithms = new Set(['1.2.840.10045.4.3.2' /* ecdsa-with-SHA256 */, '1.2.840.113549.1.1.11' /* sha256WithRSAEncryption */]);

function signatureFailure(message: string): WalletTokenError {
  return new WalletTokenError('signature', message);
}

/** The bytes the wallet signed, in the order its format fixes. */
export function signedContent(token: WalletPaymentToken): Buffer {
  const { header, data } = token.paymentData;
  const key = header.ephemeralPublicKey ?? header.wrappedKey ?? '';
  return Buffer.concat([
    Buffer.from(key, 'base64'),
    Buffer.from(data, 'base64'),
    Buffer.from(header.transactionId, 'hex'),
    Buffer.from(header.applicationData ?? '', 'hex'),
  ]);
}

/**
 * A DER ECDSA-Sig-Value with minimal positive integers. pkijs converts these leniently
 * (it ignores tags and leading bytes), so a changed bit there would go unnoticed.
 */
function isStrictEcdsaSignature(bytes: Uint8Array): boolean {
  const parsed = asn1js.fromBER(bytes);
  const sequence = parsed.result;
  const hasTag = (element: asn1js.AsnType, tagNumber: number, constructed: boolean): boolean =>
    element.idBlock.tagClass === 1 && element.idBlock.tagNumber === tagNumber && element.idBlock.isConstructed === constructed;
  if (parsed.offset !== bytes.length || !(sequence instanceof asn1js.Sequence) || !hasTag(sequence, 16, true)) return false;
  if (sequence.lenBlock.isIndefiniteForm || !Buffer.from(sequence.toBER()).equals(Buffer.from(bytes))) return false;
  const integers = sequence.valueBlock.value;
  return (
    integers.length === 2 &&
    integers.every((integer) => {
      if (!(integer instanceof asn1js.Integer) || !hasTag(integer, 2, false)) return false;
      const [first = 0, second = 0] = integer.valueBlock.valueHexView;
      const length = integer.valueBlock.valueHexView.length;
      return length > 0 && (first & 0x80) === 0 && !(length > 1 && first === 0 && (second & 0x80) === 0);
    })
  );
}

const ecdsaAlgorithm = /^1\.2\.840\.10045\.4\./;

function hasStrictSignatureEncoding(certificate: pkijs.Certificate): boolean {
  const value = certificate.signatureValue;
  if (value.valueBlock.unusedBits !== 0) return false;
  return !ecdsaAlgorithm.test(certificate.signatureAlgorithm.algorithmId) || isStrictEcdsaSignature(value.valueBlock.valueHexView);
}

/**
 * Parses the CMS strictly: anything the signature does not cover (versions, the outer
 * content types, unsigned attributes, lengths, trailing bytes, signature encodings) is
 * held to the one shape the wallet produces, so no bit of the token can change without
 * the token being refused. The wallet's BER (indefinite lengths) re-encodes byte for byte.
 */
function parseSignedData(signature: string): { signedData: pkijs.SignedData; signer: pkijs.SignerInfo; signedAt: Date } {
  const der = Buffer.from(signature, 'base64');
  const parsed = asn1js.fromBER(toArrayBuffer(der));
  if (parsed.offset !== der.length || !Buffer.from(parsed.result.toBER()).equals(der)) {
    throw signatureFailure('the signature is not one canonically encoded ASN.1 structure');
  }
  let signedData: pkijs.SignedData;
  try {
    const contentInfo = new pkijs.ContentInfo({ schema: parsed.result });
    if (contentInfo.contentType !== oids.signedData) throw new Error('not SignedData');
    signedData = new pkijs.SignedData({ schema: contentInfo.content });
  } catch {
    throw signatureFailure('the signature is not a CMS SignedData');
  }
  const signer = signedData.signerInfos[0];
  const shapeProblems = [
    signedData.version !== 1 && 'SignedData version',
    signedData.signerInfos.length !== 1 && 'signer count',
    signedData.encapContentInfo.eContentType !== oids.data && 'content type',
    signedData.encapContentInfo.eContent !== undefined && 'attached content',
    signedData.crls !== undefined && 'revocation data',
    (signedData.digestAlgorithms.length !== 1 || signedData.digestAlgorithms[0].algorithmId !== oids.sha256) && 'digest algorithms',
    signer && signer.version !== 1 && 'SignerInfo version',
    signer && !(signer.sid instanceof pkijs.IssuerAndSerialNumber) && 'signer identifier',
    signer && signer.digestAlgorithm.algorithmId !== oids.sha256 && 'digest algorithm',
    signer && !signatureAlgorithms.has(signer.signatureAlgorithm.algorithmId) && 'signature algorithm',
    signer && signer.unsignedAttrs !== undefined && 'unsigned attributes',
    signer && ecdsaAlgorithm.test(signer.signatureAlgorithm.algorithmId) && !isStrictEcdsaSignature(signer.signature.valueBlock.valueHexView) && 'signature encoding',
    !(signedData.certificates ?? []).every((certificate) => certificate instanceof pkijs.Certificate && hasStrictSignatureEncoding(certificate)) &&
      'certificate signature encoding',
  ].filter((problem): problem is string => problem !== false);
  for (const algorithm of [...signedData.digestAlgorithms, signer?.digestAlgorithm, signer?.signatureAlgorithm].filter((a) => a !== undefined)) {
    if (algorithm.algorithmParams !== undefined && !(algorithm.algorithmParams instanceof asn1js.Null)) shapeProblems.push('algorithm parameters');
  }
  if (!signer || shapeProblems.length > 0) throw signatureFailure(`unexpected CMS structure (${shapeProblems.join(', ')})`);

  const attributes = signer.signedAttrs?.attributes ?? [];
  const single = (type: string): unknown => {
    const matching = attributes.filter((attribute) => attribute.type === type);
    return matching.length === 1 && matching[0].values.length === 1 ? matching[0].values[0] : undefined;
  };
  const contentType = single(oids.contentType);
  if (!(contentType instanceof asn1js.ObjectIdentifier) || contentType.valueBlock.toString() !== oids.data) {
    throw signatureFailure('the signed content-type attribute is missing or not data');
  }
  if (!(single(oids.messageDigest) instanceof asn1js.OctetString)) throw signatureFailure('the signed message-digest attribute is missing');
  const signingTime = single(oids.signingTime);
  if (!(signingTime instanceof asn1js.UTCTime || signingTime instanceof asn1js.GeneralizedTime)) {
    throw signatureFailure('the signed signing-time attribute is missing');
  }
  return { signedData, signer, signedAt: signingTime.toDate() };
}

function signerCertificate(signedData: pkijs.SignedData, signer: pkijs.SignerInfo): pkijs.Certificate {
  const sid = signer.sid as pkijs.IssuerAndSerialNumber;
  // Byte-exact: pkijs compares names case-insensitively, and the signer identifier is not signed.
  const certificate = (signedData.certificates as pkijs.Certificate[]).find(
    (candidate) => candidate.issuer.isEqual(sid.issuer.valueBeforeDecode) && candidate.serialNumber.isEqual(sid.serialNumber),
  );
  if (!certificate) throw signatureFailure('the signer certificate is not in the signature');
  return certificate;
}

async function verifyChain(signedData: pkijs.SignedData, leaf: pkijs.Certificate, rootsPem: string[], signedAt: Date): Promise<void> {
  if (!extensionOf(leaf, walletOids.signingLeaf)) throw new WalletTokenError('certificate', 'the signer certificate is not a wallet signing certificate');
  const intermediates = (signedData.certificates as pkijs.Certificate[]).filter(
    (certificate) => certificate !== leaf && extensionOf(certificate, walletOids.intermediateCa) !== undefined,
  );
  if (intermediates.length !== 1) throw new WalletTokenError('certificate', 'the signature does not carry the wallet intermediate certificate');
  const roots = rootsPem.flatMap(certificatesFromPem);
  // The leaf goes last: the engine builds the path from the last certificate it is given.
  const engine = new pkijs.CertificateChainValidationEngine({ trustedCerts: roots, certs: [intermediates[0], leaf], checkDate: signedAt });
  const result = await engine.verify({}, pkiCrypto).catch(() => undefined);
  const path = result?.result ? (result.certificatePath ?? []) : [];
  const [pathLeaf, pathIntermediate, pathRoot] = path;
  const sameAs = (a: pkijs.Certificate | undefined, b: pkijs.Certificate): boolean => a !== undefined && Buffer.from(a.tbsView).equals(Buffer.from(b.tbsView));
  const chained = path.length === 3 && sameAs(pathLeaf, leaf) && sameAs(pathIntermediate, intermediates[0]) && roots.some((root) => sameAs(pathRoot, root));
  if (!chained) {
    throw new WalletTokenError(
      'certificate',
      `the signing certificate does not chain to a pinned root at the signing time${result?.resultMessage ? ` (${result.resultMessage})` : ''}`,
    );
  }
}

/** Verifies the token's signature, certificate chain and freshness; returns the signing time (epoch ms). */
export async function verifyWalletSignature(token: WalletPaymentToken, trust: WalletTrust): Promise<number> {
  let parsed: ReturnType<typeof parseSignedData> & { leaf: pkijs.Certificate };
  try {
    const cms = parseSignedData(token.paymentData.signature);
    parsed = { ...cms, leaf: signerCertificate(cms.signedData, cms.signer) };
  } catch (error) {
    if (error instanceof WalletTokenError) throw error;
    throw signatureFailure('the signature cannot be parsed');
  }
  const { signedData, signedAt, leaf } = parsed;
  const outcome = await signedData.verify({ signer: 0, data: toArrayBuffer(signedContent(token)), extendedMode: true }, pkiCrypto).catch(() => undefined);
  if (outcome?.signatureVerified !== true) throw signatureFailure('the signature does not match the token');
  await verifyChain(signedData, leaf, trust.rootsPem, signedAt);

  const now = (trust.now ?? Date.now)();
  const age = now - signedAt.getTime();
  if (age > (trust.maxAgeMs ?? DEFAULT_MAX_AGE_MS) || age < -FUTURE_SKEW_MS) {
    throw new WalletTokenError('stale', `the token was signed at ${signedAt.toISOString()}, outside the accepted window`);
  }
  return signedAt.getTime();
}
