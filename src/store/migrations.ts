/**
 * Schema migrations, in code, shared by SQLite and PostgreSQL: one file per migration
 * under migrations/, listed here in order. They run at start-up and with
 * `kassa migrate`; each is applied once.
 */
import { Kysely, Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Dialect } from './schema.ts';
import { foundation } from './migrations/001_foundation.ts';
import { webhooks } from './migrations/002_webhooks.ts';
import { pages } from './migrations/003_pages.ts';
import { housekeeping } from './migrations/004_housekeeping.ts';
import { vault } from './migrations/005_vault.ts';
import { wallet } from './migrations/006_wallet.ts';
import { SEALED_SECRETS, sealedSecrets } from './migrations/007_sealed_secrets.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { refunds } from './migrations/008_refunds.ts';
import { captures } from './migrations/009_captures.ts';
import { createdAnswers } from './migrations/010_created_answers.ts';
import { acquirerConnections } from './migrations/012_acquirer_connections.ts';
import { consoleTables } from './migrations/013_console.ts';
import { consoleListIndexes } from './migrations/014_console_list_indexes.ts';
import { acquirerAuthentication } from './migrations/015_acquirer_authentication.ts';
import { acquirerInFlight } from './migrations/016_acquirer_in_flight.ts';
import { oneParentIndex } from './migrations/017_one_parent_index.ts';
import { acquirerClaims } from './migrations/018_acquirer_claims.ts';
import { acquirerNotifications } from './migrations/019_acquirer_notifications.ts';
import { signInAttempts } from './migrations/020_sign_in_attempts.ts';
import { readinessProbe } from './migrations/021_readiness_probe.ts';
import { explicitMerchantMethods } from './migrations/022_explicit_merchant_methods.ts';
import { eventDetails } from './migrations/023_event_details.ts';
import { vaultNetworkReference } from './migrations/024_vault_network_reference.ts';
import { acquirerEndpoints } from './migrations/025_acquirer_endpoints.ts';
import { disputes } from './migrations/026_disputes.ts';
import { fewerPagesPerCreate } from './migrations/027_fewer_pages_per_create.ts';
import { claimAsks } from './migrations/028_claim_asks.ts';
import { reversalReference } from './migrations/029_reversal_reference.ts';
import { requestLog } from './migrations/030_request_log.ts';
import { consoleSecurity } from './migrations/031_console_security.ts';
import { auditTrail } from './migrations/032_audit_trail.ts';

/** Every migration by name, in order. 007 seals what the database held in clear with the secrets key. */
export const migrations = (dialect: Dialect, secrets: SecretBox): Record<string, Migration> => ({
  '001_foundation': foundation(dialect),
  '002_webhooks': webhooks(dialect),
  '003_pages': pages(dialect),
  '004_housekeeping': housekeeping(),
  '005_vault': vault(),
  '006_wallet': wallet(),
  [SEALED_SECRETS]: sealedSecrets(dialect, secrets),
  '008_refunds': refunds(),
  '009_captures': captures(dialect, secrets),
  '010_created_answers': createdAnswers(),
  '012_acquirer_connections': acquirerConnections(),
  '013_console': consoleTables(dialect),
  '014_console_list_indexes': consoleListIndexes(),
  '015_acquirer_authentication': acquirerAuthentication(),
  '016_acquirer_in_flight': acquirerInFlight(),
  '017_one_parent_index': oneParentIndex(),
  '018_acquirer_claims': acquirerClaims(),
  '019_acquirer_notifications': acquirerNotifications(),
  '020_sign_in_attempts': signInAttempts(),
  '021_readiness_probe': readinessProbe(),
  '022_explicit_merchant_methods': explicitMerchantMethods(dialect),
  '023_event_details': eventDetails(),
  '024_vault_network_reference': vaultNetworkReference(),
  '025_acquirer_endpoints': acquirerEndpoints(),
  '026_disputes': disputes(),
  '027_fewer_pages_per_create': fewerPagesPerCreate(dialect),
  '028_claim_asks': claimAsks(),
  '029_reversal_reference': reversalReference(),
  '030_request_log': requestLog(dialect),
  '031_console_security': consoleSecurity(dialect),
  '032_audit_trail': auditTrail(),
});

/**
 * Whether this run sealed secrets a database held in clear until now (007 on a database that
 * existed before): the adapters then rewrite its files, where the old values may linger. A
 * database this run created never held any.
 */
export const sealedSecretsHeldInClear = (applied: string[]) => applied.includes(SEALED_SECRETS) && !applied.includes('001_foundation');

export async function migrateToLatest(db: Kysely<any>, dialect: Dialect, secrets: SecretBox): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect, secrets) };
  // Migrations are numbered on parallel branches (013 may land before 010): one applied later than a higher number still runs.
  const { error, results } = await new Migrator({ db, provider, allowUnorderedMigrations: true }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The migrations this code has that the database has not applied (readiness: a Kassa newer than
 * its database's schema must not take traffic). Reading the list is also the database's answer
 * to "are you there".
 */
export async function pendingMigrations(db: Kysely<Database>, dialect: Dialect, secrets: SecretBox): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect, secrets) };
  const known = await new Migrator({ db, provider }).getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}
