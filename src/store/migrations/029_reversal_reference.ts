/**
 * The acquirer's reference of the reversal it took last (docs/acquirers.md "Notifications"): an
 * authorisation may be reversed again after the acquirer said a reversal was not done, and the
 * refusal of a reversal names that reversal by its own reference (Adyen's pspReference of the
 * `/cancel`), so only a refusal of the reversal Kassa recorded last makes the authorisation
 * `authorised` again. Reversals recorded before this migration have none: a refusal is then taken
 * as theirs, as before.
 */
import type { Kysely } from 'kysely';

export const reversalReference = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('payment_pages').addColumn('reversal_acquirer_reference', 'text').execute();
  },
});
