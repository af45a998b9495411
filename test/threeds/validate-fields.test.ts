// Every field of docs/api.md#3-d-secure-2-data (and the compatibility fields): valid values pass, and each
// invalid value is reported with exactly that field's pointer and the expected code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateThreeDS, type ThreeDSContext } from '../../src/threeds/validate.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';

const payment: ThreeDSContext = { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: false };

/** The example request with the field at `pointer` set to `value` (undefined removes it). */
function withField(pointer: string, value: unknown, base = exampleThreeDSRequest()): Record<string, unknown> {
  const path = pointer.split('/').slice(1);
  let target = base;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path[path.length - 1];
  if (value === undefined) delete target[last];
  else target[last] = value;
  return base;
}

function failures(body: Record<string, unknown>, ctx = payment): string[] {
  return validateThreeDS(body, ctx).errors.map((e) => `${e.field} ${e.code}`);
}

const x = (n: number): string => 'x'.repeat(n);
const d = (n: number): string => '1'.repeat(n);
const emailOfLength = (n: number): string => `${'a'.repeat(n - 12)}@example.com`;

type Row = [pointer: string, valid: unknown[], invalid: [value: unknown, code: string][]];

const text = (pointer: string, max: number): Row => [
  pointer,
  ['a', x(max), ' a b '],
  [
    [x(max + 1), 'max_length'],
    [12, 'type'],
    [true, 'type'],
    [{}, 'type'],
  ],
];
const date = (pointer: string): Row => [
  pointer,
  ['20240229', '20000229', '19991231', '00010101', '99991231'],
  [
    ['20230229', 'date'],
    ['19000229', 'date'],
    ['20241301', 'date'],
    ['20240001', 'date'],
    ['20240431', 'date'],
    ['20240100', 'date'],
    ['00000101', 'date'],
    ['2024011', 'date'],
    ['2024-1-1', 'date'],
    ['2024010a', 'date'],
    ['202401011', 'max_length'],
    ['2024-01-01', 'max_length'],
    [20240101, 'type'],
  ],
];
const oneOf = (pointer: string, values: string[]): Row => [
  pointer,
  values,
  [
    [values[0].toLowerCase() === values[0] ? values[0].toUpperCase() : values[0].toLowerCase(), 'enum'],
    ['NOT_A_VALUE', 'enum'],
    [` ${values[0]}`, 'enum'],
    [1, 'type'],
  ],
];
const count = (pointer: string, max: number): Row => [
  pointer,
  ['0', '1', d(max), '0'.repeat(max)],
  [
    [d(max + 1), 'max_length'],
    ['1a', 'format'],
    ['-1', 'format'],
    ['.5', 'format'],
    [' 1', 'format'],
    [1, 'type'],
  ],
];
const email = (pointer: string): Row => [
  pointer,
  ['a@b.c', 'jan.jansen+tag@example.co.uk', "o'brien@example.ie", '"john doe"@example.com', 'x@[192.0.2.1]', 'user@localhost', emailOfLength(254)],
  [
    ['plainaddress', 'format'],
    ['a@', 'format'],
    ['@example.com', 'format'],
    ['a@@example.com', 'format'],
    ['a b@example.com', 'format'],
    ['a..b@example.com', 'format'],
    ['.a@example.com', 'format'],
    ['a@example..com', 'format'],
    ['Jan <jan@example.nl>', 'format'],
    ['<jan@example.nl>', 'format'],
    [' jan@example.nl', 'format'],
    ['jan(comment)@example.nl', 'format'],
    ['jöhn@example.de', 'format'],
    ['a@b.c,d@e.f', 'format'],
    [emailOfLength(255), 'max_length'],
    [42, 'type'],
  ],
];
const phoneNumber = (pointer: string): Row => [
  pointer,
  ['1', '201234567', d(15), '0201234567'],
  [
    [d(16), 'max_length'],
    ['20 123 4567', 'format'],
    ['20-1234567', 'format'],
    ['+31201234567', 'format'],
    ['abc', 'format'],
    [201234567, 'type'],
  ],
];
const phoneCountry = (pointer: string): Row => [
  pointer,
  ['1', '7', '31', '44', '49', '358', '599', '800', '882'],
  [
    ['999', 'format'],
    ['0', 'format'],
    ['031', 'format'],
    ['+31', 'format'],
    ['NL', 'format'],
    ['1234', 'max_length'],
    [31, 'type'],
  ],
];
const integer3 = (pointer: string): Row => [
  pointer,
  [1, '1', 30, '30', 999, '999', '012'],
  [
    [1000, 'max_length'],
    ['1000', 'max_length'],
    [0, 'format'],
    ['0', 'format'],
    ['000', 'format'],
    [-1, 'format'],
    ['-1', 'format'],
    [1.5, 'format'],
    ['1.5', 'format'],
    ['12a', 'format'],
    [true, 'type'],
    [[1], 'type'],
  ],
];

const rows: Row[] = [
  // docs/api.md#billing-and-shipping-fields
  [
    '/scaReady',
    // older plugins send "1"/"0" or booleans (docs/interop.md)
    ['yes', 'no', '1', '0', true, false],
    [
      ['YES', 'enum'],
      ['true', 'enum'],
      ['y', 'enum'],
      ['2', 'enum'],
      [1, 'type'],
    ],
  ],
  text('/billingAddress', 50),
  text('/billingCity', 50),
  [
    '/billingState',
    // a shop's own region code is kept for the merchant, left out of the AReq (docs/interop.md)
    ['NH', 'nh', 'ZH', 'FL', 'CA', 'XYZ', 'N-', 'NL-NH', 'Noord-Holland', 'x'.repeat(50)],
    [
      ['x'.repeat(51), 'max_length'],
      [1, 'type'],
    ],
  ],
  text('/billingPostalCode', 16),
  [
    '/billingCountry',
    // alpha-2 or alpha-3, any case: the official client sends NLD (docs/interop.md)
    ['NL', 'nl', 'NLD', 'nld', 'Bel'],
    [
      ['XX', 'format'],
      ['N', 'format'],
      ['12', 'format'],
      ['528', 'format'],
      ['XXX', 'format'],
      ['NLDX', 'max_length'],
      ['AC', 'format'],
      [528, 'type'],
    ],
  ],
  text('/billingHouseNumber', 10),
  text('/billingHouseExtension', 10),
  phoneNumber('/billingPhoneNumber'),
  phoneCountry('/billingPhoneCountry'),
  text('/shippingAddress', 50),
  text('/shippingCity', 50),
  [
    '/shippingState',
    ['ZH', 'zh', 'NH', 'TX', 'ZZ9', 'NL-ZH'],
    [
      ['x'.repeat(51), 'max_length'],
      [false, 'type'],
    ],
  ],
  text('/shippingPostalCode', 16),
  [
    '/shippingCountry',
    ['NL', 'nl', 'NLD', 'usa'],
    [
      ['QQ', 'format'],
      ['QQQ', 'format'],
      ['NLDX', 'max_length'],
      [1, 'type'],
    ],
  ],
  text('/shippingHouseNumber', 10),
  text('/shippingHouseExtension', 10),
  // compatibility fields (docs/api.md#existing-clients)
  email('/billingEmail'),
  text('/billingFirstName', 100),
  text('/billingLastName', 100),
  email('/shippingEmail'),
  text('/shippingFirstName', 100),
  text('/shippingLastName', 100),
  // docs/api.md#sequence-information
  oneOf('/sequenceInfo/type', ['EXPRESS_CHECKOUT', 'RECURRING', 'INSTALMENT', 'UNSCHEDULED']),
  integer3('/sequenceInfo/instalmentMaxAuthorisations'),
  date('/sequenceInfo/recurringExpiry'),
  integer3('/sequenceInfo/recurringFrequency'),
  oneOf('/sequenceInfo/mode', ['INITIAL', 'SUBSEQUENT']),
  oneOf('/sequenceInfo/source', ['CIT', 'MIT']),
  text('/sequenceInfo/initialTransactionId', 20),
  oneOf('/sequenceInfo/industryPractice', ['INCREMENTAL', 'DELAYED_CHARGES', 'NO_SHOW', 'REAUTHORIZATION', 'RESUBMISSION']),
  // docs/api.md#account-information
  text('/accountInfo/accountIdentifier', 64),
  oneOf('/accountInfo/accountAgeIndicator', ['NO_ACCOUNT', 'CREATED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS']),
  date('/accountInfo/accountCreationDate'),
  oneOf('/accountInfo/accountChangeIndicator', ['CHANGED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS']),
  date('/accountInfo/accountChangedDate'),
  oneOf('/accountInfo/passwordChangeIndicator', ['NO_CHANGE', 'CHANGED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS']),
  date('/accountInfo/passwordChangeDate'),
  count('/accountInfo/purchasesLast6Months', 4),
  count('/accountInfo/attemptsToAddLastDay', 3),
  count('/accountInfo/transactionLastDay', 2),
  count('/accountInfo/transactionLastYear', 3),
  date('/accountInfo/paymentAccountDate'),
  oneOf('/accountInfo/paymentAccountIndicator', ['NO_ACCOUNT', 'DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS']),
  date('/accountInfo/shippingAddressFirstUsage'),
  oneOf('/accountInfo/shippingAddressUsageIndicator', ['THIS_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS']),
  oneOf('/accountInfo/shippingNameIndicator', ['IDENTICAL', 'DIFFERENT']),
  oneOf('/accountInfo/suspiciousAccountActivity', ['NOT_SUSPICIOUS', 'SUSPICIOUS']),
  email('/accountInfo/email'),
  phoneNumber('/accountInfo/workPhoneNumber'),
  phoneCountry('/accountInfo/workPhoneCountry'),
  phoneNumber('/accountInfo/homePhoneNumber'),
  phoneCountry('/accountInfo/homePhoneCountry'),
  phoneNumber('/accountInfo/mobilePhoneNumber'),
  phoneCountry('/accountInfo/mobilePhoneCountry'),
  oneOf('/accountInfo/authenticationMethod', ['NO_LOGIN', 'OWN_CREDENTIALS', 'FEDERATED_ID', 'ISSUER_CREDENTIALS', 'THIRD_PARTY_AUTH', 'FIDO_AUTH']),
  [
    '/accountInfo/authenticationTimestamp',
    ['202405011230', '202402290000', '202412312359'],
    [
      ['202405012400', 'date'],
      ['202405011260', 'date'],
      ['202302291200', 'date'],
      ['202413011200', 'date'],
      ['20240501123', 'date'],
      ['20240501', 'date'],
      ['2024050112300', 'max_length'],
      ['2024-05-01T12', 'max_length'],
      [202405011230, 'type'],
    ],
  ],
  date('/accountInfo/dateOfBirth'),
  // docs/api.md#challenge-preference
  oneOf('/threeds2RequestInfo/challengeIndicator', ['NO_PREFERENCE', 'NO_CHALLENGE', 'REQUEST_BY_MERCHANT_PREFERENCE', 'REQUEST_FOR_MANDATE']),
  oneOf('/threeds2RequestInfo/transactionType', [
    'GOODS_AND_SERVICES_PURCHASE',
    'CHECK_ACCEPTANCE',
    'ACCOUNT_FUNDING',
    'QUASI_CASH_TRANSACTION',
    'PREPAID_ACTIVATION_AND_LOAD',
  ]),
  // docs/api.md#merchant-risk
  email('/merchantRiskIndicator/deliveryEmailAddress'),
  oneOf('/merchantRiskIndicator/deliveryTimeframe', ['ELECTRONIC', 'SAME_DAY', 'OVERNIGHT', 'TWO_DAY_OR_MORE']),
  count('/merchantRiskIndicator/giftCardAmount', 15),
  count('/merchantRiskIndicator/giftCardCount', 15),
  [
    '/merchantRiskIndicator/giftCardCurrency',
    ['978', '840', '036', '008', '392'],
    [
      ['000', 'format'],
      ['97', 'format'],
      ['EUR', 'format'],
      ['9780', 'max_length'],
      [978, 'type'],
    ],
  ],
  date('/merchantRiskIndicator/preOrderDate'),
  oneOf('/merchantRiskIndicator/preOrderPurchaseIndicator', ['AVAILABLE', 'FUTURE_AVAILABILITY']),
  oneOf('/merchantRiskIndicator/reorderItemsIndicator', ['FIRST_TIME', 'REORDERED']),
  oneOf('/merchantRiskIndicator/shippingIndicator', [
    'BILLING_ADDRESS',
    'VERIFIED_ADDRESS',
    'NOT_BILLING_ADDRESS',
    'LOCAL_STORE_PICKUP',
    'DIGITIAL_GOODS',
    'TRAVEL_AND_EVENT_TICKETS',
    'OTHER',
  ]),
  ['/merchantRiskIndicator/shippingIndicator', [], [['DIGITAL_GOODS', 'enum']]],
  oneOf('/merchantRiskIndicator/passwordChangeIndicator', ['NO_CHANGE', 'CHANGED_DURING_TRANSACTION', 'LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS']),
  // docs/api.md#browser-data
  [
    '/browserInfo/javaEnabled',
    [true, false],
    [
      ['true', 'type'],
      [1, 'type'],
    ],
  ],
  text('/browserInfo/acceptHeaders', 2048),
  [
    '/browserInfo/ipAddress',
    [
      '192.0.2.1',
      '0.0.0.0',
      '255.255.255.255',
      '2001:db8::1',
      '::1',
      '::ffff:192.0.2.1',
      '2001:0db8:0000:0000:0000:ff00:0042:8329',
      '0000:0000:0000:0000:0000:ffff:192.168.100.228',
    ],
    [
      ['256.1.1.1', 'format'],
      ['192.0.2', 'format'],
      ['localhost', 'format'],
      ['2001:db8:::1', 'format'],
      ['192.0.2.1 ', 'format'],
      [x(46), 'max_length'],
      [3232235777, 'type'],
    ],
  ],
  [
    '/browserInfo/language',
    ['en', 'nl', 'en-US', 'nl-NL', 'zh-Hans', 'es-419', 'fil-PH', 'EN-us', 'i-ami', 'x-kassa'],
    [
      ['en_US', 'format'],
      ['e', 'format'],
      ['en-', 'format'],
      ['123', 'format'],
      ['xx', 'format'],
      ['xx-YY', 'format'],
      ['english', 'format'],
      ['en-QQQ', 'format'],
      ['en-GB-oed1', 'max_length'],
      ['zh-Hans-CN', 'max_length'],
      [1, 'type'],
    ],
  ],
  [
    '/browserInfo/screenColorDepth',
    ['1', '4', '8', '15', '16', '24', '32', '48', '64'],
    [
      ['2', 'enum'],
      ['30', 'enum'],
      ['0', 'enum'],
      ['128', 'max_length'],
      [24, 'type'],
    ],
  ],
  count('/browserInfo/screenHeight', 6),
  count('/browserInfo/screenWidth', 6),
  [
    '/browserInfo/timeZone',
    ['0', '60', '-120', '+330', '-840', '12345'],
    [
      ['-', 'format'],
      ['1.5', 'format'],
      ['UTC', 'format'],
      ['+-60', 'format'],
      ['123456', 'max_length'],
      [-120, 'type'],
    ],
  ],
  text('/browserInfo/userAgent', 2048),
  [
    '/browserInfo/challengeWindowSize',
    ['W250H400', 'W390H400', 'W500H600', 'W600H400', 'FULL_SCREEN'],
    [
      ['w250h400', 'enum'],
      ['250x400', 'enum'],
      [5, 'type'],
    ],
  ],
  // older partial `browser` form: same formats, read from the raw headers setBrowserFromServer() sends (docs/interop.md)
  [
    '/browser/ipAddress',
    ['192.0.2.1', '::1', '203.0.113.7, 10.0.0.1', '2001:db8::1,192.0.2.1'],
    [
      ['999.1.1.1', 'format'],
      ['unknown, 192.0.2.1', 'format'],
    ],
  ],
  [
    '/browser/language',
    ['de-DE', 'nl-NL,nl;q=0.9,en-US;q=0.8', '*, en;q=0.5', 'de_DE, fr'],
    [
      ['de_DE', 'format'],
      ['*', 'format'],
      ['zh-Hans-CN', 'format'],
    ],
  ],
  ['/browser/acceptHeaders', ['text/html', 'x'.repeat(5000)], [[5, 'type']]],
  ['/browser/userAgent', ['Mozilla/5.0', 'x'.repeat(5000)], [[5, 'type']]],
  ['/browser/screenColorDepth', ['64'], [['2', 'enum']]],
  ['/browser/javaEnabled', [true], [['false', 'type']]],
  ['/browser/challengeWindowSize', ['FULL_SCREEN'], [['FULL', 'enum']]],
];

for (const [pointer, valid, invalid] of rows) {
  for (const value of valid) {
    test(`${pointer} accepts ${JSON.stringify(value).slice(0, 60)}`, () => {
      assert.deepEqual(failures(withField(pointer, value)), []);
    });
  }
  for (const [value, code] of invalid) {
    test(`${pointer} rejects ${JSON.stringify(value).slice(0, 60)} with ${code}`, () => {
      assert.deepEqual(failures(withField(pointer, value)), [`${pointer} ${code}`]);
    });
  }
}

test('every field of the example request is covered by the table above', () => {
  const covered = new Set(rows.map(([pointer]) => pointer));
  const example = exampleThreeDSRequest();
  for (const [key, value] of Object.entries(example)) {
    if (typeof value === 'object' && value !== null) {
      for (const nested of Object.keys(value)) {
        if (key !== 'browser') assert.ok(covered.has(`/${key}/${nested}`), `/${key}/${nested}`);
      }
    } else {
      assert.ok(covered.has(`/${key}`), `/${key}`);
    }
  }
});

test('messages name the rule that was broken', () => {
  const messages = (body: Record<string, unknown>) => validateThreeDS(body, payment).errors.map((e) => e.message);
  assert.deepEqual(messages(withField('/billingAddress', x(51))), ['must be at most 50 characters']);
  assert.deepEqual(messages(withField('/threeds2RequestInfo/challengeIndicator', 'MAYBE')), [
    'must be one of NO_PREFERENCE, NO_CHALLENGE, REQUEST_BY_MERCHANT_PREFERENCE, REQUEST_FOR_MANDATE',
  ]);
  assert.deepEqual(messages(withField('/sequenceInfo/recurringExpiry', '20230229')), ['must be a real calendar date in the form YYYYMMDD']);
  assert.deepEqual(messages(withField('/sequenceInfo/recurringFrequency', '1000')), ['must be at most 3 digits']);
  assert.deepEqual(messages(withField('/billingCountry', 'XXX')), ['must be an ISO 3166-1 alpha-2 or alpha-3 country code (e.g. NL or NLD)']);
  assert.deepEqual(messages(withField('/browser/language', '*')), ['must be an IETF BCP 47 language tag (e.g. en-US), or an Accept-Language header naming one']);
  assert.deepEqual(messages(withField('/billingAddress', 5)), ['must be a string']);
  assert.deepEqual(messages(withField('/browserInfo/javaEnabled', 'yes')), ['must be true or false']);
});

test('a request with many broken fields lists every one of them, in table order', () => {
  const body = exampleThreeDSRequest();
  body.billingCity = x(51);
  body.billingCountry = 'XX';
  (body.sequenceInfo as Record<string, unknown>).recurringExpiry = '20231301';
  (body.accountInfo as Record<string, unknown>).email = 'nope';
  (body.merchantRiskIndicator as Record<string, unknown>).shippingIndicator = 'DIGITAL_GOODS';
  (body.browserInfo as Record<string, unknown>).screenColorDepth = '30';
  assert.deepEqual(failures(body), [
    '/billingCity max_length',
    '/billingCountry format',
    '/sequenceInfo/recurringExpiry date',
    '/accountInfo/email format',
    '/merchantRiskIndicator/shippingIndicator enum',
    '/browserInfo/screenColorDepth enum',
  ]);
});

test('the nested objects must be objects', () => {
  for (const name of ['sequenceInfo', 'accountInfo', 'threeds2RequestInfo', 'merchantRiskIndicator', 'browserInfo', 'browser']) {
    for (const value of ['text', 5, true, [], [{}]]) {
      assert.deepEqual(failures(withField(`/${name}`, value)), [`/${name} type`], `${name} = ${JSON.stringify(value)}`);
    }
  }
});
