/**
 * The query strings of the merchant API's reads, as TypeBox schemas: Fastify validates the route's
 * query with them (api/payments.ts) and the OpenAPI document lists them as its parameters.
 */
import { Type, type Static } from '@sinclair/typebox';

/** docs/api.md#the-payment-object: a reference is at most 64 characters. */
const REFERENCE_LENGTH = 64;
export const MAX_REFERENCES = 50;

export const TransactionQuery = Type.Object({
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: REFERENCE_LENGTH, description: 'The transaction to read.' })),
  references: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: REFERENCE_LENGTH * MAX_REFERENCES + MAX_REFERENCES - 1,
      description: `Up to ${MAX_REFERENCES} references, comma-separated: the answer is an array in the order asked, unknown ones left out.`,
    }),
  ),
});

export type TransactionQuery = Static<typeof TransactionQuery>;
