// EMVCo 2.2.0 AReq mapping: every row of every code table, the use-case defaults of docs/api.md#challenge-preference,
// addresses, amounts, phones, browser data and the complete example.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAReq, challengeIndicatorCode, challengeWindowSizeCode, emvcoDateTime, type AReqInput } from '../../src/threeds/areq.ts';
import { areqInput as input } from './areq-input.ts';
import { validateThreeDS, type ThreeDSData } from '../../src/threeds/validate.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';

function at(areq: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], areq);
}

/** [object, field, AReq path, spec value → EMVCo code]: the code tables restated from EMVCo 3DS 2.2.0. */
const codeTables: [keyof ThreeDSData, string, string, Record<string, string>][] = [
  [
    'threeds2RequestInfo',
    'challengeIndicator',
    'threeDSRequestorChallengeInd',
    { NO_PREFERENCE: '01', NO_CHALLENGE: '02', REQUEST_BY_MERCHANT_PREFERENCE: '03', REQUEST_FOR_MANDATE: '04' },
  ],
  [
    'threeds2RequestInfo',
    'transactionType',
    'transType',
    { GOODS_AND_SERVICES_PURCHASE: '01', CHECK_ACCEPTANCE: '03', ACCOUNT_FUNDING: '10', QUASI_CASH_TRANSACTION: '11', PREPAID_ACTIVATION_AND_LOAD: '28' },
  ],
  [
    'accountInfo',
    'accountAgeIndicator',
    'acctInfo.chAccAgeInd',
    { NO_ACCOUNT: '01', CREATED_DURING_TRANSACTION: '02', LESS_THAN_30_DAYS: '03', '30_TO_60_DAYS': '04', MORE_THAN_60_DAYS: '05' },
  ],
  [
    'accountInfo',
    'accountChangeIndicator',
    'acctInfo.chAccChangeInd',
    { CHANGED_DURING_TRANSACTION: '01', LESS_THAN_30_DAYS: '02', '30_TO_60_DAYS': '03', MORE_THAN_60_DAYS: '04' },
  ],
  [
    'accountInfo',
    'passwordChangeIndicator',
    'acctInfo.chAccPwChangeInd',
    { NO_CHANGE: '01', CHANGED_DURING_TRANSACTION: '02', LESS_THAN_30_DAYS: '03', '30_TO_60_DAYS': '04', MORE_THAN_60_DAYS: '05' },
  ],
  [
    'merchantRiskIndicator',
    'passwordChangeIndicator',
    'acctInfo.chAccPwChangeInd',
    { NO_CHANGE: '01', CHANGED_DURING_TRANSACTION: '02', LESS_THAN_30_DAYS: '03', '30_TO_60_DAYS': '04', MORE_THAN_60_DAYS: '05' },
  ],
  [
    'accountInfo',
    'paymentAccountIndicator',
    'acctInfo.paymentAccInd',
    { NO_ACCOUNT: '01', DURING_TRANSACTION: '02', LESS_THAN_30_DAYS: '03', '30_TO_60_DAYS': '04', MORE_THAN_60_DAYS: '05' },
  ],
  [
    'accountInfo',
    'shippingAddressUsageIndicator',
    'acctInfo.shipAddressUsageInd',
    { THIS_TRANSACTION: '01', LESS_THAN_30_DAYS: '02', '30_TO_60_DAYS': '03', MORE_THAN_60_DAYS: '04' },
  ],
  ['accountInfo', 'shippingNameIndicator', 'acctInfo.shipNameIndicator', { IDENTICAL: '01', DIFFERENT: '02' }],
  ['accountInfo', 'suspiciousAccountActivity', 'acctInfo.suspiciousAccActivity', { NOT_SUSPICIOUS: '01', SUSPICIOUS: '02' }],
  [
    'accountInfo',
    'authenticationMethod',
    'threeDSRequestorAuthenticationInfo.threeDSReqAuthMethod',
    { NO_LOGIN: '01', OWN_CREDENTIALS: '02', FEDERATED_ID: '03', ISSUER_CREDENTIALS: '04', THIRD_PARTY_AUTH: '05', FIDO_AUTH: '06' },
  ],
  ['merchantRiskIndicator', 'deliveryTimeframe', 'merchantRiskIndicator.deliveryTimeframe', { ELECTRONIC: '01', SAME_DAY: '02', OVERNIGHT: '03', TWO_DAY_OR_MORE: '04' }],
  ['merchantRiskIndicator', 'preOrderPurchaseIndicator', 'merchantRiskIndicator.preOrderPurchaseInd', { AVAILABLE: '01', FUTURE_AVAILABILITY: '02' }],
  ['merchantRiskIndicator', 'reorderItemsIndicator', 'merchantRiskIndicator.reorderItemsInd', { FIRST_TIME: '01', REORDERED: '02' }],
  [
    'merchantRiskIndicator',
    'shippingIndicator',
    'merchantRiskIndicator.shipIndicator',
    {
      BILLING_ADDRESS: '01',
      VERIFIED_ADDRESS: '02',
      NOT_BILLING_ADDRESS: '03',
      LOCAL_STORE_PICKUP: '04',
      DIGITIAL_GOODS: '05',
      TRAVEL_AND_EVENT_TICKETS: '06',
      OTHER: '07',
    },
  ],
  ['browserInfo', 'screenColorDepth', 'browserColorDepth', { '1': '1', '4': '4', '8': '8', '15': '15', '16': '16', '24': '24', '32': '32', '48': '48', '64': '48' }],
];

for (const [object, field, areqPath, table] of codeTables) {
  for (const [value, code] of Object.entries(table)) {
    test(`${object}.${field} ${value} → ${areqPath} ${code}`, () => {
      const base = object === 'browserInfo' ? (exampleThreeDSRequest().browserInfo as object) : {};
      const data = { [object]: { ...base, [field]: value } } as Partial<ThreeDSData>;
      // the value must be one the validator accepts, so the table covers the spec's values exactly
      assert.deepEqual(validateThreeDS({ [object]: data[object] }, { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: false }).errors, []);
      assert.equal(at(buildAReq(input(data)), areqPath), code);
    });
  }
}

const windowSizes: [string | undefined, string][] = [
  ['W250H400', '01'],
  ['W390H400', '02'],
  ['W500H600', '03'],
  ['W600H400', '04'],
  ['FULL_SCREEN', '05'],
  [undefined, '05'],
  ['W1H1', '05'],
];
for (const [size, code] of windowSizes) {
  test(`challengeWindowSize ${size ?? '(absent)'} → CReq ${code}`, () => {
    assert.equal(challengeWindowSizeCode(size), code);
  });
}

// The use-case table of docs/api.md#challenge-preference when the merchant gives no challengeIndicator.
const useCases: [string, Pick<AReqInput, 'kind' | 'usesVaultToken' | 'storeInVault'>, Partial<ThreeDSData>, string][] = [
  ['redirect payment', { kind: 'payment', usesVaultToken: false, storeInVault: false }, {}, '01'],
  ['one-click payment with a vault token', { kind: 'payment', usesVaultToken: true, storeInVault: false }, {}, '02'],
  ['payment storing the card (storeInVault yes)', { kind: 'payment', usesVaultToken: false, storeInVault: true }, {}, '03'],
  ['vault enrollment', { kind: 'enrollment', usesVaultToken: false, storeInVault: false }, {}, '03'],
  [
    'vault enrollment ignores a given indicator',
    { kind: 'enrollment', usesVaultToken: false, storeInVault: false },
    { threeds2RequestInfo: { challengeIndicator: 'NO_CHALLENGE' } },
    '03',
  ],
  ['first recurring payment', { kind: 'payment', usesVaultToken: false, storeInVault: false }, { sequenceInfo: { type: 'RECURRING', mode: 'INITIAL' } }, '04'],
  ['first instalment payment', { kind: 'payment', usesVaultToken: false, storeInVault: false }, { sequenceInfo: { type: 'INSTALMENT', mode: 'INITIAL' } }, '04'],
  [
    'first recurring payment that also stores the card',
    { kind: 'payment', usesVaultToken: false, storeInVault: true },
    { sequenceInfo: { type: 'RECURRING', mode: 'INITIAL' } },
    '04',
  ],
  [
    'subsequent recurring payment with a vault token',
    { kind: 'payment', usesVaultToken: true, storeInVault: false },
    { sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT' } },
    '02',
  ],
  [
    'first unscheduled payment is no mandate',
    { kind: 'payment', usesVaultToken: false, storeInVault: false },
    { sequenceInfo: { type: 'UNSCHEDULED', mode: 'INITIAL' } },
    '01',
  ],
  [
    'the merchant indicator wins over the use case',
    { kind: 'payment', usesVaultToken: true, storeInVault: false },
    { threeds2RequestInfo: { challengeIndicator: 'REQUEST_FOR_MANDATE' } },
    '04',
  ],
];
for (const [name, flags, data, code] of useCases) {
  test(`threeDSRequestorChallengeInd for ${name} is ${code}`, () => {
    const full = input(data, flags);
    assert.equal(challengeIndicatorCode(full), code);
    assert.equal(buildAReq(full).threeDSRequestorChallengeInd, code);
  });
}

test('transType defaults to 01 (goods and services)', () => {
  assert.equal(buildAReq(input({})).transType, '01');
});

const authenticationIndicators: [string, Partial<AReqInput>, Partial<ThreeDSData>, string][] = [
  ['a payment', {}, {}, '01'],
  ['a recurring payment', {}, { sequenceInfo: { type: 'RECURRING' } }, '02'],
  ['an instalment payment', {}, { sequenceInfo: { type: 'INSTALMENT' } }, '03'],
  ['an unscheduled payment', {}, { sequenceInfo: { type: 'UNSCHEDULED' } }, '01'],
  ['a vault enrollment', { kind: 'enrollment', amountMinor: 0 }, {}, '04'],
];
for (const [name, extra, data, code] of authenticationIndicators) {
  test(`threeDSRequestorAuthenticationInd for ${name} is ${code}`, () => {
    assert.equal(buildAReq(input(data, extra)).threeDSRequestorAuthenticationInd, code);
  });
}

test('amounts are minor units with the ISO 4217 numeric currency and exponent', () => {
  const cases: [number, string, [string, string, string]][] = [
    [1050, 'EUR', ['1050', '978', '2']],
    [1050, 'eur', ['1050', '978', '2']],
    [500, 'JPY', ['500', '392', '0']],
    [12345, 'BHD', ['12345', '048', '3']],
    [1, 'USD', ['1', '840', '2']],
  ];
  for (const [amountMinor, currency, [amount, numeric, exponent]] of cases) {
    const areq = buildAReq(input({}, { amountMinor, currency }));
    assert.deepEqual([areq.purchaseAmount, areq.purchaseCurrency, areq.purchaseExponent], [amount, numeric, exponent]);
  }
  assert.throws(() => buildAReq(input({}, { currency: 'XYZ' })), RangeError);
  assert.throws(() => buildAReq(input({}, { amountMinor: 10.5 })), RangeError);
});

test('purchaseDate is YYYYMMDDHHMMSS in UTC', () => {
  assert.equal(buildAReq(input({})).purchaseDate, '20240501123005');
  assert.equal(emvcoDateTime(new Date('1999-12-31T23:59:59.999+01:00')), '19991231225959');
});

test('a zero-amount vault enrollment is a non-payment authentication without purchase fields', () => {
  const areq = buildAReq(input({}, { kind: 'enrollment', amountMinor: 0 }));
  assert.equal(areq.messageCategory, '02');
  for (const key of ['purchaseAmount', 'purchaseCurrency', 'purchaseExponent', 'purchaseDate']) assert.equal(key in areq, false, key);
  assert.equal(buildAReq(input({}, { kind: 'enrollment', amountMinor: 100 })).messageCategory, '01');
  assert.equal(buildAReq(input({})).messageCategory, '01');
});

test('addresses: numeric country, subdivision-only state, house number on line 1', () => {
  const areq = buildAReq(
    input({
      billingAddress: 'Damrak',
      billingHouseNumber: '1',
      billingHouseExtension: 'A',
      billingCity: 'Amsterdam',
      billingPostalCode: '1012 LG',
      billingCountry: 'NL',
      billingState: 'NH',
      shippingAddress: 'Main Street 5',
      shippingCity: 'Springfield',
      shippingCountry: 'US',
      shippingState: 'IL',
    }),
  );
  assert.deepEqual(
    [areq.billAddrLine1, areq.billAddrCity, areq.billAddrPostCode, areq.billAddrCountry, areq.billAddrState],
    ['Damrak 1 A', 'Amsterdam', '1012 LG', '528', 'NH'],
  );
  assert.deepEqual([areq.shipAddrLine1, areq.shipAddrCity, areq.shipAddrCountry, areq.shipAddrState], ['Main Street 5', 'Springfield', '840', 'IL']);
  assert.equal('shipAddrPostCode' in areq, false);
  assert.equal(areq.addrMatch, 'N');
});

test('a house number that does not fit line 1 goes to line 2', () => {
  const street = 'S'.repeat(45);
  const areq = buildAReq(input({ billingAddress: street, billingHouseNumber: '1234', billingHouseExtension: 'bis' }));
  assert.deepEqual([areq.billAddrLine1, areq.billAddrLine2], [street, '1234 bis']);
});

test('addrMatch is Y for the same address, N for another, absent without both', () => {
  const billing = { billingAddress: 'Damrak 1', billingCity: 'Amsterdam', billingPostalCode: '1012 LG', billingCountry: 'NL' };
  const same = { shippingAddress: 'damrak  1', shippingCity: 'AMSTERDAM', shippingPostalCode: '1012LG', shippingCountry: 'NL' };
  assert.equal(buildAReq(input({ ...billing, ...same })).addrMatch, 'Y');
  assert.equal(buildAReq(input({ ...billing, ...same, shippingCity: 'Haarlem' })).addrMatch, 'N');
  assert.equal('addrMatch' in buildAReq(input(billing)), false);
  assert.equal('addrMatch' in buildAReq(input(same)), false);
});

test('phones are {cc, subscriber}; the billing phone stands in for a missing home phone', () => {
  const areq = buildAReq(
    input({
      billingPhoneCountry: '31',
      billingPhoneNumber: '201234567',
      accountInfo: { mobilePhoneCountry: '31', mobilePhoneNumber: '612345678', workPhoneCountry: '44', workPhoneNumber: '2079460958' },
    }),
  );
  assert.deepEqual(areq.homePhone, { cc: '31', subscriber: '201234567' });
  assert.deepEqual(areq.mobilePhone, { cc: '31', subscriber: '612345678' });
  assert.deepEqual(areq.workPhone, { cc: '44', subscriber: '2079460958' });
  const own = buildAReq(input({ billingPhoneCountry: '31', billingPhoneNumber: '201234567', accountInfo: { homePhoneCountry: '32', homePhoneNumber: '21234567' } }));
  assert.deepEqual(own.homePhone, { cc: '32', subscriber: '21234567' });
  assert.equal('homePhone' in buildAReq(input({ billingPhoneNumber: '201234567' })), false);
});

test('recurring and instalment data are sent as EMVCo numeric strings', () => {
  const areq = buildAReq(
    input({ sequenceInfo: { type: 'INSTALMENT', mode: 'INITIAL', recurringExpiry: '20301231', recurringFrequency: 30, instalmentMaxAuthorisations: 12 } }),
  );
  assert.deepEqual([areq.recurringExpiry, areq.recurringFrequency, areq.purchaseInstalData], ['20301231', '30', '12']);
});

test('gift card data: amount, two-digit count (at most 99), numeric currency', () => {
  const areq = buildAReq(input({ merchantRiskIndicator: { giftCardAmount: '150', giftCardCount: '3', giftCardCurrency: '978' } }));
  assert.deepEqual(areq.merchantRiskIndicator, { giftCardAmount: '150', giftCardCount: '03', giftCardCurr: '978' });
  assert.equal(at(buildAReq(input({ merchantRiskIndicator: { giftCardCount: '250' } })), 'merchantRiskIndicator.giftCardCount'), '99');
});

test("browser fields come from browserInfo, else from Kassa's page over the older browser form", () => {
  const browserInfo = exampleThreeDSRequest().browserInfo as ThreeDSData['browserInfo'];
  const fromMerchant = buildAReq(input({ browserInfo }, { collectedBrowserInfo: { ipAddress: '203.0.113.9' } }));
  assert.deepEqual(
    {
      browserAcceptHeader: fromMerchant.browserAcceptHeader,
      browserIP: fromMerchant.browserIP,
      browserJavaEnabled: fromMerchant.browserJavaEnabled,
      browserJavascriptEnabled: fromMerchant.browserJavascriptEnabled,
      browserLanguage: fromMerchant.browserLanguage,
      browserColorDepth: fromMerchant.browserColorDepth,
      browserScreenHeight: fromMerchant.browserScreenHeight,
      browserScreenWidth: fromMerchant.browserScreenWidth,
      browserTZ: fromMerchant.browserTZ,
      browserUserAgent: fromMerchant.browserUserAgent,
    },
    {
      browserAcceptHeader: browserInfo!.acceptHeaders,
      browserIP: '192.0.2.10',
      browserJavaEnabled: false,
      browserJavascriptEnabled: true,
      browserLanguage: 'nl-NL',
      browserColorDepth: '24',
      browserScreenHeight: '1080',
      browserScreenWidth: '1920',
      browserTZ: '-120',
      browserUserAgent: browserInfo!.userAgent,
    },
  );
  const collected = buildAReq(
    input({ browser: { ipAddress: '198.51.100.7', language: 'de' } }, { collectedBrowserInfo: { language: 'en-GB', screenColorDepth: '64', timeZone: undefined } }),
  );
  assert.deepEqual([collected.browserIP, collected.browserLanguage, collected.browserColorDepth, collected.browserTZ], ['198.51.100.7', 'en-GB', '48', undefined]);
  const none = buildAReq(input({}));
  assert.equal(
    Object.keys(none).some((k) => k.startsWith('browser')),
    false,
  );
});

test("cardholderName is built from the billing names when it fits EMVCo's 2 to 45 characters", () => {
  assert.equal(buildAReq(input({ billingFirstName: 'Jan', billingLastName: 'Jansen' })).cardholderName, 'Jan Jansen');
  assert.equal('cardholderName' in buildAReq(input({ billingFirstName: 'J' })), false);
  assert.equal('cardholderName' in buildAReq(input({ billingLastName: 'L'.repeat(46) })), false);
});

test('requestor identifiers and the merchant country are passed through', () => {
  const areq = buildAReq(input({}, { requestor: { acquirerBIN: '400000', mcc: '5411', threeDSServerTransID: 'abc' }, merchantCountry: 'NL' }));
  assert.deepEqual([areq.acquirerBIN, areq.mcc, areq.threeDSServerTransID, areq.merchantCountryCode], ['400000', '5411', 'abc', '528']);
});

test('the complete example maps to the complete AReq', () => {
  const { data, errors } = validateThreeDS(exampleThreeDSRequest(), { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: true });
  assert.deepEqual(errors, []);
  const areq = buildAReq(input(data, { amountMinor: 2599, currency: 'EUR' }));
  const example = exampleThreeDSRequest();
  assert.deepEqual(areq, {
    messageType: 'AReq',
    messageVersion: '2.2.0',
    deviceChannel: '02',
    messageCategory: '01',
    threeDSRequestorAuthenticationInd: '02',
    threeDSRequestorChallengeInd: '01',
    transType: '01',
    merchantName: 'Kassa Test Shop',
    purchaseAmount: '2599',
    purchaseCurrency: '978',
    purchaseExponent: '2',
    purchaseDate: '20240501123005',
    recurringExpiry: '20301231',
    recurringFrequency: '30',
    purchaseInstalData: '12',
    billAddrLine1: 'Damrak 1 A',
    billAddrCity: 'Amsterdam',
    billAddrPostCode: '1012 LG',
    billAddrCountry: '528',
    billAddrState: 'NH',
    shipAddrLine1: 'Coolsingel 40 B',
    shipAddrCity: 'Rotterdam',
    shipAddrPostCode: '3011 AD',
    shipAddrCountry: '528',
    shipAddrState: 'ZH',
    addrMatch: 'N',
    cardholderName: 'Jan Jansen',
    email: 'jan@example.com',
    homePhone: { cc: '31', subscriber: '201234567' },
    mobilePhone: { cc: '31', subscriber: '612345678' },
    workPhone: { cc: '31', subscriber: '207654321' },
    acctID: 'customer-4711',
    acctInfo: {
      chAccAgeInd: '05',
      chAccDate: '20190315',
      chAccChangeInd: '02',
      chAccChange: '20240229',
      chAccPwChangeInd: '01',
      chAccPwChange: '20230101',
      nbPurchaseAccount: '12',
      provisionAttemptsDay: '1',
      txnActivityDay: '2',
      txnActivityYear: '25',
      paymentAccAge: '20200601',
      paymentAccInd: '04',
      shipAddressUsage: '20210704',
      shipAddressUsageInd: '04',
      shipNameIndicator: '02',
      suspiciousAccActivity: '01',
    },
    threeDSRequestorAuthenticationInfo: { threeDSReqAuthMethod: '02', threeDSReqAuthTimestamp: '202405011230' },
    merchantRiskIndicator: {
      deliveryEmailAddress: 'gift@example.com',
      deliveryTimeframe: '01',
      giftCardAmount: '50',
      giftCardCount: '02',
      giftCardCurr: '978',
      preOrderDate: '20301001',
      preOrderPurchaseInd: '02',
      reorderItemsInd: '02',
      shipIndicator: '05',
    },
    browserAcceptHeader: (example.browserInfo as Record<string, string>).acceptHeaders,
    browserIP: '192.0.2.10',
    browserJavaEnabled: false,
    browserLanguage: 'nl-NL',
    browserColorDepth: '24',
    browserScreenHeight: '1080',
    browserScreenWidth: '1920',
    browserTZ: '-120',
    browserUserAgent: (example.browserInfo as Record<string, string>).userAgent,
    browserJavascriptEnabled: true,
  });
});
