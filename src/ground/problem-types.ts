/**
 * The problem registry: every problem Kassa raises, keyed by a stable code (docs/decisions.md
 * "Problem types"). Code raises a problem by its code (`new Problem('conflict', detail)`,
 * ground/problem.ts), never by its title, and the compiler refuses a code not listed here. The
 * OpenAPI document and its reference page (contract/document.ts), the answers (api/errors.ts)
 * and the problem table of docs/api.md (`npm run problem-table`) are all made from this table;
 * test/unit/problems.test.ts fails when a code is listed that nothing raises.
 */

/** One problem type. */
export interface ProblemType {
  /** The HTTP statuses it is answered with; the first unless the raise names another (Fastify's own 4xx refusals). */
  statuses: readonly number[];
  /** Its `title`, the same for every occurrence (RFC 9457 §3.1.3). */
  title: string;
  /**
   * Its stable name on every Kassa: its `type` is `PUBLIC_URL/docs#problem-<slug>`, the section of
   * the reference page that explains it. `null` for a problem the API never answers.
   */
  slug: string | null;
  /** The members its body carries beyond RFC 9457's own. */
  fields?: readonly string[];
  /** Its `detail` when the raise gives none. */
  detail?: string;
  /** What it means for the merchant's integration and what to do (Markdown); for `slug: null`, for the operator. */
  meaning: string;
}

export const problemTypes = {
  malformedJson: {
    statuses: [400],
    title: 'Malformed JSON',
    slug: 'malformed-json',
    meaning: 'The body is not JSON, not UTF-8, or not one JSON object. Fix the request; sending it again as it is fails again.',
  },
  jsonTooDeep: {
    statuses: [400],
    title: 'JSON nested too deeply',
    slug: 'json-nested-too-deeply',
    meaning: 'Objects and arrays nest more than 32 levels deep. No request of this API needs more than five.',
  },
  malformedRequest: {
    statuses: [400],
    title: 'Malformed request',
    slug: 'malformed-request',
    meaning: 'The request is not valid HTTP, its address does not decode, its body does not match its `Content-Length`, or the body is not a JSON object.',
  },
  badRequest: {
    statuses: [400],
    title: 'Bad request',
    slug: 'bad-request',
    meaning: 'Kassa could not read the request as sent. Check the method, the headers and the body.',
  },
  unsupportedContentType: {
    statuses: [400],
    title: 'Unsupported content type',
    slug: 'unsupported-content-type',
    meaning: 'Send request bodies as JSON with `Content-Type: application/json`.',
  },
  invalidIdempotencyReference: {
    statuses: [400],
    title: 'Invalid Idempotency-Reference',
    slug: 'invalid-idempotency-reference',
    meaning: 'The `Idempotency-Reference` header must be 1 to 255 visible characters, sent once.',
  },
  unauthorized: {
    statuses: [401],
    title: 'Unauthorized',
    slug: 'unauthorized',
    meaning: 'No API key, or one that is not valid (or revoked). Send it as HTTP Basic user name with an empty password. The answer carries `WWW-Authenticate: Basic`.',
  },
  notFound: {
    statuses: [404],
    title: 'Not found',
    slug: 'not-found',
    meaning:
      "No such transaction for this key: unknown, another merchant's, or the other mode's (a test key never sees live transactions). Also the answer for an address that is not a route, and for the test helpers with a live key.",
  },
  requestTimeout: {
    statuses: [408],
    title: 'Request timeout',
    slug: 'request-timeout',
    meaning: 'The whole request did not arrive in time. Send it again.',
  },
  conflict: {
    statuses: [409],
    title: 'Conflict',
    slug: 'conflict',
    meaning:
      'The request is well formed but the transaction is not in a state that allows it now (for the test helper: it is not pending any more; for a capture or reversal: another one is being made, read the payment again after `Retry-After` seconds).',
  },
  requestInProgress: {
    statuses: [409],
    title: 'Request in progress',
    slug: 'request-in-progress',
    meaning: 'A request with the same `Idempotency-Reference` is still being processed. Send it again after `Retry-After` seconds: you get its answer then.',
  },
  bodyTooLarge: {
    statuses: [413],
    title: 'Request body too large',
    slug: 'request-body-too-large',
    meaning: 'Request bodies are at most 64 KiB.',
  },
  addressTooLong: {
    statuses: [414],
    title: 'Address too long',
    slug: 'address-too-long',
    meaning: 'A part of the address is longer than any address of Kassa: the address is wrong.',
  },
  validationFailed: {
    statuses: [422],
    title: 'Validation failed',
    slug: 'validation-failed',
    fields: ['errors'],
    detail: 'The request has invalid fields; see errors.',
    meaning:
      'One or more fields are not valid. `errors` lists every failing field at once: `field` is a JSON pointer into the request body (`/accountInfo/email`), `code` a stable machine code (`required`, `conditional_required`, `type`, `max_length`, `min_length`, `format`, `enum`, `date`, `decimals`, `range`, `not_enabled`, `not_allowed`, `conflict`, and the codes of refunds and wallet tokens), `message` a sentence for people.',
  },
  unprocessable: {
    statuses: [422],
    title: 'Unprocessable request',
    slug: 'unprocessable-request',
    fields: ['errors'],
    meaning: 'The request is valid but cannot be carried out; `detail` says why, `errors` where.',
  },
  idempotencyReferenceReused: {
    statuses: [422],
    title: 'Idempotency-Reference reused',
    slug: 'idempotency-reference-reused',
    meaning: 'This `Idempotency-Reference` was used before with another body (on the same route, for the same merchant and mode). Use a new reference for a new request.',
  },
  refusedByAcquirer: {
    statuses: [422],
    title: 'Refused by the acquirer',
    slug: 'refused-by-the-acquirer',
    meaning:
      'The acquirer refused the capture or reversal; the authorisation is unchanged, still `authorised` (the capture made for it is `failed`). Or it refused to accept or defend the dispute: the dispute is unchanged (`detail` has its words).',
  },
  tooManyRequests: {
    statuses: [429],
    title: 'Too many requests',
    slug: 'too-many-requests',
    meaning: 'The API key is over its rate limit. Wait `Retry-After` seconds; every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
  },
  headersTooLarge: {
    statuses: [431],
    title: 'Request headers too large',
    slug: 'request-headers-too-large',
    meaning: 'The request line and headers must be at most 16 KiB together.',
  },
  internalError: {
    statuses: [500],
    title: 'Internal error',
    slug: 'internal-error',
    meaning:
      'Something went wrong inside Kassa. `detail` carries an error id: quote it to the operator, whose log has the details. Retrying with the same `Idempotency-Reference` is safe.',
  },
  walletMerchantValidationFailed: {
    statuses: [502],
    title: 'Wallet merchant validation failed',
    slug: 'wallet-merchant-validation-failed',
    meaning:
      "The wallet's validation host did not give a merchant session for the hybrid flow. Try again; if it persists the operator's wallet merchant identity needs checking.",
  },
  noAcquirer: {
    statuses: [503],
    title: 'No acquirer configured',
    slug: 'no-acquirer-configured',
    meaning:
      'Live payments need an acquirer connection, and this merchant has none for live mode (`kassa acquirer set`, docs/acquirers.md); test keys use the built-in simulator.',
  },
  noAcquirerAnswer: {
    statuses: [503],
    title: 'No answer from the acquirer',
    slug: 'no-answer-from-the-acquirer',
    meaning:
      'For a dispute accepted or defended: the acquirer did not answer in time and nothing was recorded; send the request again. For a capture or reversal: the acquirer did not answer it in time. Kassa asks it again by itself, with the same key, once its claim on the authorisation has run out (`ACQUIRER_RECOVERY_AFTER`); meanwhile no other capture or reversal of it is made (409). Read the payment later, or send the same request with the same `Idempotency-Reference`: 409 while Kassa is still finishing it, then its outcome.',
  },
  disputesNotConnected: {
    statuses: [503],
    title: 'Disputes not connected',
    slug: 'disputes-not-connected',
    meaning:
      "Kassa cannot ask the dispute's acquirer to accept or defend it: the merchant's connection names no Disputes API (`kassa acquirer set --disputes-endpoint`, docs/disputes.md). Do it at the acquirer; its notification moves the dispute in Kassa.",
  },
  databaseUnavailable: {
    statuses: [503],
    title: 'Database unavailable',
    slug: 'database-unavailable',
    meaning:
      "Kassa's database did not take the request: restarting, unreachable, out of space, or locked for a moment. Nothing is wrong with the request. Send it again after `Retry-After` seconds with the same `Idempotency-Reference`: if it was carried out after all, you get its answer.",
  },
  noDirectoryServer: {
    statuses: [503],
    title: 'No directory server configured',
    slug: 'no-directory-server-configured',
    meaning: 'Live 3-D Secure needs a directory server the operator has not configured.',
  },
  authorisationBeingAnswered: {
    statuses: [503],
    title: 'Authorisation being answered',
    slug: 'authorisation-being-answered',
    meaning:
      'Sent to `PUBLIC_URL/acquirer/adyen/notifications`, an `AUTHORISATION` item for a payment whose authorisation a Kassa request is still waiting for (docs/acquirers.md "Unknown outcomes"); that request records the outcome. Adyen sends the notification again later, which then settles what the request could not.',
  },
  notANotification: {
    statuses: [400],
    title: 'Not a notification',
    slug: 'not-a-notification',
    meaning:
      'Sent to `PUBLIC_URL/acquirer/adyen/notifications`, a body that is not an Adyen notification (`notificationItems`); only the acquirer sends there (docs/acquirers.md).',
  },
  serviceStopping: {
    statuses: [503],
    title: 'Service stopping',
    slug: 'service-stopping',
    meaning: 'This Kassa process is stopping. Send the request again (`Retry-After: 1`); another process answers it.',
  },
  vaultUnavailable: {
    statuses: [503],
    title: 'Vault unavailable',
    slug: 'vault-unavailable',
    meaning: 'The operator has not configured a vault key (`VAULT_KEY`) for this deployment: vault enrollments, vault payments and `storeInVault` are refused.',
  },
  walletNotConfigured: {
    statuses: [503],
    title: 'Wallet not configured',
    slug: 'wallet-not-configured',
    meaning: 'Live wallet payments need wallet keys the operator has not configured.',
  },
  invalidSetting: {
    statuses: [422],
    title: 'Invalid setting',
    slug: null,
    fields: ['field', 'reason'],
    meaning:
      "An operator's change refused, in the admin CLI or the console: `detail` is the CLI's words (`--url must be an https URL`); `field` names the option at fault (the CLI's `--<field>`, the console's form field) and `reason` says why without it, when the refusal is about one option.",
  },
} satisfies Record<string, ProblemType>;

/** The code of a problem type: the key code raises it by. */
export type ProblemCode = keyof typeof problemTypes;

/** The problem types the merchant API answers, in the reference page's order: those with a section there. */
export const answeredProblemTypes = (Object.entries(problemTypes) as [ProblemCode, ProblemType][])
  .filter((entry): entry is [ProblemCode, ProblemType & { slug: string }] => entry[1].slug !== null)
  .map(([code, type]) => ({ code, ...type }));
