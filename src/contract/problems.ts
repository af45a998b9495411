/**
 * The problem types the merchant API answers (RFC 9457; docs/decisions.md#errors): one section each in
 * the API reference, at `PUBLIC_URL/docs#problem-<slug>`, which is also the problem's `type`
 * (ground/problem.ts; the slug is its title's); every title a
 * `Problem` is built with has an entry here (checked by test/unit/contract.test.ts).
 */
export interface ProblemType {
  title: string;
  statuses: readonly number[];
  /** What it means for the merchant's integration and what to do (Markdown). */
  meaning: string;
}

export const problemTypes: readonly ProblemType[] = [
  {
    title: 'Malformed JSON',
    statuses: [400],
    meaning: 'The body is not JSON, not UTF-8, or not one JSON object. Fix the request; sending it again as it is fails again.',
  },
  { title: 'JSON nested too deeply', statuses: [400], meaning: 'Objects and arrays nest more than 32 levels deep. No request of this API needs more than five.' },
  {
    title: 'Malformed request',
    statuses: [400],
    meaning: 'The request is not valid HTTP, its address does not decode, its body does not match its `Content-Length`, or the body is not a JSON object.',
  },
  { title: 'Bad request', statuses: [400], meaning: 'Kassa could not read the request as sent. Check the method, the headers and the body.' },
  { title: 'Unsupported content type', statuses: [400], meaning: 'Send request bodies as JSON with `Content-Type: application/json`.' },
  { title: 'Invalid Idempotency-Reference', statuses: [400], meaning: 'The `Idempotency-Reference` header must be 1 to 255 visible characters, sent once.' },
  {
    title: 'Unauthorized',
    statuses: [401],
    meaning: 'No API key, or one that is not valid (or revoked). Send it as HTTP Basic user name with an empty password. The answer carries `WWW-Authenticate: Basic`.',
  },
  {
    title: 'Not found',
    statuses: [404],
    meaning:
      "No such transaction for this key: unknown, another merchant's, or the other mode's (a test key never sees live transactions). Also the answer for an address that is not a route, and for the test helpers with a live key.",
  },
  { title: 'Request timeout', statuses: [408], meaning: 'The whole request did not arrive in time. Send it again.' },
  {
    title: 'Conflict',
    statuses: [409],
    meaning:
      'The request is well formed but the transaction is not in a state that allows it now (for the test helper: it is not pending any more; for a capture or reversal: another one is being made, read the payment again after `Retry-After` seconds).',
  },
  {
    title: 'Request in progress',
    statuses: [409],
    meaning: 'A request with the same `Idempotency-Reference` is still being processed. Send it again after `Retry-After` seconds: you get its answer then.',
  },
  { title: 'Request body too large', statuses: [413], meaning: 'Request bodies are at most 64 KiB.' },
  { title: 'Address too long', statuses: [414], meaning: 'A part of the address is longer than any address of Kassa: the address is wrong.' },
  {
    title: 'Validation failed',
    statuses: [422],
    meaning:
      'One or more fields are not valid. `errors` lists every failing field at once: `field` is a JSON pointer into the request body (`/accountInfo/email`), `code` a stable machine code (`required`, `conditional_required`, `type`, `max_length`, `min_length`, `format`, `enum`, `date`, `decimals`, `range`, `not_enabled`, `not_allowed`, `conflict`, and the codes of refunds and wallet tokens), `message` a sentence for people.',
  },
  { title: 'Unprocessable request', statuses: [422], meaning: 'The request is valid but cannot be carried out; `detail` says why, `errors` where.' },
  {
    title: 'Idempotency-Reference reused',
    statuses: [422],
    meaning: 'This `Idempotency-Reference` was used before with another body (on the same route, for the same merchant and mode). Use a new reference for a new request.',
  },
  {
    title: 'Refused by the acquirer',
    statuses: [422],
    meaning:
      'The acquirer refused the capture or reversal; the authorisation is unchanged, still `authorised` (the capture made for it is `failed`). Or it refused to accept or defend the dispute: the dispute is unchanged (`detail` has its words).',
  },
  {
    title: 'Too many requests',
    statuses: [429],
    meaning: 'The API key is over its rate limit. Wait `Retry-After` seconds; every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
  },
  { title: 'Request headers too large', statuses: [431], meaning: 'The request line and headers must be at most 16 KiB together.' },
  {
    title: 'Internal error',
    statuses: [500],
    meaning:
      'Something went wrong inside Kassa. `detail` carries an error id: quote it to the operator, whose log has the details. Retrying with the same `Idempotency-Reference` is safe.',
  },
  {
    title: 'Wallet merchant validation failed',
    statuses: [502],
    meaning:
      "The wallet's validation host did not give a merchant session for the hybrid flow. Try again; if it persists the operator's wallet merchant identity needs checking.",
  },
  {
    title: 'No acquirer configured',
    statuses: [503],
    meaning:
      'Live payments need an acquirer connection, and this merchant has none for live mode (`kassa acquirer set`, docs/acquirers.md); test keys use the built-in simulator.',
  },
  {
    title: 'No answer from the acquirer',
    statuses: [503],
    meaning:
      'For a dispute accepted or defended: the acquirer did not answer in time and nothing was recorded; send the request again. For a capture or reversal: the acquirer did not answer it in time. Kassa asks it again by itself, with the same key, once its claim on the authorisation has run out (`ACQUIRER_RECOVERY_AFTER`); meanwhile no other capture or reversal of it is made (409). Read the payment later, or send the same request with the same `Idempotency-Reference`: 409 while Kassa is still finishing it, then its outcome.',
  },
  {
    title: 'Disputes not connected',
    statuses: [503],
    meaning:
      "Kassa cannot ask the dispute's acquirer to accept or defend it: the merchant's connection names no Disputes API (`kassa acquirer set --disputes-endpoint`, docs/disputes.md). Do it at the acquirer; its notification moves the dispute in Kassa.",
  },
  {
    title: 'Database unavailable',
    statuses: [503],
    meaning:
      "Kassa's database did not take the request: restarting, unreachable, out of space, or locked for a moment. Nothing is wrong with the request. Send it again after `Retry-After` seconds with the same `Idempotency-Reference`: if it was carried out after all, you get its answer.",
  },
  { title: 'No directory server configured', statuses: [503], meaning: 'Live 3-D Secure needs a directory server the operator has not configured.' },
  {
    title: 'Authorisation being answered',
    statuses: [503],
    meaning:
      'Sent to `PUBLIC_URL/acquirer/adyen/notifications`, an `AUTHORISATION` item for a payment whose authorisation a Kassa request is still waiting for (docs/acquirers.md "Unknown outcomes"); that request records the outcome. Adyen sends the notification again later, which then settles what the request could not.',
  },
  {
    title: 'Not a notification',
    statuses: [400],
    meaning:
      'Sent to `PUBLIC_URL/acquirer/adyen/notifications`, a body that is not an Adyen notification (`notificationItems`); only the acquirer sends there (docs/acquirers.md).',
  },
  { title: 'Service stopping', statuses: [503], meaning: 'This Kassa process is stopping. Send the request again (`Retry-After: 1`); another process answers it.' },
  {
    title: 'Vault unavailable',
    statuses: [503],
    meaning: 'The operator has not configured a vault key (`VAULT_KEY`) for this deployment: vault enrollments, vault payments and `storeInVault` are refused.',
  },
  { title: 'Wallet not configured', statuses: [503], meaning: 'Live wallet payments need wallet keys the operator has not configured.' },
];
