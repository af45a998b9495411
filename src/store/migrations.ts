/**
 * Schema migrations, in code, shared by SQLite and PostgreSQL: one file per migration
 * under migrations/, listed here in order. They run at start-up and with
 * `kassa migrate`; each is applied once.
 */
import { Kysely, Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './schema.ts';
import { foundation } from './migrations/001_foundation.ts';
import { webhooks } from './migrations/002_webhooks.ts';
import { pages } from './migrations/003_pages.ts';
import { housekeeping } from './migrations/004_housekeeping.ts';
import { vault } from './migrations/005_vault.ts';
import { wallet } from './migrations/006_wallet.ts';
import { refunds } from './migrations/007_refunds.ts';

const migrations = (dialect: Dialect): Record<string, Migration> => ({
  '001_foundation': foundation(dialect),
  '002_webhooks': webhooks(dialect),
  '003_pages': pages(dialect),
  '004_housekeeping': housekeeping(),
  '005_vault': vault(),
  '006_wallet': wallet(),
  '007_refunds': refunds(),
});

export async function migrateToLatest(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
