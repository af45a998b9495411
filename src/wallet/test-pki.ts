/**
 * Test mode's stand-in for the wallet (docs/decisions.md#wallet): the committed test PKI
 * (made by scripts/make-test-wallet-pki.ts) and real EC_v1 tokens signed and encrypted
 * with it, which openWalletToken opens exactly as it opens the wallet's own.
 */
import { createCipheriv, createHash, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { ecSymmetricKey, publicKeyHash, walletGcmIv } from './decrypt.ts';
import { certificateFromPem, merchantIdentifierHash, pkiCrypto } from './pki.ts';
import type { WalletPaymentToken, WalletProcessingKey } from './token.ts';
import { signedContent } from './verify.ts';

const readPem = (file: string): string => readFileSync(new URL(`./test-pki/${file}`, import.meta.url), 'utf8');

export const testWalletPki: { rootPem: string; processingKey: WalletProcessingKey } = {
  rootPem: readPem('root.pem'),
  processingKey: { privateKeyPem: readPem('processing-key.pem'), certificatePem: readPem('processing-certificate.pem') },
};

/** A device identifier of the shape the wallet reports; Kassa only passes it on. */
const TEST_DEVICE_MANUFACTURER_IDENTIFIER = '040010030273';

async function signDetached(content: Buffer, signedAt: Date): Promise<string> {
  const leaf = certificateFromPem(readPem('signing-certificate.pem'));
  const intermediate = certificateFromPem(readPem('intermediate.pem'));
  const keyDer = Buffer.from(readPem('signing-key.pem').replace(/-----(BEGIN|END) PRIVATE KEY-----|\s/g, ''), 'base64');
  const signingKey = await webcrypto.subtle.importKey('pkcs8', keyDer, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const attribute = (type: string, value: asn1js.AsnType): pkijs.Attribute => new pkijs.Attribute({ type, values: [value] });
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }),
    certificates: [leaf, intermediate],
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            attribute('1.2.840.113549.1.9.3', new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })),
            attribute('1.2.840.113549.1.9.5', new asn1js.UTCTime({ valueDate: signedAt })),
            attribute('1.2.840.113549.1.9.4', new asn1js.OctetString({ valueHex: createHash('sha256').update(content).digest() })),
          ],
        }),
      }),
    ],
  });
  await signedData.sign(signingKey, 0, 'SHA-256', undefined, pkiCrypto);
  const contentInfo = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER()).toString('base64');
}

/** A real EC_v1 token, signed by the test PKI and encrypted to `testWalletPki.processingKey`. */
export async function mintTestWalletToken(
  payment: {
    pan: string;
    expiry: string;
    amountMinor: number;
    currencyNumeric: string;
    cryptogram?: string;
    eci?: string;
    network?: string;
    displayName?: string;
    type?: string;
  },
  signedAt: Date = new Date(),
): Promise<WalletPaymentToken> {
  const certificate = certificateFromPem(testWalletPki.processingKey.certificatePem);
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const sharedSecret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: createPublicKey(testWalletPki.processingKey.certificatePem) });
  const cipher = createCipheriv('aes-256-gcm', ecSymmetricKey(sharedSecret, merchantIdentifierHash(certificate)), walletGcmIv);
  const plaintext = JSON.stringify({
    applicationPrimaryAccountNumber: payment.pan,
    applicationExpirationDate: payment.expiry,
    currencyCode: payment.currencyNumeric,
    transactionAmount: payment.amountMinor,
    deviceManufacturerIdentifier: TEST_DEVICE_MANUFACTURER_IDENTIFIER,
    paymentDataType: '3DSecure',
    paymentData: {
      // A 3DSecure token always carries a cryptogram; the wallet's are 20 bytes.
      onlinePaymentCryptogram: payment.cryptogram ?? randomBytes(20).toString('base64'),
      ...(payment.eci === undefined ? {} : { eciIndicator: payment.eci }),
    },
  });
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64');
  const transactionId = randomBytes(32).toString('hex');
  const header = {
    ephemeralPublicKey: ephemeral.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    publicKeyHash: publicKeyHash(certificate),
    transactionId,
  };
  const unsigned: WalletPaymentToken = { paymentData: { version: 'EC_v1', data, signature: '', header } };
  const signature = await signDetached(signedContent(unsigned), signedAt);
  const paymentMethod = Object.fromEntries(
    Object.entries({ displayName: payment.displayName, network: payment.network, type: payment.type }).filter(([, value]) => value !== undefined),
  );
  return {
    paymentData: { ...unsigned.paymentData, signature },
    ...(Object.keys(paymentMethod).length > 0 ? { paymentMethod } : {}),
    transactionIdentifier: transactionId.toUpperCase(),
  };
}
