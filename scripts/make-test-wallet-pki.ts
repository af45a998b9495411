/**
 * Generates the test-mode wallet PKI once (docs/decisions.md#wallet: in test mode a built-in
 * test CA and keys stand in for the wallet's): a root, an intermediate with the wallet's
 * intermediate OID, a token-signing leaf with the signing OID, and a payment processing
 * key whose certificate carries the merchant identifier extension. The PEM files are
 * committed under src/wallet/test-pki/; rerunning replaces them and so invalidates every
 * test token minted before. The root's and intermediate's keys are not kept.
 *
 *   node --import tsx scripts/make-test-wallet-pki.ts
 */
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certificateToPem, pkiCrypto, walletOids } from '../src/wallet/pki.ts';

const { subtle } = webcrypto;
const notBefore = new Date('2025-01-01T00:00:00Z');
/** The last instant UTCTime can express: decades of validity without GeneralizedTime. */
const notAfter = new Date('2049-12-31T23:59:59Z');

/** Test mode's stand-in merchant identifier; the certificate carries its SHA-256 in hex. */
const testMerchantIdentifier = 'merchant.dev.kassa.test';

const keyUsage = { digitalSignature: 0x80, keyAgreement: 0x08, keyCertSign: 0x04, cRLSign: 0x02 } as const;

interface Issued {
  certificate: pkijs.Certificate;
  keys: CryptoKeyPair;
  keyIdentifier: Buffer;
}

/** Common name only: pkijs puts every attribute of a name into one (multi-valued) RDN. */
function name(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: commonName }) })],
  });
}

function extension(extnID: string, critical: boolean, value: asn1js.AsnType): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function keyUsageExtension(bits: number): pkijs.Extension {
  const unusedBits = Math.min(7, Math.log2(bits & -bits));
  return extension('2.5.29.15', true, new asn1js.BitString({ valueHex: new Uint8Array([bits]), unusedBits }));
}

async function issue(commonName: string, issuer: Issued | undefined, extensions: pkijs.Extension[]): Promise<Issued> {
  const keys = (await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  const serial = randomBytes(8);
  serial[0] &= 0x7f;
  certificate.serialNumber = new asn1js.Integer({ valueHex: serial });
  certificate.subject = name(commonName);
  certificate.issuer = issuer ? issuer.certificate.subject : certificate.subject;
  certificate.notBefore.value = notBefore;
  certificate.notAfter.value = notAfter;
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto);
  const keyIdentifier = createHash('sha1').update(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
  const authorityKeyIdentifier = new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: (issuer ?? { keyIdentifier }).keyIdentifier }) });
  certificate.extensions = [
    extension('2.5.29.14', false, new asn1js.OctetString({ valueHex: keyIdentifier })),
    extension('2.5.29.35', false, authorityKeyIdentifier.toSchema()),
    ...extensions,
  ];
  await certificate.sign((issuer?.keys ?? keys).privateKey, 'SHA-256', pkiCrypto);
  return { certificate, keys, keyIdentifier };
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const base64 = Buffer.from(await subtle.exportKey('pkcs8', key)).toString('base64');
  return `-----BEGIN PRIVATE KEY-----\n${base64.replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
}

const ca = (pathLength?: number): pkijs.Extension =>
  extension('2.5.29.19', true, new pkijs.BasicConstraints({ cA: true, ...(pathLength === undefined ? {} : { pathLenConstraint: pathLength }) }).toSchema());
const endEntity = extension('2.5.29.19', true, new pkijs.BasicConstraints({ cA: false }).toSchema());
const marker = (oid: string): pkijs.Extension => extension(oid, false, new asn1js.Null());

const root = await issue('Kassa Test Mode Wallet Root CA', undefined, [ca(), keyUsageExtension(keyUsage.keyCertSign | keyUsage.cRLSign)]);
const intermediate = await issue('Kassa Test Mode Wallet Integration CA', root, [
  ca(0),
  keyUsageExtension(keyUsage.keyCertSign | keyUsage.cRLSign),
  marker(walletOids.intermediateCa),
]);
const signing = await issue('Kassa Test Mode Wallet Token Signing', intermediate, [
  endEntity,
  keyUsageExtension(keyUsage.digitalSignature),
  marker(walletOids.signingLeaf),
]);
const merchantIdentifierHash = createHash('sha256').update(testMerchantIdentifier).digest('hex').toUpperCase();
const processing = await issue(`Merchant ID: ${testMerchantIdentifier}`, intermediate, [
  endEntity,
  keyUsageExtension(keyUsage.keyAgreement),
  extension(walletOids.merchantIdentifier, false, new asn1js.Utf8String({ value: merchantIdentifierHash })),
]);

const directory = new URL('../src/wallet/test-pki/', import.meta.url);
mkdirSync(directory, { recursive: true });
const files: Record<string, string> = {
  'root.pem': certificateToPem(root.certificate),
  'intermediate.pem': certificateToPem(intermediate.certificate),
  'signing-certificate.pem': certificateToPem(signing.certificate),
  'signing-key.pem': await privateKeyPem(signing.keys.privateKey),
  'processing-certificate.pem': certificateToPem(processing.certificate),
  'processing-key.pem': await privateKeyPem(processing.keys.privateKey),
};
for (const [file, pem] of Object.entries(files)) writeFileSync(new URL(file, directory), pem);
console.log(`wrote ${Object.keys(files).join(', ')} to ${directory.pathname}`);
