/**
 * Sign-in attempts as one counter row per subject (`account:<email>`, `address:<ip>`) instead of
 * a row per failure: an attempt is counted before its password is checked, by one upsert that
 * answers the count including it, so concurrent sign-ins, on any process, each see a different
 * count (docs/console.md "Signing in and sessions"). The failures counted so far carry over as
 * windows that started at their first failure.
 */
import { sql, type Kysely } from 'kysely';

export const signInAttempts = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('sign_in_attempts')
      .addColumn('subject', 'text', (c) => c.primaryKey())
      .addColumn('window_started', 'bigint', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_attempts_window').on('sign_in_attempts').column('window_started').execute();
    await sql`INSERT INTO sign_in_attempts (subject, window_started, attempts) SELECT subject, MIN(at), COUNT(*) FROM sign_in_failures GROUP BY subject`.execute(db);
    await db.schema.dropTable('sign_in_failures').execute();
  },
});
