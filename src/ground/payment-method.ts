/** The payment methods of docs/api.md#the-payment-object (`method`); `walletpay` is the provider's wallet, renamed. */
export const paymentMethods = ['card', 'landingpage', 'walletpay'] as const;
export type PaymentMethod = (typeof paymentMethods)[number];
