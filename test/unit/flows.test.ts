/** The flows table (payments/flows.ts) as the request validation, the enrollment and the payment object read it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { flowNames, flowOf, flows, type Flow } from '../../src/payments/flows.ts';
import { parsePaymentRequest } from '../../src/payments/requests/payment-request.ts';
import { parseEnrollmentRequest } from '../../src/payments/enrollment.ts';
import { serializePayment, type SerializableRow } from '../../src/payments/serialize.ts';
import { defaultSettings } from '../../src/merchants/merchants.ts';
import { paymentMethods } from '../../src/ground/payment-method.ts';
import { exampleThreeDSRequest } from '../../src/threeds/example.ts';
import { pendingPaymentRow } from '../events/support.ts';
import { SecretBox } from '../../src/lib/secret-box.ts';
import { pageTokenOf } from '../../src/lib/tokens.ts';
import { webhookReach } from '../../src/events/ssrf.ts';

/** A merchant accepting every known method: the table's flows are parsed as such a merchant's requests. */
const settings = defaultSettings(paymentMethods);
const validationUrl = 'https://apple-pay-gateway.apple.com/paymentservices/startSession';
const walletToken = {
  paymentData: {
    version: 'EC_v1',
    data: 'AAAA',
    signature: 'AAAA',
    header: { publicKeyHash: Buffer.alloc(32, 7).toString('base64'), transactionId: 'ab12', ephemeralPublicKey: 'AAAA' },
  },
};
const { browserInfo } = exampleThreeDSRequest();
const testRules = { webhooks: webhookReach('test', { testPrivateNetworks: true }), returnUrlSchemes: [] };

/** A valid request of `method` with these details; browserInfo given, as the merchant-checkout flows need it. */
function request(method: string, details: Record<string, unknown> = {}, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { method, amount: '10.00', currency: 'EUR', returnUrl: 'https://shop.example/back', browserInfo, details, ...more };
}

function parsed(body: Record<string, unknown>) {
  return parsePaymentRequest(body, { settings, ...testRules });
}

const errorsOf = (body: Record<string, unknown>) => parsed(body).errors.map((e) => `${e.field} ${e.code} ${e.message}`);

test('a request is recognised as its flow by its method and the details field sent', () => {
  const cases: [Record<string, unknown>, Flow][] = [
    [request('card'), 'card'],
    [request('card', { vaultAccessToken: 'vat_1' }), 'vault'],
    [request('card', { vaultAccessToken: '' }), 'card'],
    // docs/vault.md "Paying off-session": the merchant charges the stored card without the customer.
    [request('card', { vaultAccessToken: 'vat_1' }, { sequenceInfo: { type: 'UNSCHEDULED', mode: 'SUBSEQUENT', source: 'MIT' } }), 'vault-mit'],
    [request('card', { vaultAccessToken: 'vat_1' }, { sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'CIT' } }), 'vault'],
    [request('card', {}, { sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'MIT', initialTransactionId: 'abc' } }), 'card'],
    [request('card', { walletPayEncryptedToken: walletToken }), 'card'],
    [request('landingpage'), 'landingpage'],
    [request('walletpay'), 'walletpay-hosted'],
    [request('walletpay', { walletPayEncryptedToken: walletToken }), 'walletpay-direct'],
    [request('walletpay', { walletPayValidationUrl: validationUrl, walletPayDomainName: 'Shop.Example' }), 'walletpay-hybrid'],
    [request('walletpay', { walletPayValidationUrl: '', walletPayDomainName: null }), 'walletpay-hosted'],
  ];
  for (const [body, flow] of cases) {
    const { errors, request: result } = parsed(body);
    assert.deepEqual(errors, [], JSON.stringify(body));
    assert.equal(result?.flow, flow, JSON.stringify(body));
    assert.equal(result?.method, body.method);
  }
});

test('each flow requires and forbids its details fields, and refuses what it does not allow', () => {
  const hybridRequired = 'conditional_required is required for the hybrid wallet flow (with walletPayValidationUrl and walletPayDomainName)';
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['hybrid without the domain', request('walletpay', { walletPayValidationUrl: validationUrl }), [`/details/walletPayDomainName ${hybridRequired}`]],
    ['hybrid without the validation URL', request('walletpay', { walletPayDomainName: 'shop.example' }), [`/details/walletPayValidationUrl ${hybridRequired}`]],
    [
      'hybrid with a domain of the wrong type: its own error, not a missing one',
      request('walletpay', { walletPayValidationUrl: validationUrl, walletPayDomainName: 5 }),
      ['/details/walletPayDomainName type must be a string'],
    ],
    [
      'direct with the hybrid fields',
      request('walletpay', { walletPayEncryptedToken: walletToken, walletPayDomainName: 'shop.example' }),
      ['/details/walletPayEncryptedToken not_allowed cannot be combined with walletPayValidationUrl/walletPayDomainName'],
    ],
    [
      'a vault token on a landing page',
      request('landingpage', { vaultAccessToken: 'vat_1' }),
      ['/details/vaultAccessToken not_allowed is only allowed with method card'],
    ],
    [
      'a vault token on a wallet payment',
      request('walletpay', { vaultAccessToken: 'vat_1' }),
      ['/details/vaultAccessToken not_allowed is only allowed with method card'],
    ],
    [
      'a hosted wallet payment without returnUrl',
      request('walletpay', {}, { returnUrl: '' }),
      ['/returnUrl required is required: the customer returns there afterwards'],
    ],
    [
      'a vault payment without returnUrl',
      request('card', { vaultAccessToken: 'vat_1' }, { returnUrl: undefined }),
      ['/returnUrl required is required: the customer returns there afterwards'],
    ],
    ['a direct wallet payment without returnUrl', request('walletpay', { walletPayEncryptedToken: walletToken }, { returnUrl: undefined }), []],
    [
      'a hybrid wallet payment without returnUrl',
      request('walletpay', { walletPayValidationUrl: validationUrl, walletPayDomainName: 'x.example' }, { returnUrl: undefined }),
      [],
    ],
    ['a wallet payment to authorise', request('walletpay', {}, { type: 'authorise' }), ['/type not_allowed authorise is only available for method card, klarna']],
    [
      'a landing page to authorise',
      request('landingpage', {}, { transactionType: 'authorise' }),
      ['/transactionType not_allowed authorise is only available for method card, klarna'],
    ],
    ['a card payment to authorise', request('card', {}, { type: 'authorise', transactionType: 'authorise' }), []],
    ['a vault payment to authorise', request('card', { vaultAccessToken: 'vat_1' }, { type: 'authorise' }), []],
    ['a brand on a wallet payment', request('walletpay', {}, { brand: 'visa' }), ['/brand not_allowed is only allowed for card payments']],
    ['a brand on a landing page', request('landingpage', {}, { brand: 'visa' }), []],
    ['storeInVault yes on a landing page', request('landingpage', {}, { storeInVault: 'yes' }), ['/storeInVault not_allowed is only allowed for card payments']],
    ['storeInVault no on a wallet payment', request('walletpay', {}, { storeInVault: 'no' }), []],
    ['storeInVault yes on a card payment', request('card', {}, { storeInVault: 'yes' }), []],
    [
      'a direct wallet payment without browserInfo',
      request('walletpay', { walletPayEncryptedToken: walletToken }, { browserInfo: undefined }),
      ['/browserInfo required required when the merchant captures card data itself'],
    ],
    ['a card payment without browserInfo', request('card', {}, { browserInfo: undefined }), []],
  ];
  for (const [name, body, expected] of cases) assert.deepEqual(errorsOf(body), expected, name);
});

test('a wallet field marks its flow whatever its value; a vault token only as a string', () => {
  // Recognised as hybrid: the refused field is reported, the other one is missing, and no returnUrl is asked for.
  assert.deepEqual(
    parsed(request('walletpay', { walletPayValidationUrl: 7 }, { returnUrl: undefined })).errors.map((e) => `${e.field} ${e.code}`),
    ['/details/walletPayValidationUrl type', '/details/walletPayDomainName conditional_required'],
  );
  // Not a vault payment: the initial transaction of a recurring sequence is then required (docs/api.md#sequence-information).
  const recurring = { sequenceInfo: { type: 'RECURRING', mode: 'SUBSEQUENT', source: 'MIT' } };
  assert.deepEqual(
    parsed(request('card', { vaultAccessToken: 7 }, recurring)).errors.map((e) => `${e.field} ${e.code}`),
    ['/details/vaultAccessToken type', '/sequenceInfo/initialTransactionId conditional_required'],
  );
  assert.deepEqual(parsed(request('card', { vaultAccessToken: 'vat_1' }, recurring)).errors, []);
});

test('the enrollment reads its entry: dataType card, returnUrl required, 3-D Secure in enrollment mode', () => {
  const cases: [Record<string, unknown>, string[]][] = [
    [{ dataType: 'card', returnUrl: 'https://shop.example/back' }, []],
    [{ returnUrl: 'https://shop.example/back' }, ['/dataType required is required: card']],
    [{ dataType: 'token', returnUrl: 'https://shop.example/back' }, ['/dataType enum must be card']],
    [{ dataType: 'card' }, ['/returnUrl required is required: the customer returns there afterwards']],
  ];
  for (const [body, expected] of cases) {
    assert.deepEqual(
      parseEnrollmentRequest(body, testRules).errors.map((e) => `${e.field} ${e.code} ${e.message}`),
      expected,
      JSON.stringify(body),
    );
  }
  // docs/api.md#vault-enrollment: the enrollment ignores challengeIndicator.
  const { request: enrollment } = parseEnrollmentRequest(
    { dataType: 'card', returnUrl: 'https://x.example', threeds2RequestInfo: { challengeIndicator: 'NO_CHALLENGE' } },
    testRules,
  );
  assert.equal(enrollment?.threeDS.threeds2RequestInfo, undefined);
});

const addresses = { publicUrl: 'https://kassa.example', secrets: new SecretBox(randomBytes(32)) };
const reference = 'tr_0000000000000000000000001';

function row(flow: string, type = 'sale'): SerializableRow {
  return { ...(pendingPaymentRow(addresses.secrets, 'm1', { reference }) as Omit<SerializableRow, 'version'>), flow, type, version: 1 };
}

test('the payment object carries the addresses its flow answers with (docs/api.md#the-payment-object)', () => {
  const cases: [Flow, string[]][] = [
    ['card', ['payUrl', 'cancelUrl']],
    ['vault', ['payUrl', 'cancelUrl']],
    // docs/vault.md "Paying off-session": no customer, no address; the create answer carries the outcome.
    ['vault-mit', []],
    ['landingpage', ['payUrl']],
    ['walletpay-hosted', ['payUrl']],
    ['walletpay-direct', ['payUrl']],
    ['walletpay-hybrid', ['payUrl', 'cancelUrl', 'cardDataUrl']],
    ['enrollment', ['payUrl']],
    ['ideal', ['payUrl', 'cancelUrl']],
    ['paypal', ['payUrl', 'cancelUrl']],
    ['klarna', ['payUrl', 'cancelUrl']],
    ['banktransfer', ['payUrl', 'cancelUrl']],
  ];
  assert.deepEqual(cases.map(([flow]) => flow).sort(), [...flowNames].sort());
  for (const [flow, links] of cases) {
    const payment = serializePayment(row(flow), addresses);
    assert.deepEqual(
      ['payUrl', 'cancelUrl', 'cardDataUrl'].filter((link) => link in payment),
      links,
      flow,
    );
  }
  const token = pageTokenOf(addresses.secrets, reference);
  assert.equal(serializePayment(row('walletpay-hybrid'), addresses).cardDataUrl, `https://kassa.example/api/v1/card-data/${token}`);
  // A follow-up (a refund, a capture) has no customer page.
  for (const type of ['credit', 'sale']) assert.equal('payUrl' in serializePayment({ ...row('card', type), parent_reference: 'tr_paid' }, addresses), false);
  assert.throws(() => flowOf('cheque'), /Unknown flow cheque/);
});

test('the table holds together', () => {
  for (const method of paymentMethods) {
    const plain = flowNames.filter(
      (flow) => flows[flow].method === method && 'detailsSent' in flows[flow].recognisedBy && flows[flow].recognisedBy.detailsSent.length === 0,
    );
    assert.equal(plain.length, 1, `${method} has one flow without a marking details field`);
  }
  for (const flow of flowNames) {
    const spec = flows[flow];
    const marks = 'detailsSent' in spec.recognisedBy ? spec.recognisedBy.detailsSent : [];
    for (const mark of marks) assert.ok((spec.requires as readonly string[]).includes(mark), `${flow} requires ${mark}, which marks it`);
    // docs/api.md#the-service: a flow that sends the customer to a Kassa page brings them back to returnUrl.
    assert.equal(spec.requiresReturnUrl, spec.page !== 'none', `${flow} returnUrl`);
    assert.ok(spec.storesCard !== 'if-asked' || spec.storeInVault, `${flow} stores a card when asked only if it accepts storeInVault`);
    // Only a payment no customer takes part in (docs/vault.md "Paying off-session") has none.
    assert.equal(spec.answer.payUrl, flowOf(flow).initiator !== 'merchant', `${flow} has a payUrl`);
  }
});

/** [details.expirationDuration, the error or the kept duration]: up to P60D, as pay-by-link plugins send (docs/interop.md). */
const expirationCases: [duration: string, outcome: string][] = [
  ['PT1M', 'PT1M'],
  ['PT15M', 'PT15M'],
  ['P30D', 'P30D'],
  ['P31D', 'P31D'],
  ['P60D', 'P60D'],
  ['P8W', 'P8W'],
  ['P60DT1S', '/details/expirationDuration range must be between PT1M and P60D'],
  ['P61D', '/details/expirationDuration range must be between PT1M and P60D'],
  ['P9W', '/details/expirationDuration range must be between PT1M and P60D'],
  ['PT59S', '/details/expirationDuration range must be between PT1M and P60D'],
  ['P1M', '/details/expirationDuration format must be an ISO 8601 duration such as PT15M'],
];

for (const [duration, outcome] of expirationCases) {
  test(`a landing page payment with expirationDuration ${duration} gives ${outcome}`, () => {
    const result = parsed(request('landingpage', { expirationDuration: duration }));
    assert.equal(result.request?.expirationDuration ?? result.errors.map((e) => `${e.field} ${e.code} ${e.message}`).join(), outcome);
  });
}

/** Klarna lines whose totals the shop plugins computed in binary floating point (docs/payment-methods.md "What the request takes"). */
const floatLineCases: [totals: (number | string)[], amount: string, errors: string[]][] = [
  [[68.99000000000001, 5], '73.99', []],
  [[21.849999999999998, 5, -1.2100000000000002], '25.64', []],
  [[4.220000000000001, '0.78'], '5.00', []],
  [[68.995, 5], '73.99', ['/orderLines/0/totalPrice decimals EUR allows 2 decimal places']],
  [['68.99000000000001', 5], '73.99', ['/orderLines/0/totalPrice decimals EUR allows 2 decimal places']],
  [[68.99000000000001, 5], '74.00', ["/orderLines total_mismatch the lines' totalPrice add up to 73.99, not the amount 74.00"]],
];
for (const [totals, amount, errors] of floatLineCases) {
  test(`Klarna lines totalling ${totals.join(' + ')} for ${amount}: ${errors.length === 0 ? 'accepted' : errors.join('; ')}`, () => {
    const orderLines = totals.map((totalPrice, index) => ({ name: `line ${index}`, quantity: 1, totalPrice }));
    assert.deepEqual(errorsOf(request('klarna', {}, { amount, orderLines, transactionType: 'authorise' })), errors);
  });
}
