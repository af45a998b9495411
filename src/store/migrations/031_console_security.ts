/**
 * What the console's sessions and passwords need for PCI DSS v4.0 (docs/console.md "Signing in and
 * sessions"): each session's last use, for the idle timeout (its sessions so far count as used when
 * they began), and each account's recent password hashes, so a new password is not one of its last
 * four (the current passwords carry over as each account's first entry).
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

export const consoleSecurity = (dialect: Dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('console_sessions')
      .addColumn('last_used', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`UPDATE console_sessions SET last_used = created`.execute(db);
    await db.schema
      .createTable('password_history')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('set_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('password_history_operator').on('password_history').columns(['operator_id', 'id']).execute();
    await sql`INSERT INTO password_history (operator_id, password_hash, set_at) SELECT id, password_hash, created FROM operators WHERE password_hash IS NOT NULL`.execute(
      db,
    );
  },
});
