/**
 * Housekeeping: finished webhook deliveries (delivered or given up) are purged after
 * their retention, oldest first; this index holds only those, so pending work never
 * pays for it and the purge never scans the table.
 */
import { Kysely, sql } from 'kysely';

export const housekeeping = () => ({
  async up(db: Kysely<any>) {
    await sql`CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created) WHERE state <> 'pending'`.execute(db);
  },
});
