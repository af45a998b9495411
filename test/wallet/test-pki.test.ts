/** Test mode's wallet PKI and minted tokens, and the pinned vendor root. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as pkijs from 'pkijs';
import { mintTestWalletToken, openWalletToken, parseWalletToken, testWalletPki, walletVendorRootPem, type WalletTokenFailure } from '../../src/wallet/index.ts';
import { needs } from '../support/dependencies.ts';
import { vendorRootPem, walletVectorsMissing } from './vectors.ts';

const skip = needs(walletVectorsMissing);

const testPki = (file: string): X509Certificate => new X509Certificate(readFileSync(new URL(`../../src/wallet/test-pki/${file}`, import.meta.url)));
const testTrust = { rootsPem: [testWalletPki.rootPem] };
const keys = [testWalletPki.processingKey];
const payment = { pan: '4111111111111111', expiry: '301231', amountMinor: 1234, currencyNumeric: '978' };

async function failure(promise: Promise<unknown>): Promise<WalletTokenFailure | 'opened'> {
  try {
    await promise;
    return 'opened';
  } catch (error) {
    return (error as { failure: WalletTokenFailure }).failure;
  }
}

/** DER of an X.509 extension's value (node:crypto does not expose private extensions). */
function extensionValue(certificate: X509Certificate, oid: string): Buffer | undefined {
  const extension = pkijs.Certificate.fromBER(certificate.raw).extensions?.find((candidate) => candidate.extnID === oid);
  return extension && Buffer.from(extension.extnValue.valueBlock.valueHexView);
}

test('the test PKI: root → intermediate (…6.2.14, CA) → signing leaf (…6.29) and processing certificate (…6.32), valid for decades', () => {
  const root = testPki('root.pem');
  const intermediate = testPki('intermediate.pem');
  const signing = testPki('signing-certificate.pem');
  const processing = testPki('processing-certificate.pem');
  assert.ok(root.verify(root.publicKey) && root.ca);
  assert.ok(intermediate.checkIssued(root) && intermediate.verify(root.publicKey) && intermediate.ca);
  for (const leaf of [signing, processing]) assert.ok(leaf.checkIssued(intermediate) && leaf.verify(intermediate.publicKey) && !leaf.ca);
  assert.deepEqual(extensionValue(intermediate, '1.2.840.113635.100.6.2.14'), Buffer.from([0x05, 0x00]));
  assert.deepEqual(extensionValue(signing, '1.2.840.113635.100.6.29'), Buffer.from([0x05, 0x00]));
  assert.equal(extensionValue(root, '1.2.840.113635.100.6.2.14'), undefined);
  assert.equal(extensionValue(signing, '1.2.840.113635.100.6.2.14'), undefined);
  const merchantIdHash = createHash('sha256').update('merchant.dev.kassa.test').digest('hex').toUpperCase();
  assert.deepEqual(extensionValue(processing, '1.2.840.113635.100.6.32'), Buffer.concat([Buffer.from([0x0c, 64]), Buffer.from(merchantIdHash)]));
  for (const certificate of [root, intermediate, signing, processing]) {
    assert.ok(Date.parse(certificate.validFrom) <= Date.parse('2025-01-01T00:00:00Z'));
    assert.ok(Date.parse(certificate.validTo) >= Date.parse('2049-12-31T00:00:00Z'));
  }
  const publicFromPrivate = createPublicKey(createPrivateKey(testWalletPki.processingKey.privateKeyPem)).export({ type: 'spki', format: 'der' });
  assert.deepEqual(publicFromPrivate, processing.publicKey.export({ type: 'spki', format: 'der' }));
  assert.equal(testWalletPki.rootPem, readFileSync(new URL('../../src/wallet/test-pki/root.pem', import.meta.url), 'utf8'));
});

test('a minted token passes the structural check and opens to the payment it was minted with', async () => {
  const token = await mintTestWalletToken({
    ...payment,
    cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=',
    eci: '05',
    network: 'Visa',
    displayName: 'Visa 1111',
    type: 'debit',
  });
  assert.deepEqual(parseWalletToken(token, '').errors, []);
  assert.equal(token.paymentData.version, 'EC_v1');
  assert.deepEqual(token.paymentMethod, { displayName: 'Visa 1111', network: 'Visa', type: 'debit' });
  assert.equal(token.transactionIdentifier, token.paymentData.header.transactionId.toUpperCase());
  const opened = await openWalletToken(token, { trust: testTrust, keys });
  assert.ok(Math.abs(opened.signedAt - Date.now()) < 5_000);
  assert.deepEqual(opened, {
    pan: '4111111111111111',
    expiryMonth: 12,
    expiryYear: 2030,
    currencyNumeric: '978',
    amountMinor: 1234,
    paymentDataType: '3DSecure',
    cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=',
    eci: '05',
    deviceManufacturerIdentifier: '040010030273',
    signedAt: opened.signedAt,
  });
});

test('minted tokens carry a fresh transaction id, ephemeral key and cryptogram each time', async () => {
  const [first, second] = await Promise.all([mintTestWalletToken(payment), mintTestWalletToken(payment)]);
  assert.notEqual(first.paymentData.header.transactionId, second.paymentData.header.transactionId);
  assert.notEqual(first.paymentData.header.ephemeralPublicKey, second.paymentData.header.ephemeralPublicKey);
  const [a, b] = await Promise.all([first, second].map((token) => openWalletToken(token, { trust: testTrust, keys })));
  assert.ok(a.cryptogram && b.cryptogram && a.cryptogram !== b.cryptogram);
  assert.equal(first.paymentMethod, undefined);
});

test('the chain is checked at the signing time: a token signed before the test PKI existed fails, one signed in 2040 passes with a 2040 clock', async () => {
  const early = await mintTestWalletToken(payment, new Date('2024-06-01T12:00:00Z'));
  assert.equal(await failure(openWalletToken(early, { trust: { ...testTrust, now: () => Date.parse('2024-06-01T12:00:00Z') }, keys })), 'certificate');
  const later = await mintTestWalletToken(payment, new Date('2040-06-01T12:00:00Z'));
  assert.equal(await failure(openWalletToken(later, { trust: { ...testTrust, now: () => Date.parse('2040-06-01T12:00:30Z') }, keys })), 'opened');
  assert.equal(await failure(openWalletToken(later, { trust: testTrust, keys })), 'stale');
});

test('freshness: up to maxAgeMs old and at most a minute ahead of the clock', async () => {
  const now = Date.now();
  const signedAgo = async (ms: number, maxAgeMs?: number) =>
    failure(
      openWalletToken(await mintTestWalletToken(payment, new Date(now - ms)), { trust: { ...testTrust, now: () => now, ...(maxAgeMs ? { maxAgeMs } : {}) }, keys }),
    );
  assert.equal(await signedAgo(4 * 60_000), 'opened');
  assert.equal(await signedAgo(6 * 60_000), 'stale');
  assert.equal(await signedAgo(6 * 60_000, 10 * 60_000), 'opened');
  assert.equal(await signedAgo(-30_000), 'opened');
  assert.equal(await signedAgo(-2 * 60_000), 'stale');
});

test('test tokens do not open against the vendor root, and the vendor root is the published one', { skip }, async () => {
  const token = await mintTestWalletToken(payment);
  assert.equal(await failure(openWalletToken(token, { trust: { rootsPem: [walletVendorRootPem] }, keys })), 'certificate');
  assert.equal(
    new X509Certificate(walletVendorRootPem).fingerprint256,
    '63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79',
  );
  assert.equal(walletVendorRootPem, vendorRootPem);
});
