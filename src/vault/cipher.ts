/**
 * Encryption of vault card numbers: AES-256-GCM with a random 96-bit IV per card, the
 * key named by its id so that cards sealed before a key rotation still open. The
 * associated data binds a ciphertext to its vault row (id, merchant, mode): copied into
 * another row it fails authentication instead of paying with someone else's card. Pure.
 */
import type { VaultKey } from '../config.ts';
import { decryptBound, encryptBound } from '../lib/aead.ts';

export class VaultKeyring {
  private readonly byId: Map<string, Buffer>;

  /** `current` encrypts; it and every key of `older` decrypt. */
  constructor(
    readonly current: VaultKey,
    older: readonly VaultKey[] = [],
  ) {
    this.byId = new Map([...older, current].map(({ id, key }) => [id, key]));
    for (const key of this.byId.values()) if (key.length !== 32) throw new Error('a vault key must be 32 bytes');
  }

  encrypt(plain: string, binding: string): { keyId: string; ciphertext: string } {
    return { keyId: this.current.id, ciphertext: encryptBound(this.current.key, plain, binding) };
  }

  /** Throws when the key id is unknown or the ciphertext, tag or binding was changed. */
  decrypt(keyId: string, ciphertext: string, binding: string): string {
    const key = this.byId.get(keyId);
    if (!key) throw new Error(`vault key ${keyId} is not configured (list it in VAULT_OLD_KEYS)`);
    return decryptBound(key, ciphertext, binding);
  }
}
