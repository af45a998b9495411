/**
 * Accepting a wallet token for a payment (wallet/accept.ts) with a real token signed by the
 * wallet vendor's PKI, through the live trust path (pinned vendor root, configured
 * processing key), and the merchant-validation allow-list (wallet/merchant-session.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { verifyWalletToken } from '../../src/wallet/accept.ts';
import { checkValidationUrl, obtainMerchantSession } from '../../src/wallet/merchant-session.ts';
import type { WalletSettings } from '../../src/wallet/settings.ts';
import type { WalletPaymentToken } from '../../src/wallet/index.ts';
import { cardBrands } from '../../src/ground/card-brand.ts';
import { Problem } from '../../src/ground/problem.ts';
import { needs } from '../support/dependencies.ts';
import { vectorsDirectory, walletVectorsMissing } from './vectors.ts';

const skip = needs(walletVectorsMissing);

const vectors = path.join(vectorsDirectory, 'basis-theory/ec');
const read = (file: string) => fs.readFileSync(path.join(vectors, file), 'utf8');
const token = () => JSON.parse(read('token.new.json')) as WalletPaymentToken;
const signedAt = Date.parse('2023-09-13T13:49:38Z');
const live: WalletSettings = {
  // Read only when the vectors are there: without them the suite using `live` is skipped.
  liveProcessingKeys: skip === undefined ? [{ privateKeyPem: read('private.new.key'), certificatePem: read('apple_pay.new.pem') }] : [],
  tokenMaxAgeMs: 5 * 60_000,
};
const payment = { mode: 'live' as const, amountMinor: 100, currency: 'usd', acceptedBrands: cardBrands };
const FIELD = '/details/walletPayEncryptedToken';

async function refusal(promise: Promise<unknown>): Promise<Problem> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof Problem, `expected a Problem, got ${String(error)}`);
  return error;
}

describe('accepting a real wallet token (live trust path)', { skip }, () => {
  test('a real token is verified at its signing time, decrypted and matched to the payment', async () => {
    const accepted = await verifyWalletToken(token(), payment, live, FIELD, () => signedAt + 60_000);
    assert.equal(accepted.pan, '4784000000380075');
    assert.equal(accepted.brand, 'visa');
    assert.equal(accepted.amountMinor, 100);
    assert.equal(accepted.currencyNumeric, '840');
    assert.equal(accepted.cryptogram, '/x2gvNsADhptD1JXWRhcMAACAAA=');
    assert.equal(accepted.eci, '7');
    assert.equal(accepted.transactionId, token().paymentData.header.transactionId);
  });

  test('the same token today is stale; for another amount or currency it does not match', async () => {
    const stale = await refusal(verifyWalletToken(token(), payment, live, FIELD));
    assert.deepEqual(
      stale.errors?.map((e) => [e.field, e.code]),
      [[FIELD, 'token_stale']],
    );
    const amount = await refusal(verifyWalletToken(token(), { ...payment, amountMinor: 101 }, live, FIELD, () => signedAt));
    assert.deepEqual(
      amount.errors?.map((e) => e.code),
      ['amount_mismatch'],
    );
    const currency = await refusal(verifyWalletToken(token(), { ...payment, currency: 'eur' }, live, FIELD, () => signedAt));
    assert.deepEqual(
      currency.errors?.map((e) => e.code),
      ['currency_mismatch'],
    );
    const brand = await refusal(verifyWalletToken(token(), { ...payment, acceptedBrands: ['mastercard'] }, live, FIELD, () => signedAt));
    assert.deepEqual(
      brand.errors?.map((e) => [e.field, e.code]),
      [[FIELD, 'brand_not_accepted']],
    );
  });

  test('a test-mode payment does not trust the vendor root, and live mode needs processing keys', async () => {
    const test = await refusal(verifyWalletToken(token(), { ...payment, mode: 'test' }, live, FIELD, () => signedAt));
    assert.deepEqual(
      test.errors?.map((e) => e.code),
      ['token_certificate'],
    );
    const unconfigured = await refusal(verifyWalletToken(token(), payment, { ...live, liveProcessingKeys: [] }, FIELD, () => signedAt));
    assert.equal(unconfigured.status, 503);
  });
});

describe('merchant validation URLs', () => {
  test("only the wallet's validation hosts, over https on 443, are allowed", () => {
    for (const url of [
      'https://apple-pay-gateway.apple.com/paymentservices/startSession',
      'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession',
      'https://apple-pay-gateway-nc-pod5.apple.com/paymentservices/paymentSession',
      'https://cn-apple-pay-gateway-sh-pod1.apple.com/paymentservices/startSession',
    ])
      assert.equal(checkValidationUrl(url), undefined, url);
    for (const url of [
      'http://apple-pay-gateway.apple.com/paymentservices/startSession',
      'https://apple-pay-gateway.apple.com:8443/x',
      'https://apple-pay-gateway.apple.com.evil.example/x',
      'https://evil.example/apple-pay-gateway.apple.com',
      'https://user:pw@apple-pay-gateway.apple.com/x',
      'https://127.0.0.1/startSession',
      'not a url',
    ])
      assert.ok(checkValidationUrl(url), url);
  });

  test('test mode simulates the session; live mode without the merchant identity is a 503', async () => {
    const request = { validationUrl: 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession', domainName: 'shop.example', merchantName: 'Shop' };
    const session = JSON.parse(await obtainMerchantSession({ ...request, mode: 'test' }, undefined, 1_700_000_000_000));
    assert.equal(session.domainName, 'shop.example');
    assert.equal(session.displayName, 'Shop');
    assert.equal(session.epochTimestamp, 1_700_000_000_000);
    assert.ok(session.signature && session.merchantSessionIdentifier && session.nonce);
    const refused = await refusal(obtainMerchantSession({ ...request, mode: 'live' }, undefined));
    assert.equal(refused.status, 503);
    const notAllowed = await refusal(obtainMerchantSession({ ...request, mode: 'live', validationUrl: 'https://evil.example/' }, undefined));
    assert.equal(notAllowed.status, 422);
  });
});
