/** Random identifiers and secrets. All come from the CSPRNG; none is derived from a counter or a time. */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of base62; each carries log2(62) ≈ 5.95 bits. */
export function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length; i++) {
    if (i >= bytes.length) return out + randomBase62(length - out.length);
    // 248 = 4 × 62: discarding larger bytes keeps every character equally likely.
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return out;
}

export const newTransactionReference = () => `tr_${randomBase62(22)}`;
export const newMerchantId = () => `mer_${randomBase62(16)}`;
/** 43 base62 characters ≈ 256 bits: a customer-facing capability, never guessable. */
export const newPageToken = () => randomBase62(43);
export const newApiKey = (mode: 'test' | 'live') => `${mode}_${randomBase62(40)}`;

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
