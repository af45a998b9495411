/**
 * Encryption of vault card numbers: AES-256-GCM with a random 96-bit IV per card, the
 * key named by its id so that cards sealed before a key rotation still open. The
 * associated data binds a ciphertext to its vault row (id, merchant, mode): copied into
 * another row it fails authentication instead of paying with someone else's card. Pure.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { VaultKey } from '../config.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class VaultKeyring {
  private readonly byId: Map<string, Buffer>;

  /** `current` encrypts; it and every key of `older` decrypt. */
  constructor(readonly current: VaultKey, older: readonly VaultKey[] = []) {
    this.byId = new Map([...older, current].map(({ id, key }) => [id, key]));
    for (const key of this.byId.values()) if (key.length !== 32) throw new Error('a vault key must be 32 bytes');
  }

  encrypt(plain: string, binding: string): { keyId: string; ciphertext: string } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(binding));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { keyId: this.current.id, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url') };
  }

  /** Throws when the key id is unknown or the ciphertext, tag or binding was changed. */
  decrypt(keyId: string, ciphertext: string, binding: string): string {
    const key = this.byId.get(keyId);
    if (!key) throw new Error(`vault key ${keyId} is not configured (list it in VAULT_OLD_KEYS)`);
    const bytes = Buffer.from(ciphertext, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) throw new Error('vault ciphertext too short');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
