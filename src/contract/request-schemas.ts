/**
 * The request bodies of the merchant API as JSON Schema (2020-12, as OpenAPI 3.1 takes it),
 * derived from the tables that validate them: the field tables of payments/requests/ (rows.ts)
 * (payment, enrollment, refund, capture, reversal, test completion), the flows table
 * (payments/flows.ts: what each flow requires, allows and forbids, said with if/then), and the
 * 3-D Secure 2 tables of threeds/fields.ts (docs/api.md#3-d-secure-2-data: sizes, formats, enums and the "S" fields
 * with `scaReady: yes`, each field's JSON type and hard limit without it, the conditions of docs/api.md#sequence-information,
 * browserInfo's all or nothing). What JSON Schema cannot say (a real calendar date, a subdivision
 * of the given country, a webhook address's reach) stays in the field's description and in
 * Kassa's 422.
 */
import type { CompiledRequestTable, RequestField } from '../payments/requests/rows.ts';
import { flows, type Flow, type PaymentFlow } from '../payments/flows.ts';
import { methodTable, paymentTable } from '../payments/requests/payment-request.ts';
import { flowsByMethod, type MethodFlows } from '../payments/requests/flow-of-request.ts';
import { enrollmentTable } from '../payments/enrollment.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { leftOutCodes } from '../threeds/validate.ts';
import { LEFT_OUT_FIELD } from '../threeds/echo.ts';
import { hardLimitOf, objectSpecs, scaReadyAliases, topLevelSpec, type Format, type ThreeDSFieldSpec, type ThreeDSObjectSpec } from '../threeds/fields.ts';

type Schema = Record<string, unknown>;

/** Every request may carry fields it does not know: existing clients send them, and they are ignored (docs/api.md#existing-clients). */
const OPEN = true;

// ── The field tables of payments/ ────────────────────────────────────────────────────────

function fieldSchema(field: RequestField): Schema {
  const schema: Schema = {};
  const notes: string[] = [];
  switch (field.type) {
    case 'string':
      schema.type = 'string';
      if (field.maxSize !== undefined && !field.cutToMax) schema.maxLength = field.maxSize;
      if (field.cutToMax) notes.push(`A longer value is cut to ${field.maxSize} characters and kept.`);
      break;
    case 'array of objects':
      Object.assign(schema, { type: 'array', items: { type: 'object' }, maxItems: field.maxSize });
      break;
    case 'object':
      Object.assign(schema, tableSchema(field.table!));
      break;
    case undefined:
      break;
  }
  if (field.enumValues !== undefined) {
    const values = [...field.enumValues];
    schema.enum = values;
    if (schema.type === undefined && values.every((value) => typeof value === 'string')) schema.type = 'string';
  }
  if (typeof field.defaultValue === 'string') schema.default = field.defaultValue;
  if (field.enabledIn === 'methods') notes.push('Must be enabled for the merchant (`GET /method`).');
  if (field.enabledIn === 'cardBrands') notes.push("Must be one of the merchant's card brands (`GET /method`).");
  if (field.agreesWith !== undefined) notes.push(`Must agree with \`${field.agreesWith}\` when both are given.`);
  const { description, ...shape } = (field.schema ?? {}) as Schema;
  Object.assign(schema, shape);
  if (description !== undefined) notes.unshift(String(description));
  if (notes.length > 0) schema.description = notes.join(' ');
  return schema;
}

/** A table's body; with `flow`, as a request of that one flow is checked (a vault enrollment's). */
export function tableSchema(table: CompiledRequestTable, flow?: Flow): Schema {
  const required = table.fields.filter((field) => (flow === undefined ? field.requiredWithoutFlow : field.requiredIn.has(flow))).map((field) => field.name);
  return {
    type: 'object',
    properties: Object.fromEntries(table.fields.map((field) => [field.name, fieldSchema(field)])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: OPEN,
  };
}

// ── The flows of a create-payment request ────────────────────────────────────────────────

/** Any one of `names` required: a single name is required directly (an `anyOf` of one schema says the same, less plainly). */
const anyRequired = (names: readonly string[]): Schema =>
  names.length === 1 ? { required: [names[0]] } : { anyOf: names.map((name) => ({ title: `with ${name}`, required: [name] })) };
const detailsWith = (names: readonly string[]): Schema => ({ required: ['details'], properties: { details: anyRequired(names) } });

/** A request with sequenceInfo.source `source` (docs/api.md#sequence-information). */
const sequenceSourceIs = (source: string): Schema => ({
  required: ['sequenceInfo'],
  properties: { sequenceInfo: { required: ['source'], properties: { source: { const: source } } } },
});

/** What marks one flow of a method: one of its details fields, and where it says so the sequence source. */
function markedBy(entry: MethodFlows['marked'][number]): Schema {
  const details = detailsWith(entry.marks.map((mark) => mark.name));
  return entry.sequenceSource === undefined ? details : { allOf: [details, sequenceSourceIs(entry.sequenceSource)] };
}

/** When a request is of `flow`: its method, and what marks it and not a flow before it (payments/requests/flow-of-request.ts recogniseFlow). */
function flowCondition(flow: PaymentFlow): Schema {
  const { marked, plain } = flowsByMethod[flows[flow].method as (typeof paymentMethods)[number]];
  const method = { required: ['method'], properties: { method: { const: flows[flow].method } } };
  const notEarlier = (until: number): Schema[] => marked.slice(0, until).map((entry) => ({ not: markedBy(entry) }));
  if (flow === plain) {
    const none = notEarlier(marked.length);
    return none.length === 0 ? method : { allOf: [method, ...none] };
  }
  const index = marked.findIndex((entry) => entry.flow === flow);
  return { allOf: [method, markedBy(marked[index]!), ...notEarlier(index)] };
}

/** What `flow` adds to the table's rules: fields it requires, values it allows, details it requires and forbids, browserInfo where the merchant captures card data. */
function flowRules(flow: PaymentFlow, table: CompiledRequestTable): Schema {
  const spec = flows[flow];
  const required = table.fields.filter((field) => !field.requiredWithoutFlow && field.requiredIn.has(flow)).map((field) => field.name);
  const properties: Schema = {};
  for (const field of table.fields) {
    const allowed = field.allowedIn?.get(flow);
    if (allowed === undefined || allowed.size === field.enumValues?.size) continue;
    properties[field.name] = allowed.size === 0 ? { description: `Not accepted in the ${spec.title} flow.`, not: {} } : { enum: [...allowed] };
  }
  const details: Schema = {};
  if (spec.requires.length > 0) details.required = [...spec.requires];
  const forbidden = spec.forbids.flatMap((rule) => rule.fields);
  if (forbidden.length > 0) details.not = anyRequired(forbidden);
  if (Object.keys(details).length > 0) properties.details = details;
  const rules: Schema = {};
  const allRequired = spec.requires.length > 0 ? [...required, 'details'] : required;
  if (spec.threeDS.merchantCapturesCardData)
    rules.anyOf = [
      { title: 'with browserInfo', required: ['browserInfo'] },
      { title: 'with browser (older clients)', required: ['browser'] },
    ];
  if (allRequired.length > 0) rules.required = allRequired;
  if (Object.keys(properties).length > 0) rules.properties = properties;
  return rules;
}

const paymentFlows = (Object.keys(flows) as (keyof typeof flows)[]).filter((flow): flow is PaymentFlow => flow !== 'enrollment');

// ── The 3-D Secure 2 tables of threeds/ ──────────────────────────────────────────────────

/** What JSON Schema can say of each format of threeds/formats.ts; the rest is in the description. */
const formatSchemas: Readonly<Record<Format, Schema>> = {
  digits: { pattern: '^[0-9]+$' },
  date: { description: 'A real calendar date, YYYYMMDD (a PHP date such as 2024-01-31 is read too).' },
  timestamp: { pattern: '^[0-9]{12}$', description: 'UTC date and time, YYYYMMDDHHMM.' },
  country: { pattern: '^[A-Za-z]{2,3}$', description: 'ISO 3166-1 alpha-2 or alpha-3 (answered as alpha-2).' },
  subdivision: { description: 'ISO 3166-2 subdivision part (`NH` for NL-NH); another region code is kept for the merchant but not sent to the issuer.' },
  callingCode: { pattern: '^[0-9]+$', description: 'ITU-T E.164 country calling code, digits only (`31`).' },
  email: { format: 'email' },
  languageTag: { description: 'BCP 47 language tag (`nl-NL`).' },
  ipAddress: {
    anyOf: [
      { title: 'IPv4 address', format: 'ipv4' },
      { title: 'IPv6 address', format: 'ipv6' },
    ],
  },
  currencyNumeric: { pattern: '^[0-9]{3}$', description: 'ISO 4217 numeric code.' },
  minutesOffset: { pattern: '^[+-]?[0-9]+$', description: 'Minutes from UTC (`-120`).' },
};

function threeDSFieldSchema(spec: ThreeDSFieldSpec): Schema {
  const notes: string[] = [];
  let schema: Schema;
  switch (spec.type) {
    case 'boolean':
      schema = { type: 'boolean' };
      break;
    case 'integer': {
      const maximum = spec.max === undefined ? undefined : 10 ** spec.max - 1;
      schema = {
        anyOf: [
          { title: 'number', type: 'integer', ...(spec.minValue !== undefined ? { minimum: spec.minValue } : {}), ...(maximum !== undefined ? { maximum } : {}) },
          { title: 'digits as text', type: 'string', pattern: spec.max === undefined ? '^[0-9]+$' : `^[0-9]{1,${spec.max}}$` },
        ],
      };
      break;
    }
    case 'string': {
      schema = { type: 'string' };
      if (spec.min !== undefined) schema.minLength = spec.min;
      if (spec.max !== undefined && !spec.cutToMax && spec.fromHeader === undefined) schema.maxLength = spec.max;
      if (spec.enum !== undefined) schema.enum = [...spec.enum];
      if (spec.format !== undefined && spec.fromHeader === undefined) {
        const { description, ...shape } = formatSchemas[spec.format];
        Object.assign(schema, shape);
        if (description !== undefined) notes.push(String(description));
      }
      if (spec.cutToMax) notes.push(`A longer value is cut to ${spec.max} characters.`);
      if (spec.fromHeader === 'acceptLanguage') notes.push('The raw Accept-Language header is read too: its first language tag is taken.');
      if (spec.fromHeader === 'forwardedFor') notes.push('A proxy list (X-Forwarded-For) is read too: its first address is taken.');
      break;
    }
  }
  // The official PHP client sends its account dates as PHP DateTime objects (threeds/formats.ts phpDateAsYmd).
  if (spec.format === 'date') schema = { anyOf: [{ title: 'date as text', ...schema }, phpDate] };
  if (spec.aliases !== undefined) {
    schema = {
      anyOf: [
        { title: 'value', ...schema },
        { title: 'older spelling', enum: [...spec.aliases.keys()] },
      ],
    };
    notes.push(`Also ${[...spec.aliases].map(([alias, value]) => `${JSON.stringify(alias)} for ${value}`).join(', ')}.`);
  }
  if (spec.required === 'sca') notes.push('Required when `scaReady` is yes.');
  if (notes.length > 0) schema.description = notes.join(' ');
  return schema;
}

const phpDate: Schema = {
  title: 'PHP DateTime object',
  type: 'object',
  description: 'A PHP DateTime as json_encode writes it: its calendar date is taken.',
  required: ['date', 'timezone'],
  properties: { date: { type: 'string' }, timezone: { type: 'string' } },
};

/** The phone adaptation of docs/api.md#billing-and-shipping-fields (threeds/phone.ts): a `…PhoneNumber` sent as a whole international number, without its `…PhoneCountry`, is split into both. */
const internationalNumber: Schema = {
  title: 'whole international number',
  type: 'string',
  pattern: '^\\s*(\\+|00)',
  description: 'A whole international number (`+31 20 123 4567`, `0031…`) without its …PhoneCountry is split into both.',
};

const scaReadyYes = {
  required: ['scaReady'],
  properties: { scaReady: { enum: ['yes', ...[...scaReadyAliases].filter(([, value]) => value === 'yes').map(([alias]) => alias)] } },
};

/** No control characters but tab, line feed and carriage return (threeds/validate.ts hardRefusal). */
const withoutControlCharacters = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$';

/**
 * What a field takes without `scaReady: yes` (docs/threeds.md): its JSON type, no control
 * characters and its hard limit; a value that breaks the format is left out of the 3-D Secure
 * data and named in the payment's `threeDSFieldsLeftOut`, not refused.
 */
function lenientFieldSchema(spec: ThreeDSFieldSpec): Schema {
  const strict = threeDSFieldSchema(spec);
  if (spec.alwaysStrict) return strict;
  const text: Schema = { type: 'string', maxLength: hardLimitOf(spec), pattern: withoutControlCharacters };
  const shape: Schema =
    spec.type === 'boolean'
      ? { type: 'boolean' }
      : spec.type === 'integer'
        ? {
            anyOf: [
              { title: 'number', type: 'number' },
              { title: 'text', ...text },
            ],
          }
        : text;
  const schema = spec.format === 'date' ? { anyOf: [{ title: 'date as text', ...shape }, phpDate] } : shape;
  // The values stay in the document: a client generated from it, or a reader, still learns them.
  const values = spec.enum === undefined ? [] : [`One of ${spec.enum.join(', ')} (checked with \`scaReady: yes\`, else another value is left out).`];
  const description = [...values, ...(strict.description === undefined ? [] : [String(strict.description)])].join(' ');
  return description === '' ? schema : { ...schema, description };
}

const givenFields = (spec: ThreeDSObjectSpec, operation: 'payment' | 'enrollment') =>
  Object.entries(spec.fields).filter(([, field]) => field.onlyFor === undefined || field.onlyFor === operation);

/** The formats an object's fields are checked against when `scaReady` is yes. */
function strictProperties(spec: ThreeDSObjectSpec, operation: 'payment' | 'enrollment'): Schema {
  const phoneNumbers = new Set((spec.phonePairs ?? []).map((pair) => pair.number));
  const propertySchema = (name: string, field: ThreeDSFieldSpec) =>
    phoneNumbers.has(name) ? { anyOf: [{ title: 'national number', ...threeDSFieldSchema(field) }, internationalNumber] } : threeDSFieldSchema(field);
  return Object.fromEntries(givenFields(spec, operation).map(([name, field]) => [name, propertySchema(name, field)]));
}

/** An object whose fields `when` names hold one of the values listed for each. */
const siblingsAre = (when: Readonly<Record<string, readonly string[]>>): Schema => {
  const entries = Object.entries(when);
  return { required: entries.map(([sibling]) => sibling), properties: Object.fromEntries(entries.map(([sibling, values]) => [sibling, { enum: [...values] }])) };
};

/**
 * The conditions of docs/api.md#sequence-information that a vault token relaxes (a stored card's
 * payment needs no `initialTransactionId`): at the top of the body, where the token is seen.
 */
function vaultTokenRules(operation: 'payment' | 'enrollment'): Schema[] {
  const withToken = { required: ['details'], properties: { details: { required: ['vaultAccessToken'] } } };
  return Object.entries(objectSpecs).flatMap(([object, spec]) =>
    givenFields(spec, operation).flatMap(([name, field]) =>
      typeof field.required === 'object' && field.required.unlessVaultToken
        ? [
            {
              description: `${object}.${name} is not required on a vault payment (details.vaultAccessToken).`,
              if: { required: [object], properties: { [object]: siblingsAre(field.required.when) }, not: withToken },
              then: { properties: { [object]: { required: [name] } } },
            },
          ]
        : [],
    ),
  );
}

/** An object's fields as taken without `scaReady: yes`, and the rules that hold either way: required fields, the conditions of docs/api.md#sequence-information, all or nothing. */
function threeDSObjectSchema(spec: ThreeDSObjectSpec, operation: 'payment' | 'enrollment'): Schema {
  const fields = givenFields(spec, operation);
  const conditional: Schema[] = [];
  for (const [name, field] of fields) {
    // Said at the top of the body, where details.vaultAccessToken is seen (vaultTokenRules).
    if (typeof field.required !== 'object' || field.required.unlessVaultToken) continue;
    conditional.push({ if: siblingsAre(field.required.when), then: { required: [name] } });
  }
  const always = fields.filter(([, field]) => field.required === 'always').map(([name]) => name);
  const names = fields.map(([name]) => name);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map(([name, field]) => [name, lenientFieldSchema(field)])),
    ...(always.length > 0 ? { required: always } : {}),
    // docs/api.md#browser-data: one field given makes every field required.
    ...(spec.allOrNothing ? { dependentRequired: Object.fromEntries(names.map((name) => [name, names.filter((other) => other !== name)])) } : {}),
    ...(conditional.length > 0 ? { allOf: conditional } : {}),
    additionalProperties: OPEN,
  };
}

/**
 * The 3-D Secure 2 part of a request body: the top-level fields of docs/api.md#billing-and-shipping-fields and the objects of
 * docs/api.md#3-d-secure-2-data, and with `scaReady: yes` (docs/api.md#billing-and-shipping-fields) the "S" fields required and every field's format.
 */
function threeDSSchema(operation: 'payment' | 'enrollment'): { properties: Schema; allOf: Schema[] } {
  const top = threeDSObjectSchema(topLevelSpec, operation) as { properties: Schema; allOf?: Schema[] };
  const objects = Object.fromEntries(Object.entries(objectSpecs).map(([name, spec]) => [name, threeDSObjectSchema(spec, operation)]));
  const sca = givenFields(topLevelSpec, operation)
    .filter(([, field]) => field.required === 'sca')
    .map(([name]) => name);
  const strict = {
    ...strictProperties(topLevelSpec, operation),
    ...Object.fromEntries(Object.entries(objectSpecs).map(([name, spec]) => [name, { properties: strictProperties(spec, operation) }])),
  };
  const whenScaReady = { if: scaReadyYes, then: { required: sca, properties: strict } };
  return { properties: { ...top.properties, ...objects }, allOf: [whenScaReady, ...(top.allOf ?? []), ...vaultTokenRules(operation)] };
}

/** The fields left out of the 3-D Secure data for their format (threeds/validate.ts), as the payment object names them. */
const leftOutSchema: Schema = {
  type: 'array',
  description:
    'The 3-D Secure 2 fields of the request that did not fit their format and were left out of the data sent to the issuer rather than refused, because `scaReady` was not yes (a region code that is no ISO 3166-2 subdivision also with yes). Each as the 422 would have named it with `scaReady: yes`, with the value as sent; a billing or shipping field is also echoed as sent. Absent when none was left out.',
  items: {
    type: 'object',
    required: ['field', 'code', 'message', 'value'],
    properties: {
      field: { type: 'string', description: 'JSON pointer of the field in the request (`/accountInfo/email`).', examples: ['/billingPhoneNumber'] },
      code: { type: 'string', enum: [...leftOutCodes] },
      message: { type: 'string', examples: ['must be at most 15 characters'] },
      value: { description: 'The value as sent.' },
    },
    additionalProperties: false,
  },
};

/** The payment object's copy of the billing and shipping fields (docs/api.md#the-payment-object): the top-level 3-D Secure 2 fields but scaReady, as strings, and the fields left out. */
export const echoedFieldSchemas: Readonly<Schema> = {
  ...Object.fromEntries(
    Object.entries(topLevelSpec.fields)
      .filter(([name]) => name !== 'scaReady')
      .map(([name]) => [name, { type: 'string' }]),
  ),
  [LEFT_OUT_FIELD]: leftOutSchema,
};

// ── The bodies ───────────────────────────────────────────────────────────────────────────

function withThreeDS(table: Schema, operation: 'payment' | 'enrollment', rules: Schema[]): Schema {
  const threeDS = threeDSSchema(operation);
  const allOf = [...threeDS.allOf, ...rules];
  return { ...table, properties: { ...(table.properties as Schema), ...threeDS.properties }, ...(allOf.length > 0 ? { allOf } : {}) };
}

/** `POST /payment` (docs/api.md#create-a-payment): method, the payment table, every flow's rules, and the 3-D Secure 2 fields. */
export function paymentRequestSchema(): Schema {
  const method = tableSchema(methodTable);
  const payment = tableSchema(paymentTable);
  const table = {
    ...payment,
    properties: { ...(method.properties as Schema), ...(payment.properties as Schema) },
    required: [...(method.required as string[]), ...((payment.required as string[] | undefined) ?? [])],
  };
  const rules = paymentFlows.map((flow) => ({ if: flowCondition(flow), then: flowRules(flow, paymentTable) }));
  return withThreeDS(table, 'payment', rules);
}

/** `POST /token` (docs/api.md#vault-enrollment): a vault enrollment. */
export function enrollmentRequestSchema(): Schema {
  return withThreeDS(tableSchema(enrollmentTable, 'enrollment'), 'enrollment', []);
}
