/** Verifying and decrypting real wallet tokens (third-party vectors, verified at their own signing time). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWalletToken, testWalletPki, type WalletPaymentToken, type WalletProcessingKey, type WalletTokenFailure, type WalletTrust } from '../../src/wallet/index.ts';
import { needs } from '../support/dependencies.ts';
import { decryptableVectors, signatureOnlyVectors, vendorRootPem, walletVectorsMissing } from './vectors.ts';

/** The tests that name a vector; the loops over the vectors run none when they are missing. */
const skip = needs(walletVectorsMissing);

const atSigningTime = (signedAt: number): WalletTrust => ({ rootsPem: [vendorRootPem], now: () => signedAt });

async function failure(token: WalletPaymentToken, trust: WalletTrust, keys: WalletProcessingKey[]): Promise<WalletTokenFailure | string> {
  try {
    await openWalletToken(token, { trust, keys });
    return 'opened';
  } catch (error) {
    return (error as { failure?: WalletTokenFailure }).failure ?? `threw ${String(error)}`;
  }
}

function flipBase64(text: string, byteIndex: number, bit = 0): string {
  const bytes = Buffer.from(text, 'base64');
  const index = byteIndex < 0 ? bytes.length + byteIndex : byteIndex;
  bytes[index] ^= 1 << bit;
  return bytes.toString('base64');
}

function flipHex(text: string, byteIndex: number, bit: number): string {
  const bytes = Buffer.from(text, 'hex');
  bytes[byteIndex] ^= 1 << bit;
  return bytes.toString('hex');
}

function withPaymentData(token: WalletPaymentToken, change: (paymentData: WalletPaymentToken['paymentData']) => void): WalletPaymentToken {
  const copy = structuredClone(token);
  change(copy.paymentData);
  return copy;
}

for (const vector of decryptableVectors()) {
  test(`${vector.name}: verifies at its signing time and decrypts to the published payment`, async () => {
    const payment = await openWalletToken(vector.token, { trust: atSigningTime(vector.signedAt), keys: [vector.key] });
    assert.deepEqual(payment, vector.payment);
  });

  test(`${vector.name}: the real clock finds it stale`, async () => {
    assert.equal(await failure(vector.token, { rootsPem: [vendorRootPem] }, [vector.key]), 'stale');
  });

  test(`${vector.name}: it is stale just past the age limit and one minute before it was signed`, async () => {
    const trust = (now: number, maxAgeMs?: number): WalletTrust => ({ rootsPem: [vendorRootPem], now: () => now, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) });
    assert.equal(await failure(vector.token, trust(vector.signedAt + 5 * 60_000), [vector.key]), 'opened');
    assert.equal(await failure(vector.token, trust(vector.signedAt + 5 * 60_000 + 1), [vector.key]), 'stale');
    assert.equal(await failure(vector.token, trust(vector.signedAt + 10 * 60_000, 10 * 60_000), [vector.key]), 'opened');
    assert.equal(await failure(vector.token, trust(vector.signedAt - 60_000), [vector.key]), 'opened');
    assert.equal(await failure(vector.token, trust(vector.signedAt - 60_001), [vector.key]), 'stale');
  });

  test(`${vector.name}: one flipped bit in data, signature, the key field or transactionId is a signature failure`, async () => {
    const keyField = vector.token.paymentData.version === 'EC_v1' ? 'ephemeralPublicKey' : 'wrappedKey';
    const flips: [string, (paymentData: WalletPaymentToken['paymentData']) => void][] = [
      [
        'first byte of data',
        (data) => {
          data.data = flipBase64(data.data, 0);
        },
      ],
      [
        'GCM tag in data',
        (data) => {
          data.data = flipBase64(data.data, -1, 7);
        },
      ],
      [
        'signature value',
        (data) => {
          data.signature = flipBase64(data.signature, -20, 3);
        },
      ],
      [
        'signed attributes (signing time)',
        (data) => {
          data.signature = flipBase64(data.signature, Buffer.from(data.signature, 'base64').lastIndexOf(Buffer.from('170d', 'hex')) + 5);
        },
      ],
      [
        keyField,
        (data) => {
          data.header[keyField] = flipBase64(data.header[keyField]!, 40, 2);
        },
      ],
      [
        'transactionId',
        (data) => {
          data.header.transactionId = flipHex(data.header.transactionId, 5, 1);
        },
      ],
      [
        'transactionId letter case (same bytes, not the same text)',
        (data) => {
          data.header.transactionId = data.header.transactionId.replace(/[a-f]/, (letter) => letter.toUpperCase());
        },
      ],
      [
        'version',
        (data) => {
          data.version = data.version.replace('_v1', '_v3');
        },
      ],
    ];
    for (const [where, flip] of flips) {
      assert.equal(await failure(withPaymentData(vector.token, flip), atSigningTime(vector.signedAt), [vector.key]), 'signature', where);
    }
  });

  test(`${vector.name}: a pinned root it does not chain to is a certificate failure`, async () => {
    assert.equal(await failure(vector.token, { rootsPem: [testWalletPki.rootPem], now: () => vector.signedAt }, [vector.key]), 'certificate');
  });

  test(`${vector.name}: a processing key the token does not name, or a changed publicKeyHash, is unknown_key`, async () => {
    const others = decryptableVectors()
      .filter((other) => other.name !== vector.name)
      .map((other) => other.key);
    assert.equal(await failure(vector.token, atSigningTime(vector.signedAt), [...others, testWalletPki.processingKey]), 'unknown_key');
    const renamed = withPaymentData(vector.token, (data) => {
      data.header.publicKeyHash = flipBase64(data.header.publicKeyHash, 0);
    });
    assert.equal(await failure(renamed, atSigningTime(vector.signedAt), [vector.key]), 'unknown_key');
  });

  test(`${vector.name}: the named certificate with another private key is a decryption failure`, async () => {
    const other =
      decryptableVectors().find((candidate) => candidate.token.paymentData.version === vector.token.paymentData.version && candidate.name !== vector.name) ??
      decryptableVectors().find((candidate) => candidate.name !== vector.name)!;
    const mismatched = { certificatePem: vector.key.certificatePem, privateKeyPem: other.key.privateKeyPem };
    assert.equal(await failure(vector.token, atSigningTime(vector.signedAt), [mismatched]), 'decryption');
  });
}

test('a second key alongside the right one does not disturb key selection (key rotation)', { skip }, async () => {
  const [newEc, oldEc] = decryptableVectors().slice(1, 3);
  for (const vector of [newEc, oldEc]) {
    const payment = await openWalletToken(vector.token, { trust: atSigningTime(vector.signedAt), keys: [newEc.key, oldEc.key] });
    assert.equal(payment.expiryYear, vector.payment.expiryYear);
  }
});

for (const vector of signatureOnlyVectors()) {
  test(`${vector.name}: signature and chain verify at its signing time (no key published, so unknown_key comes last)`, async () => {
    assert.equal(await failure(vector.token, atSigningTime(vector.signedAt), []), 'unknown_key');
    assert.equal(await failure(vector.token, { rootsPem: [vendorRootPem] }, []), 'stale');
    assert.equal(await failure(vector.token, { rootsPem: [testWalletPki.rootPem], now: () => vector.signedAt }, []), 'certificate');
    const tampered = withPaymentData(vector.token, (data) => {
      data.data = flipBase64(data.data, 10, 4);
    });
    assert.equal(await failure(tampered, atSigningTime(vector.signedAt), []), 'signature');
  });
}

test('bits of the CMS encoding that pkijs reads leniently are refused (gala signature)', { skip }, async () => {
  const [gala] = decryptableVectors();
  // Offsets in the gala CMS where pkijs alone accepted a flipped bit: end-of-contents octets,
  // lengths, the DER ECDSA values inside both certificates and the SignerInfo, and the
  // signer identifier's issuer name (compared case-insensitively by pkijs).
  const offsets = [51, 57, 980, 981, 983, 1018, 1691, 1704, 1705, 1706, 1707, 1757, 1808, 1816, 1826, 1837, 1874, 1885, 1925, 2137, 2138, 2140, 2175, 2211, 2213];
  const accepted: string[] = [];
  for (const offset of offsets) {
    for (let bit = 0; bit < 8; bit++) {
      const token = withPaymentData(gala.token, (data) => {
        data.signature = flipBase64(data.signature, offset, bit);
      });
      const outcome = await failure(token, atSigningTime(gala.signedAt), [gala.key]);
      if (outcome === 'opened' || outcome.startsWith('threw')) accepted.push(`${offset}:${bit} ${outcome}`);
    }
  }
  assert.deepEqual(accepted, []);
});

test("the parameters of the signer's signature algorithm, which nothing signs, are held to NULL (basis-theory RSA signature)", { skip }, async () => {
  const rsa = decryptableVectors().find((vector) => vector.token.paymentData.version === 'RSA_v1')!;
  const cms = Buffer.from(rsa.token.paymentData.signature, 'base64');
  const nullAt = cms.lastIndexOf(Buffer.from('06092a864886f70d01010b0500', 'hex')) + 11;
  const accepted: string[] = [];
  for (const offset of [nullAt, nullAt + 1]) {
    for (let bit = 0; bit < 8; bit++) {
      const token = withPaymentData(rsa.token, (data) => {
        data.signature = flipBase64(data.signature, offset, bit);
      });
      const outcome = await failure(token, atSigningTime(rsa.signedAt), [rsa.key]);
      if (outcome === 'opened' || outcome.startsWith('threw')) accepted.push(`${offset}:${bit} ${outcome}`);
    }
  }
  assert.deepEqual(accepted, []);
});
