/** Random identifiers and secrets. All come from the CSPRNG; none is derived from a counter or a time. */
import { hash, randomBytes } from 'node:crypto';

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

/** `length` characters of base62; each carries log2(62) ≈ 5.95 bits. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 4 × 62: discarding larger bytes keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/**
 * Milliseconds since the epoch in base62, fixed width (8 characters last until the year
 * 8000+): as a prefix it makes identifiers sort by creation time, so a new row's key
 * lands at the right edge of its index instead of on a random page. With random keys a
 * group commit of 50 payments rewrote ~50 scattered pages per index.
 */
function timePrefix(): string {
  let n = Date.now();
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** Time-ordered, then 16 random characters (≈ 95 bits): unique and not enumerable. */
export const newTransactionReference = () => `tr_${timePrefix()}${randomBase62(16)}`;
export const newMerchantId = () => `mer_${randomBase62(16)}`;
/** A customer-facing capability: 43 random base62 characters (≈ 256 bits, never guessable) after the time prefix. */
export const newPageToken = () => `${timePrefix()}${randomBase62(43)}`;
export const newApiKey = (mode: 'test' | 'live') => `${mode}_${randomBase62(40)}`;

/** One-shot hashing (no Hash object): the cheapest form for a string hashed once. */
export const sha256Hex = (text: string) => hash('sha256', text);
/** A `vaultAccessToken`: 43 random base62 characters (≈ 256 bits); only its SHA-256 is kept by the vault. */
export const newVaultAccessToken = () => `vat_${randomBase62(43)}`;
export const newVaultCardId = () => `vc_${timePrefix()}${randomBase62(16)}`;
