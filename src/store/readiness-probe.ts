/** The readiness probe's write (021_readiness_probe): its one row overwritten, nothing else. */
import type { Db } from './store.ts';

export async function writeReadinessProbe(db: Db, now: number): Promise<void> {
  await db
    .insertInto('readiness_probe')
    .values({ id: 1, probed_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ probed_at: now }))
    .execute();
}
