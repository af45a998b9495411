/**
 * The console (docs/console.md): its accounts (operators), their server-side sessions, the
 * sign-in failures that throttle guessing, and the append-only audit log of what they did;
 * and on transactions the card's last four digits and the indexes the payments list and its
 * search walk (newest first, keyset pagination on `created`, `reference`).
 */
import { Kysely, sql } from 'kysely';
import type { Dialect } from '../schema.ts';

const bigint = 'bigint';

export const consoleTables = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    const serial = (table: ReturnType<Kysely<any>['schema']['createTable']>) =>
      table.addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));
    await db.schema
      .createTable('operators')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
      .addColumn('password_hash', 'text')
      .addColumn('set_password_hash', 'text')
      .addColumn('set_password_expires_at', bigint)
      .addColumn('created', bigint, (c) => c.notNull())
      .addColumn('disabled_at', bigint)
      .execute();
    await db.schema
      .createTable('console_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created', bigint, (c) => c.notNull())
      .addColumn('expires_at', bigint, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_sessions_expiry').on('console_sessions').column('expires_at').execute();
    await serial(db.schema.createTable('sign_in_failures'))
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('at', bigint, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_failures_subject').on('sign_in_failures').columns(['subject', 'at']).execute();
    await serial(db.schema.createTable('audit_log'))
      .addColumn('at', bigint, (c) => c.notNull())
      .addColumn('operator_id', 'text', (c) => c.notNull())
      .addColumn('operator_email', 'text', (c) => c.notNull())
      .addColumn('merchant_id', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('reference', 'text')
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_merchant').on('audit_log').columns(['merchant_id', 'id']).execute();
    await db.schema.createIndex('audit_log_reference').on('audit_log').column('reference').where('reference', 'is not', null).execute();
    // Append-only like transaction_events: history cannot be rewritten by accident.
    if (dialect === 'postgres') {
      await sql`CREATE FUNCTION kassa_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$`.execute(db);
      await sql`CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION kassa_audit_append_only()`.execute(db);
    } else {
      for (const op of ['UPDATE', 'DELETE']) {
        await sql`CREATE TRIGGER ${sql.raw(`audit_log_no_${op.toLowerCase()}`)} BEFORE ${sql.raw(op)} ON audit_log
          BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
      }
    }
    await db.schema.alterTable('transactions').addColumn('card_last_four', 'text').execute();
    // The list, newest first, over all merchants (platform operators) and per merchant; the search's exact matches.
    await db.schema.createIndex('transactions_newest').on('transactions').columns(['created', 'reference']).execute();
    await db.schema.createIndex('transactions_merchant_newest').on('transactions').columns(['merchant_id', 'created', 'reference']).execute();
    await sql`CREATE INDEX transactions_order_reference ON transactions (merchant_order_reference, created) WHERE merchant_order_reference IS NOT NULL`.execute(db);
    await sql`CREATE INDEX transactions_card_last_four ON transactions (card_last_four, created) WHERE card_last_four IS NOT NULL`.execute(db);
  },
});
