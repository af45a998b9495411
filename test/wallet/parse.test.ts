/** The structural check of a wallet token (docs/api.md#wallet-tokens): every malformed field is reported with its pointer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWalletToken, type WalletPaymentToken } from '../../src/wallet/index.ts';
import { needs } from '../support/dependencies.ts';
import { decryptableVectors, signatureOnlyVectors, walletVectorsMissing } from './vectors.ts';

const skip = needs(walletVectorsMissing);

const pointer = '/details/walletPayEncryptedToken';
const [gala, ecToken, , rsaToken] = decryptableVectors().map((vector) => vector.token);

function fieldsOf(value: unknown): [string, string][] {
  return parseWalletToken(value, pointer).errors.map((error) => [error.field, error.code]);
}

/** A copy of the token with one path set (undefined deletes it). */
function edit(token: WalletPaymentToken, path: string, value: unknown): unknown {
  const copy = structuredClone(token) as unknown as Record<string, unknown>;
  const keys = path.split('/').slice(1);
  const last = keys.pop()!;
  const parent = keys.reduce((node, key) => node[key] as Record<string, unknown>, copy);
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

test('every real token passes the structural check and comes back as delivered', { skip }, () => {
  for (const token of [...decryptableVectors().map((vector) => vector.token), ...signatureOnlyVectors().map((vector) => vector.token)]) {
    const result = parseWalletToken(token, pointer);
    assert.deepEqual(result.errors, []);
    assert.equal(result.token, token);
  }
});

test('a single malformed field is reported with its pointer and code', { skip }, () => {
  const cases: [string, unknown, WalletPaymentToken, [string, string][]][] = [
    ['/paymentData', undefined, ecToken, [['/paymentData', 'required']]],
    ['/paymentData', 'x', ecToken, [['/paymentData', 'type']]],
    ['/paymentData/version', undefined, ecToken, [['/paymentData/version', 'required']]],
    ['/paymentData/version', 1, ecToken, [['/paymentData/version', 'type']]],
    ['/paymentData/version', 'EC_v2', ecToken, [['/paymentData/version', 'enum']]],
    ['/paymentData/data', undefined, ecToken, [['/paymentData/data', 'required']]],
    ['/paymentData/data', 'not base64!', ecToken, [['/paymentData/data', 'format']]],
    ['/paymentData/data', 'QUJD', ecToken, []],
    ['/paymentData/data', 'QUI', ecToken, [['/paymentData/data', 'format']]],
    ['/paymentData/data', 'QUJ=', ecToken, [['/paymentData/data', 'format']]],
    ['/paymentData/data', '', ecToken, [['/paymentData/data', 'format']]],
    ['/paymentData/signature', 42, ecToken, [['/paymentData/signature', 'type']]],
    ['/paymentData/header', undefined, ecToken, [['/paymentData/header', 'required']]],
    ['/paymentData/header', [], ecToken, [['/paymentData/header', 'type']]],
    ['/paymentData/header/publicKeyHash', 'QUJD', ecToken, [['/paymentData/header/publicKeyHash', 'format']]],
    ['/paymentData/header/publicKeyHash', undefined, ecToken, [['/paymentData/header/publicKeyHash', 'required']]],
    ['/paymentData/header/transactionId', 'ABCD', ecToken, [['/paymentData/header/transactionId', 'format']]],
    ['/paymentData/header/transactionId', 'abc', ecToken, [['/paymentData/header/transactionId', 'format']]],
    ['/paymentData/header/transactionId', undefined, ecToken, [['/paymentData/header/transactionId', 'required']]],
    ['/paymentData/header/applicationData', 'zz', ecToken, [['/paymentData/header/applicationData', 'format']]],
    ['/paymentData/header/applicationData', '00ff', ecToken, []],
    ['/paymentData/header/ephemeralPublicKey', undefined, ecToken, [['/paymentData/header/ephemeralPublicKey', 'conditional_required']]],
    ['/paymentData/header/ephemeralPublicKey', '%%', ecToken, [['/paymentData/header/ephemeralPublicKey', 'format']]],
    ['/paymentData/header/wrappedKey', 'QUJD', ecToken, [['/paymentData/header/wrappedKey', 'not_allowed']]],
    ['/paymentData/header/wrappedKey', undefined, rsaToken, [['/paymentData/header/wrappedKey', 'conditional_required']]],
    ['/paymentData/header/ephemeralPublicKey', 'QUJD', rsaToken, [['/paymentData/header/ephemeralPublicKey', 'not_allowed']]],
    ['/paymentMethod', 'Visa', ecToken, [['/paymentMethod', 'type']]],
    ['/paymentMethod/network', 7, ecToken, [['/paymentMethod/network', 'type']]],
    ['/paymentMethod/type', null, ecToken, [['/paymentMethod/type', 'type']]],
    ['/paymentMethod/displayName', undefined, ecToken, []],
    ['/transactionIdentifier', {}, ecToken, [['/transactionIdentifier', 'type']]],
    ['/transactionIdentifier', undefined, ecToken, []],
  ];
  for (const [path, value, token, expected] of cases) {
    const fields = expected.map(([field, code]): [string, string] => [pointer + field, code]);
    assert.deepEqual(fieldsOf(edit(token, path, value)), fields, `${path} = ${JSON.stringify(value)}`);
  }
});

test('every malformed field is reported at once', { skip }, () => {
  const token = {
    paymentData: { version: 'EC_v1', data: 7, signature: 'a b', header: { publicKeyHash: '', transactionId: 'XYZ', wrappedKey: 'QUJD' } },
    paymentMethod: { displayName: false, network: [], type: 1 },
    transactionIdentifier: 5,
  };
  assert.deepEqual(
    fieldsOf(token),
    [
      ['/paymentData/data', 'type'],
      ['/paymentData/signature', 'format'],
      ['/paymentData/header/publicKeyHash', 'format'],
      ['/paymentData/header/transactionId', 'format'],
      ['/paymentData/header/ephemeralPublicKey', 'conditional_required'],
      ['/paymentData/header/wrappedKey', 'not_allowed'],
      ['/paymentMethod/displayName', 'type'],
      ['/paymentMethod/network', 'type'],
      ['/paymentMethod/type', 'type'],
      ['/transactionIdentifier', 'type'],
    ].map(([field, code]) => [pointer + field, code]),
  );
  assert.equal(parseWalletToken(token, pointer).token, undefined);
});

test('a value that is not an object is reported at the pointer itself', { skip }, () => {
  for (const value of [null, 'token', 3, [gala]]) assert.deepEqual(fieldsOf(value), [[pointer, 'type']], JSON.stringify(value));
  assert.deepEqual(
    parseWalletToken('x', '/encryptedToken').errors.map((error) => error.field),
    ['/encryptedToken'],
  );
});
