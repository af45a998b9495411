/** The payment methods of spec §2.1 (`method`); `walletpay` is the spec's wallet, renamed. */
export const paymentMethods = ['card', 'landingpage', 'walletpay'] as const;
export type PaymentMethod = (typeof paymentMethods)[number];
