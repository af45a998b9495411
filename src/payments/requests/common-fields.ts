/**
 * The rows every request that sends a customer to a Kassa page shares (payments:
 * docs/api.md#create-a-payment; vault enrollments: docs/api.md#vault-enrollment): returnUrl,
 * language, the merchant's free texts and the per-transaction webhookUrl, in the vocabulary of
 * rows.ts; and the money amount's schema the follow-up tables share. Pure: no I/O.
 */
import { fail, type CompiledField } from '../../ground/field-engine.ts';
import { checkHttpUrl, checkReturnUrl } from '../../lib/urls.ts';
import { checkLanguage, DEFAULT_LANGUAGE } from '../../ground/language.ts';
import { whyRefused } from '../../events/ssrf.ts';
import type { JsonSchema, RequestFieldSpec, RequestRun } from './rows.ts';

export interface CommonFields {
  returnUrl?: string;
  language: string;
  merchantOrderReference?: string;
  description?: string;
  metadata?: string;
  webhookUrl?: string;
}

function returnUrl(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const check = checkReturnUrl(value, run.returnUrlSchemes);
  return check.ok ? value : fail(run, field, 'format', check.message);
}

/** The checks of events/ssrf.ts that need no connection: scheme, and a literal address (the connect-time check covers names). */
function webhookUrl(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const check = checkHttpUrl(value);
  if (!check.ok) return fail(run, field, 'format', check.message);
  const refused = whyRefused(new URL(value), run.webhooks);
  return refused === undefined ? value : fail(run, field, 'format', refused);
}

function language(value: string, field: CompiledField<RequestRun>, run: RequestRun): unknown {
  const check = checkLanguage(value);
  return check.ok ? check.code : fail(run, field, 'enum', check.message);
}

/** A money amount in major units as existing clients send it (docs/api.md#existing-clients): a JSON number or a numeric string, parsed exactly. */
export const amountSchema: JsonSchema = {
  anyOf: [
    { title: 'number', type: 'number', exclusiveMinimum: 0 },
    { title: 'numeric text', type: 'string', pattern: '^\\s*[0-9]+(\\.[0-9]+)?\\s*$' },
  ],
  description: 'Major units, no more decimals than the currency has (`10.50`, `"10.50"`).',
};

export const commonFields = {
  // Every flow that sends the customer to a Kassa page brings them back (docs/api.md#the-service).
  returnUrl: {
    type: 'string',
    format: returnUrl,
    required: (flow) => flow.requiresReturnUrl,
    requiredMessage: 'is required: the customer returns there afterwards',
    schema: { format: 'uri', description: 'An absolute `https:` or `http:` URL, or an app deep link whose scheme the operator allows (`RETURN_URL_SCHEMES`).' },
  },
  language: { type: 'string', format: language, default: DEFAULT_LANGUAGE, schema: { pattern: '^[A-Za-z]{3}$', description: 'ISO 639-2/T code.' } },
  merchantOrderReference: { type: 'string', maxLength: 255 },
  description: { type: 'string', maxLength: 1000 },
  metadata: { type: 'string', maxLength: 4096 },
  webhookUrl: {
    type: 'string',
    format: webhookUrl,
    schema: {
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      description: "Where this transaction's webhook goes instead of the merchant's URL (docs/webhooks.md).",
    },
  },
} satisfies Record<keyof CommonFields, RequestFieldSpec>;

/** The common fields out of a run's values. */
export function commonFieldsOf(values: Record<string, unknown>): CommonFields {
  return {
    returnUrl: values.returnUrl as string | undefined,
    language: values.language as string,
    merchantOrderReference: values.merchantOrderReference as string | undefined,
    description: values.description as string | undefined,
    metadata: values.metadata as string | undefined,
    webhookUrl: values.webhookUrl as string | undefined,
  };
}
