/** How a payment uses a stored card, as the acquirer is told it (docs/vault.md "Paying off-session"): one table. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CardData } from '../../src/acquirer/connector.ts';
import type { TransactionRow } from '../../src/store/schema.ts';
import { networkReferenceToKeep, storedCardUseOf } from '../../src/payments/card/stored-card-use.ts';
import { shopperReferenceOf } from '../../src/vault/vault.ts';

const card: CardData = { pan: '4111111111111111', expiryMonth: 12, expiryYear: 2030, holderName: 'Ann Smith', brand: 'visa' };
const stored = { ...card, stored: { shopperReference: 'kassa-card', networkReference: 'NTR1' } };
const enrolledOnly = { ...card, stored: { shopperReference: 'kassa-card' } };

/** A payment of `flow` with this stored request. */
const row = (flow: string, request: Record<string, unknown> = {}) =>
  ({ reference: 'tr_first', merchant_id: 'mer_1', flow, request: JSON.stringify({ threeDS: { scaReady: 'no' }, ...request }), echo: '{}' }) as TransactionRow;
const series = (type: string) => ({ vaultCardId: 'vc_1', threeDS: { scaReady: 'no', sequenceInfo: { type, mode: 'SUBSEQUENT', source: 'MIT' } } });

test('a stored card is used as card on file by the customer, and under a subscription or unscheduled by the merchant', () => {
  const cases: [string, TransactionRow, CardData, unknown][] = [
    [
      'a card payment that stores its card: its own reference names the card to be',
      row('card', { storeInVault: true }),
      card,
      {
        shopperReference: shopperReferenceOf('mer_1', 'tr_first'),
        initiator: 'cardholder',
        agreement: 'card-on-file',
      },
    ],
    ['a card payment that does not', row('card'), card, undefined],
    ['a wallet payment', row('walletpay-direct'), card, undefined],
    ['a customer paying with a stored card', row('vault', { vaultCardId: 'vc_1' }), stored, { ...stored.stored, initiator: 'cardholder', agreement: 'card-on-file' }],
    ['off-session, RECURRING', row('vault-mit', series('RECURRING')), stored, { ...stored.stored, initiator: 'merchant', agreement: 'subscription' }],
    ['off-session, INSTALMENT', row('vault-mit', series('INSTALMENT')), stored, { ...stored.stored, initiator: 'merchant', agreement: 'subscription' }],
    ['off-session, UNSCHEDULED', row('vault-mit', series('UNSCHEDULED')), stored, { ...stored.stored, initiator: 'merchant', agreement: 'unscheduled' }],
    [
      'off-session, a card without a network reference yet',
      row('vault-mit', series('UNSCHEDULED')),
      enrolledOnly,
      { shopperReference: 'kassa-card', initiator: 'merchant', agreement: 'unscheduled' },
    ],
  ];
  for (const [name, payment, used, expected] of cases) assert.deepEqual(storedCardUseOf(payment, used), expected, name);
});

test('a stored card keeps the network reference of a customer-present authorisation only, and only its first', () => {
  const cases: [string, TransactionRow, CardData, string | undefined, unknown][] = [
    ['the payment that stores the card', row('card', { storeInVault: true }), card, 'NTR9', { networkReference: 'NTR9' }],
    [
      'a customer paying with a card enrolled without one',
      row('vault', { vaultCardId: 'vc_1' }),
      enrolledOnly,
      'NTR9',
      { vaultCardId: 'vc_1', networkReference: 'NTR9' },
    ],
    ['a customer paying with a card that has one', row('vault', { vaultCardId: 'vc_1' }), stored, 'NTR9', undefined],
    ['an off-session payment', row('vault-mit', series('RECURRING')), enrolledOnly, 'NTR9', undefined],
    ['no reference answered', row('card', { storeInVault: true }), card, undefined, undefined],
  ];
  for (const [name, payment, used, answered, expected] of cases) assert.deepEqual(networkReferenceToKeep(payment, used, answered), expected, name);
});

test('the shopperReference is one per merchant and card, and carries no card data', () => {
  assert.equal(shopperReferenceOf('mer_1', 'tr_a'), shopperReferenceOf('mer_1', 'tr_a'));
  assert.notEqual(shopperReferenceOf('mer_1', 'tr_a'), shopperReferenceOf('mer_2', 'tr_a'));
  assert.notEqual(shopperReferenceOf('mer_1', 'tr_a'), shopperReferenceOf('mer_1', 'tr_b'));
  assert.match(shopperReferenceOf('mer_1', 'tr_a'), /^kassa-[0-9a-f]{32}$/);
});
