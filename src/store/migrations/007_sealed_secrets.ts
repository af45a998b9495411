/**
 * Secrets at rest (docs/operations.md "Secrets at rest", docs/decisions.md "Capability tokens
 * at rest"): from here on a copy of the database alone opens no payment page and signs no webhook.
 *
 * - `transactions.page_token` becomes `page_token_hash`, the token's look-up key (same place in
 *   the row, same unique index). Each existing payment's token was random, so no key derives
 *   it: it is kept sealed in `page_token_sealed`, and its payUrl and cancelUrl stay what they
 *   were. Later payments' tokens are derived from their reference; that column stays null.
 * - Sealed with the secrets key: every merchant's webhook signing secret (a merchant without one
 *   gets one now, as every merchant does from its creation on), the answers idempotency records
 *   replay (they carry payUrl), and the test-mode ACS simulator's notification URLs (they carry
 *   the token).
 * - `secrets_key` records the key's check value (store/secrets.ts).
 *
 * All of it in one transaction: PostgreSQL's migrator runs each migration in one; SQLite's runs
 * none, so this migration opens its own. The values in clear may still sit in freed pages and
 * in the WAL: the adapters rewrite the files once it has run (sqlite.ts, postgres.ts).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { newWebhookSecret, pageTokenHash } from '../../lib/tokens.ts';
import { bindings, recordSecretsKey } from '../secrets.ts';

export const SEALED_SECRETS = '007_sealed_secrets';

const BATCH = 1000;

export const sealedSecrets = (dialect: Dialect, secrets: SecretBox) => ({
  async up(db: Kysely<any>) {
    if (dialect === 'sqlite') await db.transaction().execute((trx) => seal(trx, secrets));
    else await seal(db, secrets);
  },
});

async function seal(db: Kysely<any>, secrets: SecretBox) {
  // SQLite: a crash between this transaction's commit and the migrator's record of it leaves it done; done is not redone.
  if ((await db.introspection.getTables()).some((table) => table.name === 'secrets_key')) return;
  const now = Date.now();

  await db.schema.alterTable('transactions').renameColumn('page_token', 'page_token_hash').execute();
  await db.schema.alterTable('transactions').addColumn('page_token_sealed', 'text').execute();
  await inBatches(
    (after?: { reference: string }) =>
      db
        .selectFrom('transactions')
        .select(['reference', 'page_token_hash as token'])
        .where('reference', '>', after?.reference ?? '')
        .orderBy('reference')
        .limit(BATCH)
        .execute(),
    (row) =>
      db
        .updateTable('transactions')
        .set({ page_token_hash: pageTokenHash(row.token), page_token_sealed: secrets.seal(row.token, bindings.pageToken(row.reference)) })
        .where('reference', '=', row.reference)
        .execute(),
  );

  for (const row of await db.selectFrom('merchant_webhooks').select(['merchant_id', 'secret']).execute()) {
    await db
      .updateTable('merchant_webhooks')
      .set({ secret: secrets.seal(row.secret, bindings.webhookSecret(row.merchant_id)) })
      .where('merchant_id', '=', row.merchant_id)
      .execute();
  }
  const withoutSecret = await db
    .selectFrom('merchants')
    .select('id')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('merchant_webhooks').select('merchant_id').whereRef('merchant_id', '=', 'merchants.id'))))
    .execute();
  for (const { id } of withoutSecret) {
    await db
      .insertInto('merchant_webhooks')
      .values({ merchant_id: id, url: null, secret: secrets.seal(newWebhookSecret(), bindings.webhookSecret(id)), updated: now })
      .execute();
  }

  const recordKey = ['merchant_id', 'mode', 'route', 'idempotency_reference'] as const;
  await inBatches(
    (after?: { merchant_id: string; mode: string; route: string; idempotency_reference: string }) =>
      db
        .selectFrom('idempotency_records')
        .select([...recordKey, 'response_body'])
        .where('response_body', 'is not', null)
        .$if(after !== undefined, (query) =>
          query.where(({ eb, refTuple, tuple }) => eb(refTuple(...recordKey), '>', tuple(after!.merchant_id, after!.mode, after!.route, after!.idempotency_reference))),
        )
        .orderBy('merchant_id')
        .orderBy('mode')
        .orderBy('route')
        .orderBy('idempotency_reference')
        .limit(BATCH)
        .execute(),
    (row) => {
      const key = { merchantId: row.merchant_id, mode: row.mode, route: row.route, idempotencyReference: row.idempotency_reference };
      return db
        .updateTable('idempotency_records')
        .set({ response_body: secrets.seal(row.response_body, bindings.idempotencyAnswer(key)) })
        .where('merchant_id', '=', row.merchant_id)
        .where('mode', '=', row.mode)
        .where('route', '=', row.route)
        .where('idempotency_reference', '=', row.idempotency_reference)
        .execute();
    },
  );

  await inBatches(
    (after?: { acs_trans_id: string }) =>
      db
        .selectFrom('acs_sim_transactions')
        .select(['acs_trans_id', 'notification_url'])
        .where('notification_url', 'is not', null)
        .where('acs_trans_id', '>', after?.acs_trans_id ?? '')
        .orderBy('acs_trans_id')
        .limit(BATCH)
        .execute(),
    (row) =>
      db
        .updateTable('acs_sim_transactions')
        .set({ notification_url: secrets.seal(row.notification_url, bindings.acsNotificationUrl(row.acs_trans_id)) })
        .where('acs_trans_id', '=', row.acs_trans_id)
        .execute(),
  );

  await db.schema
    .createTable('secrets_key')
    .addColumn('check_value', 'text', (c) => c.primaryKey())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await recordSecretsKey(db, secrets, now);
}

/** `convert` on every row `page` gives, a batch at a time in key order, so a large table never sits in memory whole. */
async function inBatches<R>(page: (after?: R) => Promise<R[]>, convert: (row: R) => Promise<unknown>): Promise<void> {
  for (let rows = await page(); rows.length > 0; rows = await page(rows.at(-1))) {
    for (const row of rows) await convert(row);
  }
}
