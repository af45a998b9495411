// Property-based tests (fast-check): generated valid payloads are accepted, and a single
// mutation of one (too long, wrong enum, bad date, missing required field) is rejected with
// exactly that field's pointer. The model below restates docs/api.md#3-d-secure-2-data independently of
// src/threeds/fields.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import currencyCodes from 'currency-codes';
import { validateThreeDS, type ThreeDSContext } from '../../src/threeds/validate.ts';

type Kind =
  | { kind: 'text'; max: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'date' }
  | { kind: 'timestamp' }
  | { kind: 'count'; max: number }
  | { kind: 'integer3' }
  | { kind: 'email' }
  | { kind: 'phoneNumber' }
  | { kind: 'phoneCountry' }
  | { kind: 'country' }
  | { kind: 'state' }
  | { kind: 'boolean' }
  | { kind: 'ip' }
  | { kind: 'language' }
  | { kind: 'currency' }
  | { kind: 'minutes' }
  | { kind: 'colorDepth' };

const text = (max: number): Kind => ({ kind: 'text', max });
const oneOf = (...values: string[]): Kind => ({ kind: 'enum', values });
const count = (max: number): Kind => ({ kind: 'count', max });
const date: Kind = { kind: 'date' };
const periods = ['LESS_THAN_30_DAYS', '30_TO_60_DAYS', 'MORE_THAN_60_DAYS'];

/** [pointer, kind] for every field; `S` marks the spec's "required if scaReady = yes". */
const model: [string, Kind, 'S'?][] = [
  ['/billingAddress', text(50), 'S'],
  ['/billingCity', text(50), 'S'],
  ['/billingState', { kind: 'state' }, 'S'],
  ['/billingPostalCode', text(16), 'S'],
  ['/billingCountry', { kind: 'country' }, 'S'],
  ['/billingHouseNumber', text(10)],
  ['/billingHouseExtension', text(10)],
  ['/billingPhoneNumber', { kind: 'phoneNumber' }, 'S'],
  ['/billingPhoneCountry', { kind: 'phoneCountry' }, 'S'],
  ['/shippingAddress', text(50)],
  ['/shippingCity', text(50)],
  ['/shippingState', { kind: 'state' }],
  ['/shippingPostalCode', text(16)],
  ['/shippingCountry', { kind: 'country' }],
  ['/shippingHouseNumber', text(10)],
  ['/shippingHouseExtension', text(10)],
  ['/billingEmail', { kind: 'email' }],
  ['/billingFirstName', text(100)],
  ['/billingLastName', text(100)],
  ['/shippingEmail', { kind: 'email' }],
  ['/shippingFirstName', text(100)],
  ['/shippingLastName', text(100)],
  ['/sequenceInfo/type', oneOf('EXPRESS_CHECKOUT', 'RECURRING', 'INSTALMENT', 'UNSCHEDULED')],
  ['/sequenceInfo/instalmentMaxAuthorisations', { kind: 'integer3' }],
  ['/sequenceInfo/recurringExpiry', date],
  ['/sequenceInfo/recurringFrequency', { kind: 'integer3' }],
  ['/sequenceInfo/mode', oneOf('INITIAL', 'SUBSEQUENT')],
  ['/sequenceInfo/source', oneOf('CIT', 'MIT')],
  ['/sequenceInfo/initialTransactionId', text(20)],
  ['/sequenceInfo/industryPractice', oneOf('INCREMENTAL', 'DELAYED_CHARGES', 'NO_SHOW', 'REAUTHORIZATION', 'RESUBMISSION')],
  ['/accountInfo/accountIdentifier', text(64)],
  ['/accountInfo/accountAgeIndicator', oneOf('NO_ACCOUNT', 'CREATED_DURING_TRANSACTION', ...periods)],
  ['/accountInfo/accountCreationDate', date],
  ['/accountInfo/accountChangeIndicator', oneOf('CHANGED_DURING_TRANSACTION', ...periods)],
  ['/accountInfo/accountChangedDate', date],
  ['/accountInfo/passwordChangeIndicator', oneOf('NO_CHANGE', 'CHANGED_DURING_TRANSACTION', ...periods)],
  ['/accountInfo/passwordChangeDate', date],
  ['/accountInfo/purchasesLast6Months', count(4)],
  ['/accountInfo/attemptsToAddLastDay', count(3)],
  ['/accountInfo/transactionLastDay', count(2)],
  ['/accountInfo/transactionLastYear', count(3)],
  ['/accountInfo/paymentAccountDate', date],
  ['/accountInfo/paymentAccountIndicator', oneOf('NO_ACCOUNT', 'DURING_TRANSACTION', ...periods)],
  ['/accountInfo/shippingAddressFirstUsage', date],
  ['/accountInfo/shippingAddressUsageIndicator', oneOf('THIS_TRANSACTION', ...periods)],
  ['/accountInfo/shippingNameIndicator', oneOf('IDENTICAL', 'DIFFERENT')],
  ['/accountInfo/suspiciousAccountActivity', oneOf('NOT_SUSPICIOUS', 'SUSPICIOUS')],
  ['/accountInfo/email', { kind: 'email' }],
  ['/accountInfo/workPhoneNumber', { kind: 'phoneNumber' }],
  ['/accountInfo/workPhoneCountry', { kind: 'phoneCountry' }],
  ['/accountInfo/homePhoneNumber', { kind: 'phoneNumber' }],
  ['/accountInfo/homePhoneCountry', { kind: 'phoneCountry' }],
  ['/accountInfo/mobilePhoneNumber', { kind: 'phoneNumber' }],
  ['/accountInfo/mobilePhoneCountry', { kind: 'phoneCountry' }],
  ['/accountInfo/authenticationMethod', oneOf('NO_LOGIN', 'OWN_CREDENTIALS', 'FEDERATED_ID', 'ISSUER_CREDENTIALS', 'THIRD_PARTY_AUTH', 'FIDO_AUTH')],
  ['/accountInfo/authenticationTimestamp', { kind: 'timestamp' }],
  ['/accountInfo/dateOfBirth', date],
  ['/threeds2RequestInfo/challengeIndicator', oneOf('NO_PREFERENCE', 'NO_CHALLENGE', 'REQUEST_BY_MERCHANT_PREFERENCE', 'REQUEST_FOR_MANDATE')],
  [
    '/threeds2RequestInfo/transactionType',
    oneOf('GOODS_AND_SERVICES_PURCHASE', 'CHECK_ACCEPTANCE', 'ACCOUNT_FUNDING', 'QUASI_CASH_TRANSACTION', 'PREPAID_ACTIVATION_AND_LOAD'),
  ],
  ['/merchantRiskIndicator/deliveryEmailAddress', { kind: 'email' }],
  ['/merchantRiskIndicator/deliveryTimeframe', oneOf('ELECTRONIC', 'SAME_DAY', 'OVERNIGHT', 'TWO_DAY_OR_MORE')],
  ['/merchantRiskIndicator/giftCardAmount', count(15)],
  ['/merchantRiskIndicator/giftCardCount', count(15)],
  ['/merchantRiskIndicator/giftCardCurrency', { kind: 'currency' }],
  ['/merchantRiskIndicator/preOrderDate', date],
  ['/merchantRiskIndicator/preOrderPurchaseIndicator', oneOf('AVAILABLE', 'FUTURE_AVAILABILITY')],
  ['/merchantRiskIndicator/reorderItemsIndicator', oneOf('FIRST_TIME', 'REORDERED')],
  [
    '/merchantRiskIndicator/shippingIndicator',
    oneOf('BILLING_ADDRESS', 'VERIFIED_ADDRESS', 'NOT_BILLING_ADDRESS', 'LOCAL_STORE_PICKUP', 'DIGITIAL_GOODS', 'TRAVEL_AND_EVENT_TICKETS', 'OTHER'),
  ],
  ['/merchantRiskIndicator/passwordChangeIndicator', oneOf('NO_CHANGE', 'CHANGED_DURING_TRANSACTION', ...periods)],
  ['/browserInfo/javaEnabled', { kind: 'boolean' }],
  ['/browserInfo/acceptHeaders', text(2048)],
  ['/browserInfo/ipAddress', { kind: 'ip' }],
  ['/browserInfo/language', { kind: 'language' }],
  ['/browserInfo/screenColorDepth', { kind: 'colorDepth' }],
  ['/browserInfo/screenHeight', count(6)],
  ['/browserInfo/screenWidth', count(6)],
  ['/browserInfo/timeZone', { kind: 'minutes' }],
  ['/browserInfo/userAgent', text(2048)],
  ['/browserInfo/challengeWindowSize', oneOf('W250H400', 'W390H400', 'W500H600', 'W600H400', 'FULL_SCREEN')],
  ['/browser/ipAddress', { kind: 'ip' }],
  ['/browser/language', { kind: 'language' }],
  ['/browser/screenColorDepth', { kind: 'colorDepth' }],
  ['/browser/timeZone', { kind: 'minutes' }],
  ['/browser/challengeWindowSize', oneOf('W250H400', 'FULL_SCREEN')],
];

const digit = fc.constantFrom(...'0123456789');
const yyyymmdd = (d: Date): string => d.toISOString().slice(0, 10).replace(/-/g, '');
const someDate = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });

function arbitraryFor(kind: Kind): fc.Arbitrary<unknown> {
  switch (kind.kind) {
    case 'text':
      return fc.string({ minLength: 1, maxLength: Math.min(kind.max, 60) });
    case 'enum':
      return fc.constantFrom(...kind.values);
    case 'date':
      return someDate.map(yyyymmdd);
    case 'timestamp':
      return someDate.map((d) => d.toISOString().slice(0, 16).replace(/[-T:]/g, ''));
    case 'count':
      return fc.integer({ min: 0, max: 10 ** kind.max - 1 }).map(String);
    case 'integer3':
      return fc.integer({ min: 1, max: 999 }).chain((n) => fc.constantFrom<unknown>(n, String(n)));
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= 254);
    case 'phoneNumber':
      // never "00…": a leading international prefix would be split when the country is absent
      return fc.tuple(fc.integer({ min: 1, max: 9 }), fc.string({ unit: digit, maxLength: 14 })).map(([first, rest]) => `${first}${rest}`);
    case 'phoneCountry':
      return fc.constantFrom('1', '7', '31', '32', '44', '49', '358', '800');
    case 'country':
    case 'state':
      return fc.constant(undefined); // set together, see countryAndState
    case 'boolean':
      return fc.boolean();
    case 'ip':
      return fc.oneof(fc.ipV4(), fc.ipV6());
    case 'language':
      return fc.constantFrom('en', 'nl', 'en-US', 'nl-NL', 'de-CH', 'zh-Hans', 'es-419', 'fr');
    case 'currency':
      return fc.constantFrom(...currencyCodes.data.map((c) => c.number));
    case 'minutes':
      return fc.integer({ min: -840, max: 840 }).map(String);
    case 'colorDepth':
      return fc.constantFrom('1', '4', '8', '15', '16', '24', '32', '48', '64');
  }
}

const countryAndStatePairs: [country: string, state: string][] = [
  ['NL', 'NH'],
  ['NL', 'ZH'],
  ['US', 'CA'],
  ['BE', 'VAN'],
  ['DE', 'BY'],
  ['GB', 'BFS'],
  ['FR', '75C'],
  ['CH', 'ZH'],
  ['nl', 'nh'],
];
const countryAndState = fc.constantFrom(...countryAndStatePairs);

const scaFields = new Set(model.filter(([, , s]) => s === 'S').map(([p]) => p));
const recurringLike = ['RECURRING', 'INSTALMENT', 'UNSCHEDULED'];

/** The fields required in this payload by the spec's rules (docs/api.md#billing-and-shipping-fields S, docs/api.md#sequence-information conditions, docs/api.md#browser-data all-or-nothing). */
function requiredPointers(values: Record<string, unknown>, has: Record<string, boolean>, scaYes: boolean, ctx: ThreeDSContext): Set<string> {
  const required = new Set<string>(scaYes ? scaFields : []);
  if (has.sequenceInfo) {
    const type = values['/sequenceInfo/type'];
    const mode = values['/sequenceInfo/mode'];
    required.add('/sequenceInfo/type');
    if (recurringLike.includes(type as string)) {
      required.add('/sequenceInfo/mode').add('/sequenceInfo/source');
      if (!ctx.usesVaultToken) required.add('/sequenceInfo/initialTransactionId');
      if (type === 'RECURRING' && mode === 'INITIAL') required.add('/sequenceInfo/recurringExpiry').add('/sequenceInfo/recurringFrequency');
      if (type === 'INSTALMENT' && mode === 'INITIAL') required.add('/sequenceInfo/instalmentMaxAuthorisations');
    }
  }
  if (has.browserInfo) for (const [p] of model) if (p.startsWith('/browserInfo/')) required.add(p);
  return required;
}

interface Generated {
  body: Record<string, unknown>;
  ctx: ThreeDSContext;
  present: [string, Kind][];
  required: Set<string>;
}

const objects = ['sequenceInfo', 'accountInfo', 'threeds2RequestInfo', 'merchantRiskIndicator', 'browserInfo', 'browser'];

const validPayload: fc.Arbitrary<Generated> = fc
  .record({
    values: fc.record(Object.fromEntries(model.map(([p, kind]) => [p, arbitraryFor(kind)]))),
    keep: fc.record(Object.fromEntries(model.map(([p]) => [p, fc.boolean()]))),
    has: fc.record(Object.fromEntries(objects.map((o) => [o, fc.boolean()]))),
    billing: countryAndState,
    shipping: countryAndState,
    scaReady: fc.constantFrom('yes', 'no', '', undefined),
    operation: fc.constantFrom('payment' as const, 'enrollment' as const),
    usesVaultToken: fc.boolean(),
    merchantCapturesCardData: fc.boolean(),
  })
  .map((g) => {
    const values: Record<string, unknown> = { ...g.values };
    [values['/billingCountry'], values['/billingState']] = g.billing;
    [values['/shippingCountry'], values['/shippingState']] = g.shipping;
    const ctx: ThreeDSContext = { operation: g.operation, usesVaultToken: g.usesVaultToken, merchantCapturesCardData: g.merchantCapturesCardData };
    const has: Record<string, boolean> = { ...g.has, browserInfo: g.has.browserInfo || g.merchantCapturesCardData };
    const required = requiredPointers(values, has, g.scaReady === 'yes', ctx);
    const body: Record<string, unknown> = g.scaReady === undefined ? {} : { scaReady: g.scaReady };
    const present: [string, Kind][] = [];
    for (const [pointer, kind] of model) {
      const [, object, field] = pointer.split('/');
      if (field !== undefined && !has[object]) continue;
      if (!required.has(pointer) && !g.keep[pointer]) continue;
      if (field === undefined) body[object] = values[pointer];
      else ((body[object] ??= {}) as Record<string, unknown>)[field] = values[pointer];
      present.push([pointer, kind]);
    }
    if (g.scaReady !== undefined) present.push(['/scaReady', oneOf('yes', 'no')]);
    return { body, ctx, present, required };
  });

/** A value that breaks exactly one rule of its field: too long, a wrong enum, a bad date. */
function mutationsFor(kind: Kind): unknown[] {
  switch (kind.kind) {
    case 'text':
      return ['x'.repeat(kind.max + 1)];
    case 'enum':
      return ['NOT_A_VALUE', kind.values[0].toLowerCase() === kind.values[0] ? kind.values[0].toUpperCase() : kind.values[0].toLowerCase()];
    case 'date':
      return ['20230229', '20231301', '202301011'];
    case 'timestamp':
      return ['202302291200', '202301012400', '2023010112001'];
    case 'count':
      return ['1'.repeat(kind.max + 1), '1x'];
    case 'integer3':
      return ['1000', 1000, 0];
    case 'email':
      return [`${'a'.repeat(243)}@example.com`, 'no-at-sign', 'Jan <jan@example.nl>'];
    case 'phoneNumber':
      return ['1'.repeat(16), '20 1234'];
    case 'phoneCountry':
      return ['1234', '999'];
    case 'country':
      return ['NLDX', 'XX', 'XXX'];
    case 'state':
      // A shop's own region code is kept, not refused (docs/interop.md): only type and size are wrong.
      return ['x'.repeat(51), 5];
    case 'boolean':
      return ['true'];
    case 'ip':
      return ['1'.repeat(46), '300.1.1.1'];
    case 'language':
      return ['abcdefghi', 'en_US'];
    case 'currency':
      return ['9780', '000'];
    case 'minutes':
      return ['123456', '1.5'];
    case 'colorDepth':
      return ['128', '2'];
  }
}

function setAt(body: Record<string, unknown>, pointer: string, value: unknown): void {
  const [, object, field] = pointer.split('/');
  if (field === undefined) {
    if (value === undefined) delete body[object];
    else body[object] = value;
    return;
  }
  const target = body[object] as Record<string, unknown>;
  if (value === undefined) delete target[field];
  else target[field] = value;
}

test('generated valid payloads are accepted with zero errors', () => {
  fc.assert(
    fc.property(validPayload, ({ body, ctx }) => {
      assert.deepEqual(validateThreeDS(body, ctx).errors, []);
    }),
    { numRuns: 500 },
  );
});

test("a single mutation is rejected, or without scaReady yes left out, with exactly that field's pointer", () => {
  const mutated = validPayload.chain((g) => {
    const candidates: [string, unknown][] = [];
    for (const [pointer, kind] of g.present) {
      if (pointer === '/threeds2RequestInfo/challengeIndicator' && g.ctx.operation === 'enrollment') continue; // ignored there (docs/api.md#vault-enrollment)
      for (const value of mutationsFor(kind)) candidates.push([pointer, value]);
      if (g.required.has(pointer)) candidates.push([pointer, undefined]);
    }
    return fc.constantFrom(...candidates).map(([pointer, value]) => ({ ...g, pointer, value }));
  });
  fc.assert(
    fc.property(mutated, ({ body, ctx, pointer, value }) => {
      const copy = structuredClone(body);
      setAt(copy, pointer, value);
      const { errors, data } = validateThreeDS(copy, ctx);
      const leftOut = data.leftOut ?? [];
      assert.deepEqual(
        [...errors, ...leftOut].map((e) => e.field),
        [pointer],
        `${pointer} = ${JSON.stringify(value)}`,
      );
      if (copy.scaReady === 'yes') assert.deepEqual(leftOut, [], 'with scaReady yes a field off its format is refused');
    }),
    { numRuns: 2000 },
  );
});

test('removing a whole optional object never adds errors', () => {
  fc.assert(
    fc.property(validPayload, fc.constantFrom('accountInfo', 'threeds2RequestInfo', 'merchantRiskIndicator', 'sequenceInfo', 'browser'), ({ body, ctx }, name) => {
      const copy = structuredClone(body);
      delete copy[name];
      assert.deepEqual(validateThreeDS(copy, ctx).errors, []);
    }),
    { numRuns: 200 },
  );
});
