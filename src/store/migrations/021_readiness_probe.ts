/**
 * The row readiness writes (api/cockpit.ts): one row, overwritten by every probe, so that a
 * Kassa whose database can still be read but no longer written (PostgreSQL out of space or
 * read-only, SQLite's disk full) is not ready (docs/operations.md "Health").
 */
import type { Kysely } from 'kysely';

export const readinessProbe = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('readiness_probe')
      .addColumn('id', 'integer', (column) => column.primaryKey())
      .addColumn('probed_at', 'bigint', (column) => column.notNull())
      .execute();
  },
});
