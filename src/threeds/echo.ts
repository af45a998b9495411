/**
 * The payment object's echo of the 3-D Secure 2 fields (docs/api.md#the-payment-object: the
 * billing fields are echoed) and the fields left out for their format (docs/threeds.md), and the
 * way back from what a payment stores to the 3-D Secure data validate.ts produced. Pure.
 */
import { topLevelFields, type BillingAndShipping, type LeftOutField, type ThreeDSData } from './fields.ts';

const echoedFieldNames = Object.keys(topLevelFields).filter((name) => name !== 'scaReady') as (keyof BillingAndShipping)[];

/** The payment object's field naming the 3-D Secure fields left out (docs/threeds.md). */
export const LEFT_OUT_FIELD = 'threeDSFieldsLeftOut';

/** The name of a top-level field's pointer (`/billingAddress`), or undefined for a field inside an object. */
function topLevelName(pointer: string): string | undefined {
  return pointer.lastIndexOf('/') === 0 ? pointer.slice(1) : undefined;
}

/**
 * The top-level fields to echo in the payment object (docs/api.md#the-payment-object: the billing fields are echoed):
 * billing* and shipping* strings incl. billingEmail/FirstName/LastName, shippingEmail/FirstName/LastName,
 * a field left out as it was sent, and the list of the fields left out.
 */
export function echoedFields(data: ThreeDSData): Record<string, unknown> {
  const echoed: Record<string, unknown> = {};
  for (const name of echoedFieldNames) {
    const value = data[name];
    if (value !== undefined) echoed[name] = value;
  }
  if (data.leftOut === undefined) return echoed;
  for (const entry of data.leftOut) {
    const name = topLevelName(entry.field);
    if (name !== undefined) echoed[name] = entry.value;
  }
  echoed[LEFT_OUT_FIELD] = data.leftOut;
  return echoed;
}

const echoedNames = new Set<string>([...echoedFieldNames, 'leftOut']);

/** The data but its echoed fields: stored beside `echoedFields`, so that a payment keeps each field once. */
export function unechoedFields(data: ThreeDSData): Partial<ThreeDSData> {
  const rest: Record<string, unknown> = {};
  for (const name in data) if (!echoedNames.has(name)) rest[name] = data[name as keyof ThreeDSData];
  return rest;
}

/** The inverse of the two above: the 3-D Secure data again, without the values left out (they are in the echo for the merchant only). */
export function threeDSDataOf(echoed: Record<string, unknown>, rest: Partial<ThreeDSData>): ThreeDSData {
  const { [LEFT_OUT_FIELD]: leftOut, ...fields } = echoed;
  for (const entry of (leftOut as LeftOutField[] | undefined) ?? []) {
    const name = topLevelName(entry.field);
    if (name !== undefined) delete fields[name];
  }
  return { ...fields, ...rest } as ThreeDSData;
}
