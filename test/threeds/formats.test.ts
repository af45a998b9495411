// The format checks against their data packages, and the combined-number splitting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js';
import { iso31661 } from 'iso-3166';
import currencyCodes from 'currency-codes';
import emailAddresses from 'email-addresses';
import fc from 'fast-check';
import {
  currencyNumeric,
  isCalendarDate,
  isCallingCode,
  isCurrencyNumeric,
  isEmailAddress,
  isIpAddress,
  isLanguageTag,
  isMinutesOffset,
  isTimestamp,
} from '../../src/threeds/formats.ts';
import { countryNumeric, isCountryAlpha2, isSubdivisionOf } from '../../src/ground/country.ts';
import { splitInternationalNumber } from '../../src/threeds/phone.ts';

test('every assigned ISO 3166-1 country is accepted, reserved and unknown codes are not', () => {
  assert.ok(iso31661.length >= 249);
  for (const c of iso31661) assert.ok(isCountryAlpha2(c.alpha2), c.alpha2);
  for (const code of ['XX', 'AA', 'ZZ', 'UK', 'EU', 'AC', 'nl', 'NLD', '']) assert.equal(isCountryAlpha2(code), false, code);
});

test('country numeric codes are the ISO 3166-1 numeric ones', () => {
  const cases: [string, string][] = [
    ['NL', '528'],
    ['nl', '528'],
    ['US', '840'],
    ['BE', '056'],
    ['DE', '276'],
    ['GB', '826'],
    ['AD', '020'],
    ['JP', '392'],
  ];
  for (const [alpha2, numeric] of cases) assert.equal(countryNumeric(alpha2), numeric);
  assert.equal(countryNumeric('XX'), undefined);
});

test('every calling code of every country known to libphonenumber-js is accepted', () => {
  for (const country of getCountries()) assert.ok(isCallingCode(getCountryCallingCode(country)), country);
  for (const code of ['800', '808', '870', '881', '882', '883', '888', '979']) assert.ok(isCallingCode(code), code);
  for (const code of ['0', '999', '99', '28', '031', '+31', '1234', '']) assert.equal(isCallingCode(code), false, code);
});

test('subdivisions are looked up per country', () => {
  assert.ok(isSubdivisionOf('NL', 'NH'));
  assert.ok(isSubdivisionOf('US', 'CA'));
  assert.ok(isSubdivisionOf('FR', '75C'));
  assert.equal(isSubdivisionOf('NL', 'CA'), false);
  assert.equal(isSubdivisionOf('XX', 'NH'), false);
});

test('every ISO 4217 numeric code is accepted; unknown ones are not', () => {
  for (const n of currencyCodes.numbers()) assert.ok(isCurrencyNumeric(String(n).padStart(3, '0')), String(n));
  for (const code of ['000', '001', '97', 'EUR', '']) assert.equal(isCurrencyNumeric(code), false, code);
  assert.deepEqual(currencyNumeric('eur'), { numeric: '978', exponent: 2 });
  assert.deepEqual(currencyNumeric('JPY'), { numeric: '392', exponent: 0 });
  assert.deepEqual(currencyNumeric('BHD'), { numeric: '048', exponent: 3 });
  assert.equal(currencyNumeric('XYZ'), undefined);
});

test('calendar dates are real dates, leap years included', () => {
  const valid = ['20240229', '20000229', '16000229', '20230228', '20231231', '00010101', '99991231'];
  const invalid = [
    '20230229',
    '19000229',
    '21000229',
    '20230431',
    '20231301',
    '20230001',
    '20230100',
    '00000101',
    '2023123',
    '202312311',
    '2023-1-1',
    'abcdefgh',
    '+2023010',
  ];
  for (const v of valid) assert.ok(isCalendarDate(v), v);
  for (const v of invalid) assert.equal(isCalendarDate(v), false, v);
});

test('calendar dates agree with the JavaScript calendar', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (year, month, day) => {
      const text = `${String(year).padStart(4, '0')}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, day);
      const real = month >= 1 && month <= 12 && day >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
      assert.equal(isCalendarDate(text), real, text);
    }),
  );
});

test('timestamps are real dates with a time of day', () => {
  for (const v of ['202405011230', '202402292359', '000101010000']) assert.ok(isTimestamp(v), v);
  for (const v of ['202405012400', '202405011260', '202302291200', '20240501123', '2024050112300', '2024050112:0']) assert.equal(isTimestamp(v), false, v);
});

test('e-mail addresses follow the RFC 5322 addr-spec', () => {
  const valid = [
    'a@b',
    'a@b.c',
    'first.last@example.com',
    "!#$%&'*+-/=?^_`{|}~@example.com",
    '"quoted local"@example.com',
    '"a\\"b"@example.com',
    'x@[192.0.2.1]',
    'x@sub.domain.example',
  ];
  const invalid = [
    '',
    'a',
    'a@',
    '@b',
    'a@@b',
    'a b@c',
    'a.@b',
    '.a@b',
    'a..b@c',
    'a@b.',
    'a@.b',
    'Name <a@b.c>',
    '<a@b.c>',
    'a@b.c (x)',
    ' a@b.c',
    'a@b.c ',
    'ä@b.c',
    'a@b.c, d@e.f',
    'a@b@c',
  ];
  for (const v of valid) assert.ok(isEmailAddress(v), v);
  for (const v of invalid) assert.equal(isEmailAddress(v), false, v);
});

test('the e-mail fast path never accepts what the full RFC 5322 parser rejects', () => {
  fc.assert(
    fc.property(fc.oneof(fc.emailAddress(), fc.string({ unit: 'binary-ascii', maxLength: 40 })), (address) => {
      if (!isEmailAddress(address)) return;
      const parsed = emailAddresses.parseOneAddress({ input: address, rfc6532: false, strict: true, simple: false });
      assert.ok(parsed && parsed.type === 'mailbox', address);
    }),
  );
});

test('language tags are valid BCP 47 with registered subtags', () => {
  const valid = [
    'en',
    'nl',
    'en-US',
    'nl-NL',
    'nl-BE',
    'zh-Hans',
    'zh-Hant-TW',
    'es-419',
    'sr-Latn',
    'de-CH-1901',
    'fil',
    'x-whatever',
    'qaa',
    'i-klingon',
    'en-GB-oed',
    'EN-gb',
  ];
  const invalid = ['', 'e', 'en-', '-en', 'en_US', 'xx', 'xx-YY', 'en-QQQ', 'en-Abcd', 'english', 'en-US-', '123', 'en--US'];
  for (const v of valid) assert.ok(isLanguageTag(v), v);
  for (const v of invalid) assert.equal(isLanguageTag(v), false, v);
});

test('IP addresses are IPv4 or IPv6', () => {
  for (const v of ['192.0.2.1', '10.0.0.255', '::', '::1', '2001:db8::1', 'fe80::1', '::ffff:192.0.2.1']) assert.ok(isIpAddress(v), v);
  for (const v of ['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.02.03.004', 'example.com', '2001:db8::g', ':::']) assert.equal(isIpAddress(v), false, v);
});

test('time zones are signed whole minutes', () => {
  for (const v of ['0', '60', '-120', '+330', '-840']) assert.ok(isMinutesOffset(v), v);
  for (const v of ['', '-', '+', '1.5', '60m', ' 60', '--60']) assert.equal(isMinutesOffset(v), false, v);
});

const splits: [string, [string, string] | undefined][] = [
  ['+31 20 123 4567', ['31', '201234567']],
  ['0031201234567', ['31', '201234567']],
  [' +31 6 1234 5678 ', ['31', '612345678']],
  ['+1 213 373 4253', ['1', '2133734253']],
  ['+7 912 345 67 89', ['7', '9123456789']],
  ['+358 40 1234567', ['358', '401234567']],
  ['+882 3456 7890', ['882', '34567890']],
  ['201234567', undefined], // national number: nothing to split
  ['020 123 4567', undefined],
  ['+999 123 4567', undefined], // no such calling code
  ['+31', undefined],
  ['+', undefined],
  ['call me', undefined],
  ['+31 20 123 4567 (office)', undefined],
];

for (const [input, expected] of splits) {
  test(`splitInternationalNumber(${JSON.stringify(input)})`, () => {
    const split = splitInternationalNumber(input);
    assert.deepEqual(split && [split.countryCallingCode, split.subscriberNumber], expected);
  });
}
