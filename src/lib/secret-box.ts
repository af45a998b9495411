/**
 * The secrets key at work: what Kassa must keep but must not hold readable in its database
 * (docs/operations.md "Secrets at rest") is sealed with it (AES-256-GCM, lib/aead.ts, bound
 * to the row it belongs to), and capability tokens are derived with it (HMAC), so a copy of
 * the database alone opens nothing. One 32-byte key, from which a subkey per use is derived
 * (HKDF-SHA256, RFC 5869): no key serves two algorithms. Pure.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { decryptBound, encryptBound } from './aead.ts';

const subkey = (key: Buffer, use: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `kassa ${use}`, 32));

export class SecretBox {
  private readonly sealing: Buffer;
  private readonly deriving: Buffer;
  /** Names the key without revealing it: stored in the database, compared at start, so a database never meets a second key. */
  readonly checkValue: string;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
    this.sealing = subkey(key, 'sealing');
    this.deriving = subkey(key, 'deriving');
    this.checkValue = createHmac('sha256', subkey(key, 'check')).update('kassa secrets key').digest('hex');
  }

  seal(plain: string, binding: string): string {
    return encryptBound(this.sealing, plain, binding);
  }

  /** Throws when the text was sealed with another key, for another binding, or changed. */
  open(sealed: string, binding: string): string {
    return decryptBound(this.sealing, sealed, binding);
  }

  /** HMAC-SHA512 of `input` under the key's deriving subkey: what capability tokens are made of (tokens.ts). */
  mac(input: string): Buffer {
    return createHmac('sha512', this.deriving).update(input).digest();
  }
}
