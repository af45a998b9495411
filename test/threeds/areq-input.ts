/** Test support: the input of an AReq for a plain card payment of 10.50 EUR, with the 3-D Secure data and anything else given. */
import type { AReqInput } from '../../src/threeds/areq.ts';
import type { ThreeDSData } from '../../src/threeds/validate.ts';

const purchaseDate = new Date(Date.UTC(2024, 4, 1, 12, 30, 5));

export function areqInput(data: Partial<ThreeDSData>, extra: Partial<AReqInput> = {}): AReqInput {
  return {
    amountMinor: 1050,
    currency: 'eur',
    kind: 'payment',
    usesVaultToken: false,
    storeInVault: false,
    data: { scaReady: 'no', ...data },
    purchaseDate,
    merchantName: 'Kassa Test Shop',
    ...extra,
  };
}
