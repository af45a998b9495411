/** Random identifiers and secrets. All come from the CSPRNG; none is derived from a counter or a time. */
import { createHash, randomBytes } from 'node:crypto';

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

export const newTransactionReference = () => `tr_${randomBase62(22)}`;
export const newMerchantId = () => `mer_${randomBase62(16)}`;
/** 43 base62 characters ≈ 256 bits: a customer-facing capability, never guessable. */
export const newPageToken = () => randomBase62(43);
export const newApiKey = (mode: 'test' | 'live') => `${mode}_${randomBase62(40)}`;

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
