// Without scaReady yes a 3-D Secure field off its format is left out, not refused (docs/threeds.md
// "With and without scaReady"): kept for the merchant, absent from the AReq, named. With yes the
// same input is refused. What would break Kassa is refused either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateThreeDS, type ThreeDSContext } from '../../src/threeds/validate.ts';
import { echoedFields, threeDSDataOf, unechoedFields } from '../../src/threeds/echo.ts';
import { browserSeen, buildAReq } from '../../src/threeds/areq.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';
import { areqInput } from './areq-input.ts';

const payment: ThreeDSContext = { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: false };

/** The example as a shop plugin sends it: no scaReady, and the older `browser` object rather than browserInfo. */
function pluginBody(): Record<string, unknown> {
  const { scaReady: _scaReady, browserInfo: _browserInfo, ...body } = exampleThreeDSRequest();
  return body;
}

function withField(body: Record<string, unknown>, pointer: string, value: unknown): Record<string, unknown> {
  const [, object, field] = pointer.split('/');
  if (field === undefined) body[object] = value;
  else body[object] = { ...(body[object] as object), [field]: value };
  return body;
}

/** The data as a payment stores it and reads it back (pending-transaction.ts, serialize.ts storedRequestOf). */
function storedAndRead(body: Record<string, unknown>) {
  const { errors, data } = validateThreeDS(body, payment);
  const echo = JSON.parse(JSON.stringify(echoedFields(data))) as Record<string, unknown>;
  const read = threeDSDataOf(echo, JSON.parse(JSON.stringify(unechoedFields(data))));
  const areq = buildAReq(areqInput(read));
  return { errors, data, echo, read, areq };
}

const digits16 = '3120123456789012';

/** [field, what real shops send, the code and message it is named with]: the refusals observed at real shops. */
const observed: [pointer: string, value: string, code: string, message: string][] = [
  ['/billingPhoneNumber', digits16, 'max_length', 'must be at most 15 characters'],
  ['/accountInfo/homePhoneNumber', digits16, 'max_length', 'must be at most 15 characters'],
  ['/billingAddress', 'Burgemeester van Nispen van Sevenaerstraat 123 bis achterhuis', 'max_length', 'must be at most 50 characters'],
  ['/shippingAddress', 'x'.repeat(51), 'max_length', 'must be at most 50 characters'],
  ['/billingCity', 'Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch', 'max_length', 'must be at most 50 characters'],
  ['/billingPostalCode', '12345-6789-ABCD-EF', 'max_length', 'must be at most 16 characters'],
  ['/billingEmail', 'jan@bücher.de', 'format', 'must be an RFC 5322 e-mail address (addr-spec, e.g. name@example.com)'],
  ['/shippingEmail', 'info@müller.de', 'format', 'must be an RFC 5322 e-mail address (addr-spec, e.g. name@example.com)'],
  ['/accountInfo/email', 'jan@exämple.com', 'format', 'must be an RFC 5322 e-mail address (addr-spec, e.g. name@example.com)'],
  ['/browser/language', '*', 'format', 'must be an IETF BCP 47 language tag (e.g. en-US), or an Accept-Language header naming one'],
  ['/browser/ipAddress', 'unknown', 'format', 'must be an IPv4 or IPv6 address'],
];

for (const [pointer, value, code, message] of observed) {
  for (const scaReady of [undefined, 'no', '0', false]) {
    test(`${pointer} ${JSON.stringify(value.slice(0, 30))} with scaReady ${JSON.stringify(scaReady)} is left out: kept, not in the AReq, named`, () => {
      const body = withField(pluginBody(), pointer, value);
      if (scaReady !== undefined) body.scaReady = scaReady;
      const { errors, data, echo, read, areq } = storedAndRead(body);
      assert.deepEqual(errors, []);
      assert.deepEqual(data.leftOut, [{ field: pointer, code, message, value }]);
      assert.deepEqual(echo.threeDSFieldsLeftOut, data.leftOut, 'named in the payment object');
      const [, object, field] = pointer.split('/');
      if (field === undefined) assert.equal(echo[object], value, 'echoed as sent');
      const readField =
        field === undefined ? (read as unknown as Record<string, unknown>)[object] : (read as unknown as Record<string, Record<string, unknown>>)[object]?.[field];
      assert.equal(readField, undefined, 'not in the 3-D Secure data read back');
      assert.ok(!JSON.stringify(areq).includes(JSON.stringify(value)), `not in the AReq: ${JSON.stringify(areq)}`);
      assert.ok(!JSON.stringify(browserSeen({ data: read })).includes(JSON.stringify(value)), 'not in the browser an acquirer sees');
    });
  }

  test(`${pointer} ${JSON.stringify(value.slice(0, 30))} with scaReady yes is refused`, () => {
    const { errors, data } = validateThreeDS(withField(exampleThreeDSRequest(), pointer, value), payment);
    assert.deepEqual(errors, [{ field: pointer, code, message }]);
    assert.equal(data.leftOut, undefined);
  });
}

test('every observed field at once: the order goes through, each field named once in table order', () => {
  const body = pluginBody();
  for (const [pointer, value] of observed) withField(body, pointer, value);
  const { errors, data } = storedAndRead(body);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    data.leftOut?.map((entry) => entry.field),
    observed.map(([pointer]) => pointer).sort((a, b) => order(a) - order(b)),
  );
});

/** Top-level fields first (in table order), then the objects: the order the validator walks them. */
function order(pointer: string): number {
  const top = ['/billingAddress', '/billingCity', '/billingPostalCode', '/billingPhoneNumber', '/shippingAddress', '/billingEmail', '/shippingEmail'];
  const nested = ['/accountInfo/email', '/accountInfo/homePhoneNumber', '/browser/ipAddress', '/browser/language'];
  return top.includes(pointer) ? top.indexOf(pointer) : 100 + nested.indexOf(pointer);
}

test('an address with a port is read as the address, with or without scaReady (PrestaShop passes the raw X-Forwarded-For entry)', () => {
  for (const [sent, read] of [
    ['1.2.3.4:5678', '1.2.3.4'],
    ['[::1]:443', '::1'],
    ['[2001:db8::1]:8443, 10.0.0.1', '2001:db8::1'],
  ]) {
    for (const body of [pluginBody(), exampleThreeDSRequest()]) {
      const { errors, data, areq } = storedAndRead(withField(body, '/browser/ipAddress', sent));
      assert.deepEqual([errors, data.leftOut], [[], undefined]);
      assert.equal(data.browser?.ipAddress, read);
      if (body.browserInfo === undefined) assert.equal(areq.browserIP, read);
    }
  }
});

/** [field, value, code, message]: what would break Kassa itself, refused with or without scaReady. */
const refusedEither: [pointer: string, value: unknown, code: string, message: string][] = [
  ['/billingAddress', 'x'.repeat(257), 'max_length', 'must be at most 256 characters, with or without scaReady'],
  ['/billingPhoneNumber', '1'.repeat(257), 'max_length', 'must be at most 256 characters, with or without scaReady'],
  ['/browser/language', 'nl,'.repeat(100), 'max_length', 'must be at most 256 characters, with or without scaReady'],
  ['/browser/userAgent', 'M'.repeat(8193), 'max_length', 'must be at most 8192 characters, with or without scaReady'],
  ['/billingCity', 'Amster\u0000dam', 'format', 'must not contain control characters'],
  ['/accountInfo/accountIdentifier', 'c\u001b[31m', 'format', 'must not contain control characters'],
  ['/billingPostalCode', 1012, 'type', 'must be a string'],
  ['/browser/javaEnabled', 'false', 'type', 'must be true or false'],
  ['/scaReady', 'maybe', 'enum', 'must be one of yes, no'],
];

for (const [pointer, value, code, message] of refusedEither) {
  test(`${pointer} ${JSON.stringify(value).slice(0, 30)} is refused without scaReady`, () => {
    const { errors, data } = validateThreeDS(withField(pluginBody(), pointer, value), payment);
    assert.deepEqual(errors, [{ field: pointer, code, message }]);
    assert.equal(data.leftOut, undefined);
  });
}

test('with scaReady yes a text over its size names the size of the spec, and a control character is refused too', () => {
  const long = validateThreeDS(withField(exampleThreeDSRequest(), '/billingAddress', 'x'.repeat(300)), payment);
  assert.deepEqual(long.errors, [{ field: '/billingAddress', code: 'max_length', message: 'must be at most 50 characters' }]);
  const control = validateThreeDS(withField(exampleThreeDSRequest(), '/billingCity', 'Amster\u0007dam'), payment);
  assert.deepEqual(control.errors, [{ field: '/billingCity', code: 'format', message: 'must not contain control characters' }]);
});

test('an address over two lines is not a control character', () => {
  const { errors, data } = validateThreeDS(withField(pluginBody(), '/billingAddress', 'Damrak 1\r\n2nd floor'), payment);
  assert.deepEqual([errors, data.leftOut, data.billingAddress], [[], undefined, 'Damrak 1\r\n2nd floor']);
});

test('browserInfo without scaReady: a field off its format is left out like any other; with yes it is refused', () => {
  const info: Record<string, unknown> = { ...(exampleThreeDSRequest().browserInfo as object), language: '*', ipAddress: 'unknown' };
  const lenient = storedAndRead({ browserInfo: info });
  assert.deepEqual(lenient.errors, []);
  assert.deepEqual(
    lenient.data.leftOut?.map((e) => e.field),
    ['/browserInfo/ipAddress', '/browserInfo/language'],
  );
  assert.equal(lenient.areq.browserIP, undefined);
  assert.equal(lenient.areq.browserLanguage, undefined);
  assert.equal(lenient.areq.browserUserAgent, info.userAgent);
  const strict = validateThreeDS({ ...exampleThreeDSRequest(), browserInfo: info }, payment);
  assert.deepEqual(
    strict.errors.map((e) => `${e.field} ${e.code}`),
    ['/browserInfo/ipAddress format', '/browserInfo/language format'],
  );
});

test('a browser object left partly out still stands in for browserInfo where the merchant captures card data', () => {
  const captures = { ...payment, merchantCapturesCardData: true };
  const browser = { ...(exampleThreeDSRequest().browserInfo as object), language: '*' };
  const { errors, data } = validateThreeDS({ browser }, captures);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    data.leftOut?.map((e) => e.field),
    ['/browser/language'],
  );
});

test('a payment read back without fields left out is the data as validated', () => {
  const body = exampleThreeDSRequest();
  const { data, read } = storedAndRead(body);
  assert.equal(data.leftOut, undefined);
  assert.deepEqual(read, JSON.parse(JSON.stringify(data)));
});
