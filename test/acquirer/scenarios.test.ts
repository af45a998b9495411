/** The test scenarios (docs/decisions.md#test-scenarios), and the simulated acquirer that follows them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { centsOf, scenarioFor } from '../../src/acquirer/scenarios.ts';
import { SimulatedAcquirer } from '../../src/acquirer/simulator.ts';
import type { AuthoriseRequest } from '../../src/acquirer/connector.ts';

const cases: [minor: number, exponent: number, threeDS: string, acquirer: string][] = [
  [1000, 2, 'frictionless', 'authorised'],
  [1009, 2, 'frictionless', 'authorised'],
  [1011, 2, 'challenge', 'authorised'],
  [1012, 2, 'not_authenticated', 'authorised'],
  [1013, 2, 'not_applicable', 'authorised'],
  [1014, 2, 'attempted', 'authorised'],
  [1021, 2, 'frictionless', 'card_refused'],
  [1022, 2, 'frictionless', 'insufficient_funds'],
  [1023, 2, 'frictionless', 'fraud_detected'],
  [1031, 2, 'frictionless', 'timeout'],
  [1099, 2, 'frictionless', 'authorised'],
  [10115, 3, 'challenge', 'authorised'], // 10.115 KWD: cents .11
  [1021, 0, 'frictionless', 'authorised'], // 1021 JPY has no cents
];
for (const [minor, exponent, threeDS, acquirer] of cases) {
  test(`${minor} minor units (exponent ${exponent}) → 3DS ${threeDS}, acquirer ${acquirer}`, () => {
    const scenario = scenarioFor(minor, exponent);
    assert.equal(scenario.threeDS, threeDS);
    assert.equal(scenario.acquirer, acquirer);
  });
}

test('cents are the two digits after the decimal point', () => {
  assert.equal(centsOf(1234, 2), 34);
  assert.equal(centsOf(12345, 3), 34);
  assert.equal(centsOf(1234, 0), 0);
});

const request = (amountMinor: number, mode: 'test' | 'live' = 'test'): AuthoriseRequest => ({
  reference: 'tr_x',
  mode,
  amountMinor,
  currency: 'eur',
  exponent: 2,
  captureNow: false,
  merchantName: 'Shop',
  instrument: { kind: 'card', card: { pan: '4111111111111111', expiryMonth: 12, expiryYear: 2034, cvc: '123', holderName: 'Jo', brand: 'visa' } },
});

test('the simulator answers per scenario and repeats its answer for the same idempotency key', async () => {
  const acquirer = new SimulatedAcquirer();
  const first = await acquirer.authorise(request(500), 'key-1');
  assert.equal(first.outcome, 'authorised');
  assert.deepEqual(await acquirer.authorise(request(500), 'key-1'), first);
  assert.notDeepEqual(await acquirer.authorise(request(500), 'key-2'), first);
  assert.deepEqual(await acquirer.authorise(request(522), 'k3'), {
    outcome: 'declined',
    failureCode: 'insufficient_funds',
    acquirerReference: ((await acquirer.authorise(request(522), 'k3')) as { acquirerReference?: string }).acquirerReference,
  });
  assert.equal((await acquirer.authorise(request(531), 'k4')).outcome, 'unknown');
  if (first.outcome !== 'authorised') return;
  const follow = { reference: 'tr_x', acquirerReference: first.acquirerReference, amountMinor: 500, currency: 'eur' };
  assert.equal((await acquirer.capture(follow, 'c1')).outcome, 'done');
  assert.equal((await acquirer.capture(follow, 'c1')).outcome, 'done', 'a retried capture is the same capture');
  assert.equal((await acquirer.reversal(follow, 'r1')).outcome, 'refused', 'a captured authorisation cannot be reversed');
});

test('live keys never reach the simulator', async () => {
  await assert.rejects(new SimulatedAcquirer().authorise(request(500, 'live'), 'k'));
});
