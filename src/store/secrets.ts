/**
 * The secrets key of a database (docs/operations.md "Secrets at rest"): SECRETS_KEY, or else a
 * key file in KEY_DIR made on first start and read by every process after. What the database
 * must keep but must not hold readable is sealed with it, each value bound to its row (`bindings`),
 * and the capability tokens are derived with it (lib/tokens.ts).
 *
 * The database records the key's check value (007_sealed_secrets). Migrating checks it: a Kassa
 * holding another key (a second machine with its own key file, a database restored without its
 * key) refuses to start instead of handing out addresses that open nothing and signing webhooks
 * no merchant can verify.
 */
import path from 'node:path';
import { SecretBox } from '../lib/secret-box.ts';
import { ensureKeyFile } from '../lib/private-files.ts';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export const SECRETS_KEY_FILE = 'secrets-key.json';

export interface SecretsKeyOptions {
  secretsKey?: Buffer;
  keyDir: string;
}

/** The secrets key, and what the log should say about it once (a key file just made). */
export function openSecretsKey(options: SecretsKeyOptions): { secrets: SecretBox; notices: string[] } {
  if (options.secretsKey) return { secrets: new SecretBox(options.secretsKey), notices: [] };
  const file = path.join(options.keyDir, SECRETS_KEY_FILE);
  const { key, created } = ensureKeyFile(file);
  const notices = created ? [`made the secrets key ${file}: back it up, kept apart from the database (docs/operations.md)`] : [];
  return { secrets: new SecretBox(key.key), notices };
}

/** What each sealed value is bound to: a value copied into another row does not open. */
export const bindings = {
  /** transactions.page_token_sealed: the token of a payment created before 007, which no key derives. */
  pageToken: (reference: string) => `transactions.page_token:${reference}`,
  webhookSecret: (merchantId: string) => `merchant_webhooks.secret:${merchantId}`,
  idempotencyAnswer: (key: { merchantId: string; mode: string; route: string; idempotencyReference: string }) =>
    `idempotency_records.response_body:${JSON.stringify([key.merchantId, key.mode, key.route, key.idempotencyReference])}`,
  acsNotificationUrl: (acsTransId: string) => `acs_sim_transactions.notification_url:${acsTransId}`,
  acquirerSecrets: (merchantId: string, mode: string) => `acquirer_connections.secrets:${JSON.stringify([merchantId, mode])}`,
};

export async function recordSecretsKey(db: Db, secrets: SecretBox, now: number): Promise<void> {
  await db.insertInto('secrets_key').values({ check_value: secrets.checkValue, created: now }).execute();
}

/** Throws unless the database's secrets were sealed with `secrets`. */
export async function checkSecretsKey(db: Db, secrets: SecretBox): Promise<void> {
  const recorded = await db.selectFrom('secrets_key').select('check_value').execute();
  if (recorded.length === 1 && recorded[0].check_value === secrets.checkValue) return;
  throw new Error(
    "this database's secrets are sealed with another secrets key than this Kassa's (SECRETS_KEY, or secrets-key.json in KEY_DIR): " +
      'give every Kassa of one database the same key (docs/operations.md "Secrets at rest")',
  );
}
