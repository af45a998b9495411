/**
 * Whether Adyen's material can be read here: the stand-in (adyen-fake.ts) validates every request
 * against Adyen's own OpenAPI document, read from ADYEN_CONTRACT_DIR (default
 * /work/shared/acquirers/adyen, the copy on the project's build machines). Where to get it:
 * docs/testing.md#adyens-api-contract. The files that start the stand-in skip without it (fail
 * under CI, through `needs`) instead of failing on a missing file in their first `before`.
 */
import fs from 'node:fs';
import { ADYEN_CONTRACT } from './adyen-fake.ts';

/** Why Adyen's document cannot be read here, or undefined when it can. */
export const adyenContractMissing: string | undefined = fs.existsSync(ADYEN_CONTRACT)
  ? undefined
  : `Adyen's OpenAPI document is not at ${ADYEN_CONTRACT} (set ADYEN_CONTRACT_DIR; docs/testing.md#adyens-api-contract)`;
