/**
 * The payment object in the merchant API's OpenAPI document (document.ts), as payments/serialize.ts
 * writes it: its enums from ground/ and the flows table, the 3-D Secure fields it echoes from
 * threeds/, the list of methods `GET /method` answers, and the example payment the reference shows.
 */
import { cardBrands } from '../ground/card-brand.ts';
import { retryAdvices } from '../acquirer/connector.ts';
import { isOffered, paymentMethods } from '../ground/payment-method.ts';
import { failureCodes, statuses } from '../ground/states.ts';
import { disputeStages } from '../ground/dispute-stages.ts';
import { flows } from '../payments/flows.ts';
import { paymentTable } from '../payments/requests/payment-request.ts';
import { echoedFieldSchemas, tableSchema } from './request-schemas.ts';

export type Schema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ── The answers ──────────────────────────────────────────────────────────────────────────

/** The `type` of a transaction: those of the flows, a refund's `credit` and a dispute's `chargeback` (docs/api.md#the-payment-object). */
export const transactionTypes = [...new Set([...Object.values(flows).flatMap((flow) => flow.transactionTypes), 'credit', 'chargeback'])];
export const transactionMethods = [...new Set(Object.values(flows).map((flow) => flow.method))];

const uri = { type: 'string', format: 'uri' };

/** The payment object of docs/api.md#the-payment-object as payments/serialize.ts writes it. */
export const paymentSchema: Schema = {
  type: 'object',
  description: 'A transaction: a payment, a refund (`type: credit`), a dispute (`type: chargeback`, docs/disputes.md) or a vault enrollment (`type: token`).',
  required: ['reference', 'created', 'lastUpdate', 'method', 'type', 'status', 'amount', 'currency', 'language', 'paidout', 'entryMode', 'details'],
  properties: {
    reference: { type: 'string', description: 'Kassa’s reference of the transaction.' },
    created: { type: 'integer', description: 'Epoch milliseconds.' },
    lastUpdate: { type: 'integer', description: 'Epoch milliseconds.' },
    method: { type: 'string', enum: transactionMethods },
    type: { type: 'string', enum: transactionTypes },
    status: { type: 'string', enum: [...statuses] },
    failureCode: { type: 'string', enum: [...failureCodes], description: 'Only when `status` is failed.' },
    amount: { type: 'number', description: 'Major units (`10.5` for EUR 10.50); 0 for an enrollment.' },
    currency: { type: 'string', pattern: '^[a-z]{3}$', description: 'ISO 4217 code, lower case.' },
    language: { type: 'string', pattern: '^[a-z]{3}$' },
    returnUrl: { type: 'string' },
    payUrl: { ...uri, description: 'Where the customer pays (a capability: do not log it).' },
    cancelUrl: { ...uri, description: '`POST` it to cancel the pending payment.' },
    cardDataUrl: { ...uri, description: '`POST` the wallet token here (hybrid wallet flow).' },
    merchantOrderReference: { type: 'string' },
    description: { type: 'string' },
    metadata: { type: 'string' },
    paidout: { type: 'string', enum: ['no'] },
    entryMode: { type: 'string', enum: ['ecom'] },
    brand: { type: 'string', enum: [...cardBrands] },
    parentReference: { type: 'string', description: 'The payment a refund, a capture or a dispute belongs to.' },
    details: {
      type: 'object',
      description: 'Method-specific data.',
      properties: {
        expirationDuration: { type: 'string', description: 'Landing pages: how long the payment may stay pending.' },
        refundedAmount: { type: 'number', description: 'What the successful refunds of this payment add up to.' },
        captureStatus: { type: 'string', description: 'Authorisations: `authorised`, `captured` or `reversed`.' },
        capturedAmount: { type: 'number' },
        acquirerOutcomeUnknown: {
          type: 'string',
          enum: ['reversal'],
          description:
            'Authorisations: the acquirer never answered their reversal; whether the amount is still held is unknown, so it is neither captured nor reversed until an operator or the acquirer settles it.',
        },
        undoneByAcquirer: {
          type: 'string',
          enum: ['capture_failed', 'refund_failed', 'refund_reversed'],
          description:
            "A capture or refund that is `success` but that the acquirer undid afterwards: nothing was taken (its authorisation is `authorised` again) or nothing was given back (the sale's `refundedAmount` leaves it out).",
        },
        disputes: {
          type: 'array',
          description: "Payments: the payment's disputes, oldest first, each as it stands now (its own transaction has the rest).",
          items: {
            type: 'object',
            required: ['reference', 'stage', 'status', 'amount'],
            properties: {
              reference: { type: 'string', description: 'The dispute’s own transaction (`type: chargeback`).' },
              stage: { type: 'string', enum: [...disputeStages] },
              status: {
                type: 'string',
                enum: [...statuses],
                description: 'Where the disputed money is: `success` taken back, `failed` with the merchant, `pending` undecided.',
              },
              amount: { type: 'number', description: 'The disputed amount, in major units of the payment’s currency.' },
            },
            additionalProperties: false,
          },
        },
        stage: {
          type: 'string',
          enum: [...disputeStages],
          description: 'Disputes (`type: chargeback`): where it stands (docs/disputes.md "Stages"); `status` follows it.',
        },
        reasonCode: { type: 'string', description: "Disputes: the card scheme's reason code." },
        reason: { type: 'string', description: "Disputes: the reason, in the acquirer's words." },
        schemeCode: { type: 'string', description: 'Disputes: the card scheme.' },
        defensePeriodEndsAt: { type: 'string', description: 'Disputes: until when it may be defended (ISO 8601, as the acquirer wrote it).' },
        defenseReasonCode: { type: 'string', description: 'Disputes: the reason the merchant defended it with (`POST /dispute/defend`).' },
        vaultAccessToken: { type: 'string', description: 'Enrollments on success: pays with the stored card (a secret of the merchant).' },
        maskedPan: { type: 'string' },
        cardholderFirstName: { type: 'string' },
        cardholderLastName: { type: 'string' },
        scaToken: { type: 'boolean', description: 'Whether the enrollment authenticated the cardholder (3-D Secure 2, Y).' },
        walletPayPaymentSession: { type: 'string', description: "Hybrid wallet flow: the wallet's merchant session (JSON text) to complete merchant validation with." },
        acquirerRefusal: {
          type: 'object',
          description: "A payment the acquirer refused (`failed`): why, in the acquirer's words, and whether the card may be tried again.",
          required: ['retry'],
          properties: {
            reason: { type: 'string', description: "The acquirer's reason (Adyen's `refusalReason`, or the message of a request it did not take)." },
            code: { type: 'string', description: "The acquirer's code of the reason (Adyen's `refusalReasonCode`, or its `errorCode`)." },
            merchantAdviceCode: { type: 'string', description: "Mastercard's merchant advice code, as the acquirer passed it on (`03: Do not try again`)." },
            retry: {
              type: 'string',
              enum: [...retryAdvices],
              description:
                '`do not retry`: this card will not be approved, do not send it again; `retry later`; `update card details`: ask the customer for new card data; `no advice`.',
            },
          },
          additionalProperties: false,
        },
        latePayment: {
          type: 'object',
          description:
            'A payment Kassa ended (`failed`: expired, cancelled) that the shopper paid after all, as the acquirer said later: Kassa gives the money back by itself (docs/acquirers.md "Money paid after Kassa gave up"). `returning`: asked of the acquirer; `returned`: the hold released or the money refunded; `not_returned`: the acquirer could not, an operator must look. Each change comes with a webhook.',
          required: ['status', 'amount'],
          properties: {
            status: { type: 'string', enum: ['returning', 'returned', 'not_returned'] },
            amount: { type: 'number', description: 'What the shopper paid, in major units of the payment’s currency.' },
          },
          additionalProperties: false,
        },
        paidWith: {
          type: 'string',
          enum: paymentMethods.filter(isOffered),
          description:
            'A landing page payment (`method: landingpage`): the method the customer chose on the page, which the payment is paid with; absent until the customer chooses. `method` stays `landingpage`.',
        },
        bankTransfer: {
          type: 'object',
          description:
            'A bank transfer through a live acquirer, while `pending`: the account the customer pays into and the reference they must quote (Kassa shows them on its page too).',
          required: ['beneficiary', 'iban', 'reference'],
          properties: {
            beneficiary: { type: 'string' },
            iban: { type: 'string' },
            bic: { type: 'string' },
            reference: { type: 'string', description: 'What the customer quotes, for the acquirer to match the money to the payment.' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: true,
    },
    ...echoedFieldSchemas,
  },
  additionalProperties: false,
};

export const paymentMethodsSchema: Schema = {
  type: 'array',
  examples: [[{ method: 'card', options: [{ brand: 'visa' }, { brand: 'mastercard' }] }, { method: 'landingpage' }, { method: 'walletpay' }]],
  description: "The methods enabled for the key's merchant; card lists its brands as options.",
  items: {
    type: 'object',
    required: ['method'],
    properties: {
      method: { type: 'string', enum: [...paymentMethods] },
      options: {
        type: 'array',
        items: { type: 'object', required: ['brand'], properties: { brand: { type: 'string', enum: [...cardBrands] } }, additionalProperties: false },
      },
    },
    additionalProperties: false,
  },
};

// ── Examples ─────────────────────────────────────────────────────────────────────────────

const EXAMPLE_PAGE_TOKEN = '0RZ8mVgXq7Jc1oD4kTnW2bYh9sLpE6uAfMzR3vCxK5iGaQe8Hy';

export const examplePayment = (publicUrl: string, baseUrl: string) => ({
  reference: 'tr_0RZ8mVgXb3fK2qLw9sTnYpA1cD',
  created: 1767225600000,
  lastUpdate: 1767225600000,
  method: 'card',
  type: 'sale',
  status: 'pending',
  amount: 10.5,
  currency: 'eur',
  language: 'eng',
  returnUrl: 'https://shop.example/return?order=1001',
  payUrl: `${publicUrl}/pay/${EXAMPLE_PAGE_TOKEN}`,
  cancelUrl: `${baseUrl}/cancel/${EXAMPLE_PAGE_TOKEN}`,
  merchantOrderReference: 'order-1001',
  paidout: 'no',
  entryMode: 'ecom',
  details: {},
});

/** The schema of one details field of the payment table: the hybrid flow's token intake takes the same token. */
export function detailsFieldSchema(name: string): Schema {
  const details = tableSchema(paymentTable).properties as Record<string, { properties: Record<string, Schema> }>;
  return details.details!.properties[name]!;
}
