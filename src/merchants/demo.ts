/** First start on an empty database: a demo merchant, with its test key and a working curl line printed once. */
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { countMerchants } from '../store/merchants.ts';
import { createMerchant } from './merchants.ts';

export async function ensureDemoMerchant(store: Store, config: Config): Promise<string | undefined> {
  if ((await countMerchants(store.read)) > 0) return undefined;
  const demo = await createMerchant(store, 'Demo Shop');
  const api = `${config.publicUrl}/api/v1`;
  return `
Kassa created a demo merchant (${demo.merchantId}). Its API keys are shown only now:
  test key: ${demo.testApiKey}
  live key: ${demo.liveApiKey}

Try it:
  curl -s -u ${demo.testApiKey}: -H 'Content-Type: application/json' \\
    -d '{"amount":"10.00","currency":"EUR","method":"card","returnUrl":"https://shop.example/return"}' \\
    ${api}/payment
  curl -s -u ${demo.testApiKey}: '${api}/transaction?reference=<reference from the answer above>'

`;
}
