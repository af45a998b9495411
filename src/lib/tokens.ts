/**
 * Random identifiers and secrets, all from the CSPRNG (none is derived from a counter or a
 * time), and the tokens the secrets key derives from a random value: a payment's capability
 * tokens and its pages' first form token from its reference, the console's pre-session form token
 * from its cookie.
 */
import { hash, randomBytes } from 'node:crypto';
import type { SecretBox } from './secret-box.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes drawn from a pooled CSPRNG buffer: one system call per 4 KiB instead of one per token. */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;
function randomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** The base62 character of a uniformly random byte; 248 = 4 × 62: discarding larger bytes keeps every character equally likely. */
const base62Char = (byte: number) => (byte < 248 ? ALPHABET[byte % 62] : '');

/** `length` characters of base62; each carries log2(62) ≈ 5.95 bits. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) out += base62Char(randomByte());
  return out;
}

const TIME_PREFIX_LENGTH = 8;
const PAGE_TOKEN_RANDOM_LENGTH = 43;

/**
 * Milliseconds since the epoch in base62, fixed width (8 characters last until the year
 * 8000+): as a prefix it makes identifiers sort by creation time, so a new row's key
 * lands at the right edge of its index instead of on a random page. With random keys a
 * group commit of 50 payments rewrote ~50 scattered pages per index.
 */
function timePrefix(): string {
  let n = Date.now();
  let out = '';
  for (let i = 0; i < TIME_PREFIX_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** Time-ordered, then 16 random characters (≈ 95 bits): unique and not enumerable. */
export const newTransactionReference = () => `tr_${timePrefix()}${randomBase62(16)}`;
export const newMerchantId = () => `mer_${randomBase62(16)}`;
export const newApiKey = (mode: 'test' | 'live') => `${mode}_${randomBase62(40)}`;

const IDENTIFIER = /^[0-9A-Za-z_-]{1,128}$/;
/**
 * Whether `text` has the shape of an identifier Kassa hands out (references, capability tokens,
 * 3-D Secure ids: base62, `_`, the `-` of UUIDs). Anything else names nothing, and is better not
 * sent to the database: PostgreSQL refuses text with a NUL in it.
 */
export const identifierShaped = (text: string) => IDENTIFIER.test(text);

/** One-shot hashing (no Hash object): the cheapest form for a string hashed once. */
export const sha256Hex = (text: string) => hash('sha256', text);
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** A merchant's webhook signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks asks for 24 to 64). */
export const newWebhookSecret = () => WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
/** A `vaultAccessToken`: 43 random base62 characters (≈ 256 bits); only its SHA-256 is kept by the vault. */
export const newVaultAccessToken = () => `vat_${randomBase62(43)}`;
export const newVaultCardId = () => `vc_${timePrefix()}${randomBase62(16)}`;

/**
 * A payment's capability token (the last part of payUrl, cancelUrl, cardDataUrl): its
 * reference's time prefix, then 43 base62 characters (≈ 256 bits) the secrets key derives
 * from the reference. Only its hash is stored (`pageTokenHash`), and every read rebuilds
 * the same addresses from the reference; without the key a copy of the database gives
 * neither the token nor a way to it (docs/decisions.md "Capability tokens at rest").
 */
export function pageTokenOf(secrets: SecretBox, reference: string): string {
  // The reference is `tr_` + its time prefix + random characters (newTransactionReference).
  const timePrefixOfReference = reference.slice(3, 3 + TIME_PREFIX_LENGTH);
  return timePrefixOfReference + derivedBase62(secrets, `page-token\u0000${reference}`, PAGE_TOKEN_RANDOM_LENGTH);
}

/**
 * The token of the console's forms shown before a session exists (sign-in, set password): 43
 * base62 characters the secrets key derives from the random value of the pre-session cookie. A
 * cookie and a token match only when Kassa issued them together, so a cookie someone else set
 * comes with no token that passes (docs/console.md "Signing in and sessions").
 */
export const formTokenOf = (secrets: SecretBox, preSession: string) => derivedBase62(secrets, `form-token\u0000${preSession}`, 43);

/**
 * The form token of a payment's pages until its page row keeps one: 32 base62 characters (as the
 * random token an older payment's row keeps) the secrets key derives from its reference, so a page
 * GET shows it without writing, and the first form post checks it and keeps it (docs/pages.md "Security").
 */
export const pageFormTokenOf = (secrets: SecretBox, reference: string) => derivedBase62(secrets, `page-form-token\u0000${reference}`, 32);

/** `length` base62 characters of the HMACs of `input` and a block number, as many blocks as it takes. */
function derivedBase62(secrets: SecretBox, input: string, length: number): string {
  let derived = '';
  for (let block = 0; derived.length < length; block++) {
    for (const byte of secrets.mac(`${input}\u0000${block}`)) derived += base62Char(byte);
  }
  return derived.slice(0, length);
}

/**
 * What the database keeps of a page token, its look-up key: the token's time prefix (the
 * creation time, no secret) keeps new keys at the right edge of their index, as for the
 * references; the SHA-256 after it gives nothing back.
 */
export const pageTokenHash = (token: string) => token.slice(0, TIME_PREFIX_LENGTH) + sha256Hex(token);
