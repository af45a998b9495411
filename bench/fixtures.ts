/** A realistic card payment request carrying every 3-D Secure 2 field of docs/api.md#3-d-secure-2-data. */
import { exampleThreeDSRequest } from '../src/threeds/example.ts';

// The tests spread and override its nested 3-D Secure objects field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const fullCardPayment: Record<string, any> = {
  amount: '49.95',
  currency: 'EUR',
  method: 'card',
  language: 'nld',
  returnUrl: 'https://shop.example/checkout/return?order=10045',
  merchantOrderReference: 'order-10045',
  description: 'Order 10045: two mugs and a teapot',
  metadata: 'cart=8812;channel=web',
  ...exampleThreeDSRequest(),
};
