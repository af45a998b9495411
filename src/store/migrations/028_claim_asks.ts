/**
 * How many times the recovery job asked the acquirer about a claim (docs/acquirers.md "Claims and
 * leases"): a reversal with no answer is asked again at most `RECOVERY_ASKS` times
 * (payments/follow-ups/claims.ts), then left to an operator, instead of being asked for ever. A claim open
 * when this runs starts at 0: it gets its full count of asks.
 */
import type { Kysely } from 'kysely';

export const claimAsks = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('acquirer_claims')
      .addColumn('asks', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
