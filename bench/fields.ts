/**
 * Micro-benchmark of the field engine (ground/field-engine.ts): a full create-payment body with
 * every 3-D Secure 2 field (threeds/example.ts), parsed N times (parsePaymentRequest, which runs
 * the 3-D Secure check too), and the 3-D Secure check alone. For comparison, the same body checked
 * by Ajv against the JSON Schema the tables generate (contract/request-schemas.ts): what checking
 * the shape alone costs with Ajv, before any of Kassa's own rules (docs/decisions.md "One field
 * engine"). Prints µs per validation. Run: `node --import tsx bench/fields.ts [N]`.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parsePaymentRequest } from '../src/payments/requests/payment-request.ts';
import { validateThreeDS } from '../src/threeds/validate.ts';
import { paymentRequestSchema } from '../src/contract/request-schemas.ts';
import { exampleThreeDSRequest } from '../src/threeds/example.ts';
import { defaultSettings } from '../src/merchants/merchants.ts';
import { paymentMethods } from '../src/ground/payment-method.ts';
import { webhookReach } from '../src/events/ssrf.ts';
import { flows } from '../src/payments/flows.ts';

const N = Number(process.argv[2] ?? 20_000);
const rules = { settings: defaultSettings(paymentMethods), webhooks: webhookReach('test', { testPrivateNetworks: false }), returnUrlSchemes: [] };
const body: Record<string, unknown> = {
  method: 'card',
  amount: '49.95',
  currency: 'EUR',
  type: 'sale',
  returnUrl: 'https://shop.example/return?order=1234',
  language: 'nld',
  merchantOrderReference: 'order-1234',
  description: 'Two books',
  metadata: '{"cart":"abc"}',
  webhookUrl: 'https://shop.example/webhook',
  ...exampleThreeDSRequest(),
};

/** Rounds of N calls; the fastest round counts, as the machine's other work only ever slows a round down. */
const ROUNDS = 7;

/** µs per call of `run` in the fastest of ROUNDS rounds of N calls, after N calls of warm-up. */
function measure(run: () => unknown): number {
  for (let i = 0; i < N; i++) run();
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / N);
  }
  return best;
}

if (parsePaymentRequest(body, rules).errors.length > 0) throw new Error('the benchmark body must be valid');
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const ajvValidate = ajv.compile(paymentRequestSchema());
if (!ajvValidate(body)) throw new Error(`Ajv refuses the benchmark body: ${JSON.stringify(ajvValidate.errors)}`);

const results = {
  'create body (parsePaymentRequest)': measure(() => parsePaymentRequest(body, rules)),
  '3-D Secure fields alone (validateThreeDS)': measure(() => validateThreeDS(body, flows.card.threeDS)),
  'Ajv, generated schema only': measure(() => ajvValidate(body)),
};
for (const [name, micros] of Object.entries(results)) console.log(`${name}: ${micros.toFixed(2)} µs per validation (N=${N})`);
