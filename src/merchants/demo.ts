/**
 * First start on an empty database: a demo merchant, with its test key and a working curl line
 * printed once, whose returnUrl is Kassa's own stand-in for a shop (`PUBLIC_URL/test/return`,
 * pages/site.ts), so the first payment ends on a page rather than at an address that is not there. Test mode only: the start-up output lands in terminals, container logs and CI
 * transcripts, and a key printed there must not move money. A live key comes from the CLI,
 * shown once to the operator who asks for it.
 */
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { countMerchants } from '../store/merchants.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { createTestMerchant } from './merchants.ts';

export async function ensureDemoMerchant(store: Store, config: Config): Promise<string | undefined> {
  if ((await countMerchants(store.read)) > 0) return undefined;
  // Every known method, so the quickstart shows them all; a merchant made later gets methodsEnabledForNewMerchants.
  const demo = await createTestMerchant(store, { name: 'Demo Shop', methods: paymentMethods });
  const api = `${config.publicUrl}/api/v1`;
  return `
Kassa created a demo merchant (${demo.merchantId}) with a test API key, shown only now:
  test key: ${demo.testApiKey}
It has no live key: \`npx kassa key rotate --merchant ${demo.merchantId} --mode live\` makes one and shows it once.

Try it:
  curl -s -u ${demo.testApiKey}: -H 'Content-Type: application/json' \\
    -d '{"amount":"10.00","currency":"EUR","method":"card","returnUrl":"${config.publicUrl}/test/return"}' \\
    ${api}/payment
Open the payUrl of the answer and pay with the test card 4111 1111 1111 1111 (any future expiry, any CVC, any name);
the page then sends you to ${config.publicUrl}/test/return, which stands in for your shop. The outcome:
  curl -s -u ${demo.testApiKey}: '${api}/transaction?reference=<reference from the answer above>'

`;
}
