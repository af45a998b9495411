// Requirement rules (scaReady "S" fields, docs/api.md#sequence-information conditions, docs/api.md#browser-data all-or-nothing), empty and
// unknown values, e-mail defaults, phone adaptation, enrollment, normalization and echo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threeDSTopLevelFields, validateThreeDS, type ThreeDSContext } from '../../src/threeds/validate.ts';
import { echoedFields } from '../../src/threeds/echo.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';
import { areqInput } from './areq-input.ts';
import { buildAReq } from '../../src/threeds/areq.ts';

const payment: ThreeDSContext = { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: false };
const enrollment: ThreeDSContext = { operation: 'enrollment', usesVaultToken: false, merchantCapturesCardData: false };

function failures(body: Record<string, unknown>, ctx = payment): string[] {
  return validateThreeDS(body, ctx).errors.map((e) => `${e.field} ${e.code}`);
}

/** The fields left out of the data for their format (without scaReady yes), as `failures` names refusals. */
function leftOut(body: Record<string, unknown>, ctx = payment): string[] {
  return (validateThreeDS(body, ctx).data.leftOut ?? []).map((e) => `${e.field} ${e.code}`);
}

const scaFields = ['billingAddress', 'billingCity', 'billingState', 'billingPostalCode', 'billingCountry', 'billingPhoneNumber', 'billingPhoneCountry'];

test('the example request is valid for payments and enrollments, with and without a vault token', () => {
  for (const ctx of [payment, enrollment, { ...payment, usesVaultToken: true }, { ...payment, merchantCapturesCardData: true }]) {
    assert.deepEqual(failures(exampleThreeDSRequest(), ctx), []);
  }
});

test('an empty request is valid and scaReady defaults to no', () => {
  const { errors, data } = validateThreeDS({}, payment);
  assert.deepEqual(errors, []);
  assert.deepEqual(data, { scaReady: 'no' });
});

for (const field of scaFields) {
  test(`${field} is required when scaReady is yes`, () => {
    for (const missing of [undefined, '', null]) {
      const body = exampleThreeDSRequest();
      if (missing === undefined) delete body[field];
      else body[field] = missing;
      const { errors } = validateThreeDS(body, payment);
      assert.deepEqual(errors, [{ field: `/${field}`, code: 'required', message: 'required when scaReady is yes' }]);
    }
  });

  test(`${field} is optional when scaReady is no or absent`, () => {
    for (const scaReady of ['no', '', undefined]) {
      const body = exampleThreeDSRequest();
      body.scaReady = scaReady;
      delete body[field];
      assert.deepEqual(failures(body), []);
    }
  });
}

test('with scaReady yes all S fields missing are reported together', () => {
  assert.deepEqual(
    failures({ scaReady: 'yes' }),
    scaFields.map((f) => `/${f} required`),
  );
});

test('an invalid scaReady is reported once and does not make the S fields required', () => {
  assert.deepEqual(failures({ scaReady: 'YES' }), ['/scaReady enum']);
  assert.equal(validateThreeDS({ scaReady: 'YES' }, payment).data.scaReady, 'no');
});

test('the O fields stay optional with scaReady yes', () => {
  const body = exampleThreeDSRequest();
  for (const key of Object.keys(body)) if (!scaFields.includes(key) && key !== 'scaReady') delete body[key];
  assert.deepEqual(failures(body), []);
});

// docs/api.md#sequence-information: [sequenceInfo given, ctx, missing fields reported as conditional_required]
const sequenceCases: [string, Record<string, unknown>, ThreeDSContext, [string, string][]][] = [
  ['type alone is enough for EXPRESS_CHECKOUT', { type: 'EXPRESS_CHECKOUT' }, payment, []],
  [
    'RECURRING without mode: mode, source and initialTransactionId',
    { type: 'RECURRING' },
    payment,
    [
      ['mode', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED'],
      ['source', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED'],
      ['initialTransactionId', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED and no vault access token is used'],
    ],
  ],
  [
    'RECURRING INITIAL: recurringExpiry and recurringFrequency',
    { type: 'RECURRING', mode: 'INITIAL', source: 'CIT', initialTransactionId: 'T1' },
    payment,
    [
      ['recurringExpiry', 'required when type is RECURRING and mode is INITIAL'],
      ['recurringFrequency', 'required when type is RECURRING and mode is INITIAL'],
    ],
  ],
  ['RECURRING SUBSEQUENT: no recurring details', { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'MIT', initialTransactionId: 'T1' }, payment, []],
  [
    'INSTALMENT INITIAL: instalmentMaxAuthorisations',
    { type: 'INSTALMENT', mode: 'INITIAL', source: 'CIT', initialTransactionId: 'T1' },
    payment,
    [['instalmentMaxAuthorisations', 'required when type is INSTALMENT and mode is INITIAL']],
  ],
  ['INSTALMENT SUBSEQUENT: nothing more', { type: 'INSTALMENT', mode: 'SUBSEQUENT', source: 'MIT', initialTransactionId: 'T1' }, payment, []],
  [
    'UNSCHEDULED: mode, source, initialTransactionId',
    { type: 'UNSCHEDULED' },
    payment,
    [
      ['mode', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED'],
      ['source', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED'],
      ['initialTransactionId', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED and no vault access token is used'],
    ],
  ],
  [
    'UNSCHEDULED with a vault token: initialTransactionId not needed',
    { type: 'UNSCHEDULED', mode: 'SUBSEQUENT', source: 'MIT' },
    { ...payment, usesVaultToken: true },
    [],
  ],
  [
    'INSTALMENT INITIAL with a vault token still needs instalmentMaxAuthorisations',
    { type: 'INSTALMENT', mode: 'INITIAL', source: 'CIT' },
    { ...payment, usesVaultToken: true },
    [['instalmentMaxAuthorisations', 'required when type is INSTALMENT and mode is INITIAL']],
  ],
  ['an invalid type triggers no condition', { type: 'SUBSCRIPTION' }, payment, []],
  ['an invalid mode triggers no INITIAL condition', { type: 'RECURRING', mode: 'FIRST', source: 'CIT', initialTransactionId: 'T1' }, payment, []],
  [
    'empty strings count as missing',
    { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'CIT', initialTransactionId: '' },
    payment,
    [['initialTransactionId', 'required when type is RECURRING, INSTALMENT or UNSCHEDULED and no vault access token is used']],
  ],
];

for (const [name, sequenceInfo, ctx, missing] of sequenceCases) {
  test(`sequenceInfo: ${name}`, () => {
    const { errors, data } = validateThreeDS({ sequenceInfo }, ctx);
    // Without scaReady an invalid value is left out, not refused: it then triggers no condition either.
    const others = [...errors.filter((e) => e.code !== 'conditional_required'), ...(data.leftOut ?? [])];
    const conditional = errors.filter((e) => e.code === 'conditional_required');
    assert.deepEqual(
      conditional,
      missing.map(([field, message]) => ({ field: `/sequenceInfo/${field}`, code: 'conditional_required', message })),
    );
    const invalid = sequenceInfo.type === 'SUBSCRIPTION' ? ['/sequenceInfo/type'] : sequenceInfo.mode === 'FIRST' ? ['/sequenceInfo/mode'] : [];
    assert.deepEqual(
      others.map((e) => e.field),
      invalid,
    );
  });
}

test('sequenceInfo.type is required when the object is given', () => {
  for (const sequenceInfo of [{}, { mode: 'INITIAL' }, { type: '' }]) {
    assert.deepEqual(validateThreeDS({ sequenceInfo }, payment).errors, [
      { field: '/sequenceInfo/type', code: 'required', message: 'required when sequenceInfo is given' },
    ]);
  }
});

test('the numeric fields of sequenceInfo (docs/api.md#sequence-information) arrive as numbers or strings and are stored as numbers', () => {
  const { errors, data } = validateThreeDS(
    { sequenceInfo: { type: 'INSTALMENT', mode: 'INITIAL', source: 'CIT', initialTransactionId: 'T', instalmentMaxAuthorisations: '012', recurringFrequency: 7 } },
    payment,
  );
  assert.deepEqual(errors, []);
  assert.equal(data.sequenceInfo?.instalmentMaxAuthorisations, 12);
  assert.equal(data.sequenceInfo?.recurringFrequency, 7);
});

const browserFields = [
  'javaEnabled',
  'acceptHeaders',
  'ipAddress',
  'language',
  'screenColorDepth',
  'screenHeight',
  'screenWidth',
  'timeZone',
  'userAgent',
  'challengeWindowSize',
];

for (const field of browserFields) {
  test(`browserInfo is all or nothing: ${field} missing is reported`, () => {
    const body = exampleThreeDSRequest();
    delete (body.browserInfo as Record<string, unknown>)[field];
    assert.deepEqual(validateThreeDS(body, payment).errors, [
      { field: `/browserInfo/${field}`, code: 'conditional_required', message: 'required when any browserInfo field is given (all or nothing)' },
    ]);
  });
}

test('browserInfo with one field reports the nine others', () => {
  assert.deepEqual(
    failures({ browserInfo: { language: 'nl' } }),
    browserFields.filter((f) => f !== 'language').map((f) => `/browserInfo/${f} conditional_required`),
  );
});

test('browserInfo is optional when the customer is redirected to Kassa', () => {
  for (const browserInfo of [undefined, '', null, {}, { language: '' }]) {
    assert.deepEqual(failures({ browserInfo }), []);
  }
});

test('browserInfo is required when the merchant captures card data itself', () => {
  const captures = { ...payment, merchantCapturesCardData: true };
  for (const browserInfo of [undefined, '', null, {}]) {
    assert.deepEqual(validateThreeDS({ browserInfo }, captures).errors, [
      { field: '/browserInfo', code: 'required', message: 'required when the merchant captures card data itself' },
    ]);
  }
  assert.deepEqual(failures({ browserInfo: exampleThreeDSRequest().browserInfo }, captures), []);
  // a given but broken browserInfo carries its own errors, not an extra "required"; one off its format is left out
  assert.deepEqual(failures({ browserInfo: { ...(exampleThreeDSRequest().browserInfo as object), ipAddress: 5 } }, captures), ['/browserInfo/ipAddress type']);
  assert.deepEqual(failures({ browserInfo: { ...(exampleThreeDSRequest().browserInfo as object), ipAddress: 'x' } }, captures), []);
  assert.deepEqual(leftOut({ browserInfo: { ...(exampleThreeDSRequest().browserInfo as object), ipAddress: 'x' } }, captures), ['/browserInfo/ipAddress format']);
  // the older `browser` form satisfies the requirement only when complete
  assert.deepEqual(failures({ browser: exampleThreeDSRequest().browserInfo }, captures), []);
  assert.deepEqual(failures({ browser: { language: 'nl' } }, captures), ['/browserInfo required']);
});

test('the older browser form may be partial and is stored as given', () => {
  const { errors, data } = validateThreeDS({ browser: { ipAddress: '192.0.2.1', screenHeight: '' } }, payment);
  assert.deepEqual(errors, []);
  assert.deepEqual(data.browser, { ipAddress: '192.0.2.1' });
});

test('empty strings and null in optional fields mean absent, never an error', () => {
  const body = exampleThreeDSRequest();
  body.scaReady = 'no';
  (body.sequenceInfo as Record<string, unknown>).type = 'EXPRESS_CHECKOUT';
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'object' && value !== null) {
      for (const nested of Object.keys(value)) if (key !== 'sequenceInfo' || nested !== 'type') (value as Record<string, unknown>)[nested] = '';
    } else if (key !== 'scaReady') {
      body[key] = key.length % 2 ? '' : null;
    }
  }
  const { errors, data } = validateThreeDS(body, payment);
  assert.deepEqual(errors, []);
  assert.deepEqual(data, { scaReady: 'no', sequenceInfo: { type: 'EXPRESS_CHECKOUT' } });
});

test('unknown keys inside the objects are ignored and not stored', () => {
  const body = exampleThreeDSRequest();
  (body.accountInfo as Record<string, unknown>).favouriteColour = 12;
  (body.browserInfo as Record<string, unknown>).javaScriptEnabled = 'maybe';
  body.unrelatedTopLevel = { x: 1 };
  const { errors, data } = validateThreeDS(body, payment);
  assert.deepEqual(errors, []);
  assert.equal('favouriteColour' in (data.accountInfo ?? {}), false);
  assert.equal('javaScriptEnabled' in (data.browserInfo ?? {}), false);
  assert.equal('unrelatedTopLevel' in data, false);
});

test('countries and subdivisions are accepted in any case and stored in upper case', () => {
  const { errors, data } = validateThreeDS({ billingCountry: 'nl', billingState: 'nh', shippingCountry: 'Us', shippingState: 'ca' }, payment);
  assert.deepEqual(errors, []);
  assert.deepEqual([data.billingCountry, data.billingState, data.shippingCountry, data.shippingState], ['NL', 'NH', 'US', 'CA']);
});

/**
 * [country, state, echoed, sent as billAddrState]: an ISO 3166-2 subdivision of the country is
 * stored in upper case and reaches the AReq; anything else (a shop's own region code) is echoed
 * as given for the merchant, named, and left out of the data and the AReq, also with scaReady yes
 * (docs/interop.md).
 */
const subdivisionCases: [country: string | undefined, state: string, stored: string, inAReq: boolean][] = [
  ['NL', 'NH', 'NH', true],
  ['NL', 'zh', 'ZH', true],
  ['NLD', 'nh', 'NH', true], // alpha-3 country
  ['NL', 'CA', 'CA', false],
  ['NL', 'Noord-Holland', 'Noord-Holland', false],
  ['NL', 'NL-NH', 'NL-NH', false],
  ['US', 'CA', 'CA', true],
  ['usa', 'ca', 'CA', true],
  ['US', 'ZZ', 'ZZ', false],
  ['BE', 'VAN', 'VAN', true], // nested under BE-VLG
  ['BE', 'VLG', 'VLG', true],
  ['GB', 'BFS', 'BFS', true],
  ['DE', 'BY', 'BY', true],
  ['DE', 'NH', 'NH', false],
  ['CH', 'ZH', 'ZH', true],
  [undefined, 'nh', 'NH', true], // no country: the shape of a subdivision part is all that can be told
  [undefined, 'N-H', 'N-H', false],
  [undefined, 'ÄB', 'ÄB', false],
];

for (const [country, state, stored, inAReq] of subdivisionCases) {
  test(`billingState ${state} with billingCountry ${country ?? '(absent)'} is echoed as ${stored}${inAReq ? ' and sent to the issuer' : ', left out'}`, () => {
    const { errors, data } = validateThreeDS({ billingCountry: country, billingState: state }, payment);
    assert.deepEqual(errors, []);
    assert.equal(data.billingState, inAReq ? stored : undefined);
    assert.equal(echoedFields(data).billingState, stored);
    assert.deepEqual(leftOut({ billingCountry: country, billingState: state }), inAReq ? [] : ['/billingState format']);
    const strict = { ...exampleThreeDSRequest(), billingCountry: country, billingState: state };
    assert.deepEqual(
      failures(strict).filter((f) => f.startsWith('/billingState')),
      [],
      'not refused with scaReady yes either',
    );
    assert.deepEqual(leftOut(strict), inAReq ? [] : ['/billingState format']);
    const areq = buildAReq(areqInput(data));
    assert.equal(areq.billAddrState, inAReq ? stored : undefined);
  });
}

test('shippingState is read against shippingCountry, not billingCountry', () => {
  const tx = validateThreeDS({ billingCountry: 'NL', shippingCountry: 'US', shippingState: 'TX' }, payment).data;
  const zh = validateThreeDS({ billingCountry: 'US', shippingCountry: 'NL', shippingState: 'zh' }, payment).data;
  assert.deepEqual([tx.shippingState, zh.shippingState], ['TX', 'ZH']);
});

/** [field, as sent, as stored, echoed and mapped]: the spellings real clients send (docs/interop.md). */
const clientSpellings: [field: string, sent: unknown, stored: unknown][] = [
  ['billingCountry', 'NLD', 'NL'],
  ['billingCountry', 'nld', 'NL'],
  ['billingCountry', 'be', 'BE'],
  ['shippingCountry', 'DEU', 'DE'],
  ['scaReady', '1', 'yes'],
  ['scaReady', '0', 'no'],
  ['scaReady', true, 'yes'],
  ['scaReady', false, 'no'],
];

for (const [field, sent, stored] of clientSpellings) {
  test(`${field} ${JSON.stringify(sent)} is stored as ${JSON.stringify(stored)}`, () => {
    const body: Record<string, unknown> = { [field]: sent };
    const { data } = validateThreeDS(body, payment);
    assert.equal((data as unknown as Record<string, unknown>)[field], stored);
  });
}

test('scaReady "1" makes the "S" fields required, as yes does', () => {
  assert.deepEqual(failures({ scaReady: '1' }), failures({ scaReady: 'yes' }));
  assert.ok(failures({ scaReady: true }).includes('/billingCountry required'));
  assert.deepEqual(failures({ scaReady: '0' }), []);
});

/** [browser field, raw header as setBrowserFromServer() sends it, value kept]. */
const legacyBrowserHeaders: [field: string, sent: string, kept: string][] = [
  ['language', 'nl-NL,nl;q=0.9,en-US;q=0.8,en;q=0.7', 'nl-NL'],
  ['language', 'en', 'en'],
  ['language', '*;q=0.1, de', 'de'],
  ['language', 'x_bad, fr-BE;q=0.9', 'fr-BE'],
  ['language', 'zh-Hans-CN, zh', 'zh'], // EMVCo browserLanguage is at most 8 characters
  ['ipAddress', '203.0.113.7, 10.0.0.1, 10.0.0.2', '203.0.113.7'],
  ['ipAddress', ' 2001:db8::1 ', '2001:db8::1'],
  ['ipAddress', '192.0.2.1', '192.0.2.1'],
  ['ipAddress', '203.0.113.7:5678', '203.0.113.7'], // PrestaShop: the raw first X-Forwarded-For entry
  ['ipAddress', '203.0.113.7:5678, 10.0.0.1', '203.0.113.7'],
  ['ipAddress', '[2001:db8::1]:443', '2001:db8::1'],
  ['ipAddress', '[::1]', '::1'],
  ['ipAddress', '::1', '::1'],
  ['acceptHeaders', `text/html,${'x'.repeat(3000)}`, `text/html,${'x'.repeat(2038)}`],
  ['userAgent', 'M'.repeat(2049), 'M'.repeat(2048)],
];

for (const [field, sent, kept] of legacyBrowserHeaders) {
  test(`browser.${field} ${JSON.stringify(sent.slice(0, 40))} is kept as ${JSON.stringify(kept.slice(0, 40))}, with or without scaReady`, () => {
    for (const scaReady of ['no', 'yes']) {
      const { errors, data } = validateThreeDS({ ...exampleThreeDSRequest(), scaReady, browser: { [field]: sent } }, payment);
      assert.deepEqual(errors, []);
      assert.equal(data.leftOut, undefined);
      assert.equal((data.browser as Record<string, unknown>)[field], kept);
    }
  });
}

test('browserInfo stays strict: a header list or an over-long value is refused there', () => {
  const body = exampleThreeDSRequest();
  const info = body.browserInfo as Record<string, unknown>;
  info.language = 'nl-NL,nl;q=0.9';
  info.ipAddress = '203.0.113.7, 10.0.0.1';
  info.userAgent = 'M'.repeat(2049);
  assert.deepEqual(failures(body), ['/browserInfo/ipAddress format', '/browserInfo/language max_length', '/browserInfo/userAgent max_length']);
});

/** [as PHP's json_encode writes a DateTimeImmutable, kept]: the official client's account dates (docs/interop.md). */
const phpDates: [sent: unknown, kept: string | undefined, failure?: string][] = [
  [{ date: '2020-01-02 00:00:00.000000', timezone_type: 3, timezone: 'UTC' }, '20200102'],
  [{ date: '2019-12-31 23:59:59.000000', timezone_type: 3, timezone: 'Europe/Amsterdam' }, '20191231'],
  ['20200102', '20200102'],
  [{ date: '2023-02-29 00:00:00.000000', timezone_type: 3, timezone: 'UTC' }, undefined, '/accountInfo/accountCreationDate date'],
  [{ date: 'yesterday', timezone: 'UTC' }, undefined, '/accountInfo/accountCreationDate type'],
];

for (const [sent, kept, failure] of phpDates) {
  test(`accountInfo.accountCreationDate ${JSON.stringify(sent).slice(0, 50)} is ${kept ?? 'not kept'}`, () => {
    const { errors, data } = validateThreeDS({ accountInfo: { accountCreationDate: sent } }, payment);
    assert.deepEqual(
      [...errors, ...(data.leftOut ?? [])].map((e) => `${e.field} ${e.code}`),
      failure ? [failure] : [],
    );
    assert.equal(data.accountInfo?.accountCreationDate, kept);
  });
}

// ── e-mail defaults (docs/api.md#billing-and-shipping-fields, docs/api.md#account-information, docs/api.md#merchant-risk) ───

test('accountInfo.email and deliveryEmailAddress default to billingEmail', () => {
  const { data } = validateThreeDS({ billingEmail: 'b@example.com', shippingEmail: 's@example.com', accountInfo: { accountIdentifier: 'c1' } }, payment);
  assert.deepEqual(data.accountInfo, { accountIdentifier: 'c1', email: 'b@example.com' });
  assert.deepEqual(data.merchantRiskIndicator, { deliveryEmailAddress: 'b@example.com' });
});

test('deliveryEmailAddress defaults to shippingEmail when there is no billingEmail', () => {
  const { data } = validateThreeDS({ shippingEmail: 's@example.com', merchantRiskIndicator: { deliveryTimeframe: 'ELECTRONIC' } }, payment);
  assert.deepEqual(data.merchantRiskIndicator, { deliveryTimeframe: 'ELECTRONIC', deliveryEmailAddress: 's@example.com' });
  assert.equal(data.accountInfo, undefined);
});

test('given e-mail addresses are never overwritten by defaults', () => {
  const { data } = validateThreeDS(
    { billingEmail: 'b@example.com', accountInfo: { email: 'a@example.com' }, merchantRiskIndicator: { deliveryEmailAddress: 'd@example.com' } },
    payment,
  );
  assert.equal(data.accountInfo?.email, 'a@example.com');
  assert.equal(data.merchantRiskIndicator?.deliveryEmailAddress, 'd@example.com');
});

test('no default from an invalid source, nor over an invalid target', () => {
  const invalidSource = validateThreeDS({ billingEmail: 'not-an-address' }, payment);
  assert.deepEqual(invalidSource.data, {
    scaReady: 'no',
    leftOut: [{ field: '/billingEmail', code: 'format', message: 'must be an RFC 5322 e-mail address (addr-spec, e.g. name@example.com)', value: 'not-an-address' }],
  });
  const invalidTarget = validateThreeDS({ billingEmail: 'b@example.com', accountInfo: { email: 'broken' } }, payment);
  assert.deepEqual(
    invalidTarget.data.leftOut?.map((e) => e.field),
    ['/accountInfo/email'],
  );
  assert.equal(invalidTarget.data.accountInfo, undefined);
});

// ── phone adaptation (docs/api.md#billing-and-shipping-fields) ──────────────────────

const combinedNumbers: [string, string, string][] = [
  ['+31 20 123 4567', '31', '201234567'],
  ['+31201234567', '31', '201234567'],
  ['0031201234567', '31', '201234567'],
  ['0031 (0)20 123 4567', '31', '201234567'],
  ['+1 (213) 373-4253', '1', '2133734253'],
  ['+44 20 7946 0958', '44', '2079460958'],
  ['+32 470 12 34 56', '32', '470123456'],
  ['+800 1234 5678', '800', '12345678'],
];

for (const [combined, country, subscriber] of combinedNumbers) {
  test(`billingPhoneNumber ${combined} without billingPhoneCountry is split into ${country} and ${subscriber}`, () => {
    const { errors, data } = validateThreeDS({ billingPhoneNumber: combined }, payment);
    assert.deepEqual(errors, []);
    assert.equal(data.billingPhoneCountry, country);
    assert.equal(data.billingPhoneNumber, subscriber);
    assert.deepEqual(echoedFields(data), { billingPhoneNumber: subscriber, billingPhoneCountry: country });
  });
}

test('with scaReady yes a split number satisfies both phone fields', () => {
  const body = exampleThreeDSRequest();
  body.billingPhoneNumber = '+31 20 123 4567';
  delete body.billingPhoneCountry;
  const { errors, data } = validateThreeDS(body, payment);
  assert.deepEqual(errors, []);
  assert.equal(data.billingPhoneCountry, '31');
  assert.equal(data.billingPhoneNumber, '201234567');
});

test('with scaReady yes a split result that is still invalid is reported', () => {
  const body = exampleThreeDSRequest();
  body.billingPhoneNumber = '+31 20123456789012345'; // splits into 31 and a 17-digit subscriber section
  body.billingPhoneCountry = '';
  assert.deepEqual(failures(body), ['/billingPhoneNumber max_length']);
});

test('a number that cannot be split stays as given and fails validation', () => {
  const body = exampleThreeDSRequest();
  body.billingPhoneNumber = '+999 123 456';
  delete body.billingPhoneCountry;
  assert.deepEqual(failures(body), ['/billingPhoneNumber format', '/billingPhoneCountry required']);
});

test('a combined number is not split when its country is given', () => {
  assert.deepEqual(leftOut({ billingPhoneNumber: '+31 20 123 4567', billingPhoneCountry: '31' }), ['/billingPhoneNumber format']);
});

test('accountInfo work, home and mobile numbers are split too', () => {
  const { errors, data } = validateThreeDS(
    { accountInfo: { workPhoneNumber: '+49 30 123456', homePhoneNumber: '0044 20 7946 0958', mobilePhoneNumber: '+31 6 12345678', mobilePhoneCountry: '' } },
    payment,
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(data.accountInfo, {
    workPhoneNumber: '30123456',
    workPhoneCountry: '49',
    homePhoneNumber: '2079460958',
    homePhoneCountry: '44',
    mobilePhoneNumber: '612345678',
    mobilePhoneCountry: '31',
  });
});

test('the request body is not modified by phone splitting or defaults', () => {
  const body = { billingPhoneNumber: '+31 20 123 4567', billingEmail: 'b@example.com', accountInfo: { homePhoneNumber: '+31201234567' } };
  const copy = structuredClone(body);
  validateThreeDS(body, payment);
  assert.deepEqual(body, copy);
});

// ── vault enrollment (docs/api.md#vault-enrollment) ─────────────────────────────────

test('enrollment ignores challengeIndicator: not validated, not stored', () => {
  const { errors, data } = validateThreeDS({ threeds2RequestInfo: { challengeIndicator: 'WHATEVER', transactionType: 'ACCOUNT_FUNDING' } }, enrollment);
  assert.deepEqual(errors, []);
  assert.deepEqual(data.threeds2RequestInfo, { transactionType: 'ACCOUNT_FUNDING' });
});

test('enrollment still validates transactionType', () => {
  assert.deepEqual(leftOut({ threeds2RequestInfo: { transactionType: 'PURCHASE' } }, enrollment), ['/threeds2RequestInfo/transactionType enum']);
  assert.deepEqual(failures({ scaReady: 'ja', threeds2RequestInfo: { transactionType: 'PURCHASE' } }, enrollment), [
    '/scaReady enum',
    '/threeds2RequestInfo/transactionType enum',
  ]);
});

// ── stored data and echo ────────────────────────────────────────────────────────────

test('the full example is stored with every field it gave', () => {
  const example = exampleThreeDSRequest();
  const { data } = validateThreeDS(example, payment);
  const expected = structuredClone(example) as Record<string, Record<string, unknown>>;
  expected.sequenceInfo.recurringFrequency = 30;
  assert.deepEqual(data, expected);
});

test('echoedFields returns the billing and shipping strings, names and e-mails only', () => {
  const example = exampleThreeDSRequest();
  const echoed = echoedFields(validateThreeDS(example, payment).data);
  const expected = Object.fromEntries(Object.entries(example).filter(([k, v]) => typeof v === 'string' && k !== 'scaReady'));
  assert.deepEqual(echoed, expected);
  assert.equal(Object.keys(echoed).length, 22);
});

test('threeDSTopLevelFields names every top-level key this module reads', () => {
  assert.deepEqual([...threeDSTopLevelFields].sort(), Object.keys(exampleThreeDSRequest()).sort());
});
