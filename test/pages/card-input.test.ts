/** Brand detection (credit-card-type + Bancontact), Luhn, expiry and the card form's validation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectBrands, luhnValid } from '../../src/ground/card-brand.ts';
import { parseExpiry, validateCard } from '../../src/payments/requests/card-input.ts';
import { cardBrands } from '../../src/ground/card-brand.ts';

const brands: [string, string[]][] = [
  ['4111111111111111', ['visa']],
  ['5555555555554444', ['mastercard']],
  ['2223000048400011', ['mastercard']],
  ['378282246310005', ['amex']],
  ['6759649826438453', ['maestro']],
  ['6703444444444449', ['bcmc', 'maestro']], // co-badged Bancontact/Maestro, Bancontact the more specific
  ['4796580000000001', ['bcmc', 'visa']],
  ['6011111111111117', []], // Discover: not a brand Kassa takes
];
for (const [number, expected] of brands) {
  test(`${number} is ${expected.join(' + ') || 'no accepted brand'}`, () => assert.deepEqual(detectBrands(number), expected));
}

const luhn: [string, boolean][] = [
  ['4111111111111111', true],
  ['4111111111111112', false],
  ['79927398713', true],
  ['0', true],
  ['12a4', false],
];
for (const [number, valid] of luhn) test(`Luhn(${number}) = ${valid}`, () => assert.equal(luhnValid(number), valid));

const expiries: [string, { month: number; year: number } | undefined][] = [
  ['12/34', { month: 12, year: 2034 }],
  ['1 / 30', { month: 1, year: 2030 }],
  ['0330', { month: 3, year: 2030 }],
  ['03/2031', { month: 3, year: 2031 }],
  ['13/30', undefined],
  ['hello', undefined],
];
for (const [text, expected] of expiries) test(`expiry "${text}"`, () => assert.deepEqual(parseExpiry(text), expected));

const now = new Date('2026-06-15T12:00:00Z');
const ctx = { accepted: [...cardBrands], now };
const valid = { cardNumber: '4111 1111 1111 1111', expiry: '06/26', cvc: '123', holderName: 'Jo Tester' };

test('a valid card gives card data with brand; the expiry month itself is still valid', () => {
  const result = validateCard(valid, ctx);
  assert.ok(result.ok);
  assert.deepEqual(result.card, { pan: '4111111111111111', expiryMonth: 6, expiryYear: 2026, cvc: '123', holderName: 'Jo Tester', brand: 'visa' });
});

const invalid: [string, Record<string, string>, Record<string, string>, { preselected?: 'visa' | 'mastercard'; accepted?: string[] }?][] = [
  ['empty form', {}, { cardNumber: 'number_required', expiry: 'expiry_required', cvc: 'cvc_required', holderName: 'name_required' }],
  ['bad Luhn', { cardNumber: '4111111111111112' }, { cardNumber: 'number_invalid' }],
  ['expired', { expiry: '05/26' }, { expiry: 'expiry_past' }],
  ['amex CVC is 4 digits', { cardNumber: '378282246310005', cvc: '123' }, { cvc: 'cvc_invalid' }],
  ['name with digits', { holderName: 'R2D2' }, { holderName: 'name_invalid' }],
  ['brand not accepted', {}, { cardNumber: 'brand_not_accepted' }, { accepted: ['mastercard'] }],
  ['preselected brand', {}, { cardNumber: 'brand_not_preselected' }, { preselected: 'mastercard' }],
];
for (const [name, change, errors, options] of invalid) {
  test(`invalid card: ${name}`, () => {
    const form = Object.keys(change).length === 0 && name === 'empty form' ? {} : { ...valid, ...change };
    const result = validateCard(form, { ...ctx, ...(options as object) } as typeof ctx);
    assert.ok(!result.ok);
    assert.deepEqual(result.errors, errors);
  });
}

test('Bancontact asks no CVC; a co-badged card follows the customer choice', () => {
  const bcmc = validateCard({ ...valid, cardNumber: '6703 4444 4444 4449', cvc: '' }, ctx);
  assert.ok(bcmc.ok);
  assert.equal(bcmc.card.brand, 'bcmc');
  assert.equal(bcmc.card.cvc, undefined);
  const maestro = validateCard({ ...valid, cardNumber: '6703 4444 4444 4449', brand: 'maestro' }, ctx);
  assert.ok(maestro.ok);
  assert.equal(maestro.card.brand, 'maestro');
  assert.deepEqual(maestro.coBadged, ['bcmc', 'maestro']);
});
