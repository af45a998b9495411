/**
 * Whether Adyen's material can be read here: the stand-in (adyen-fake.ts, adyen-checkout-fake.ts)
 * validates every request against Adyen's own OpenAPI documents, read from ADYEN_CONTRACT_DIR
 * (default /work/shared/acquirers/adyen, the copy on the project's build machines). Where to get
 * them: docs/testing.md#adyens-api-contract. The files that start the stand-in skip without them
 * (fail under CI, through `needs`) instead of failing on a missing file in their first `before`.
 */
import fs from 'node:fs';
import { ADYEN_CONTRACT } from './adyen-fake.ts';
import { CHECKOUT_CONTRACT } from './adyen-checkout-fake.ts';

/** Why Adyen's documents cannot be read here, or undefined when they can. */
export const adyenContractMissing: string | undefined = [ADYEN_CONTRACT, CHECKOUT_CONTRACT]
  .filter((file) => !fs.existsSync(file))
  .map((file) => `Adyen's OpenAPI document is not at ${file} (set ADYEN_CONTRACT_DIR; docs/testing.md#adyens-api-contract)`)[0];
