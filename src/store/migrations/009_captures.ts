/**
 * Captures as transactions of their own (docs/api.md#further-endpoints, payments/follow-ups/authorisation.ts): until now an
 * authorisation recorded its capture in its `details` only. Each captured one gets its capture
 * transaction — `type: "sale"`, `success`, the captured amount, at the capture's time, the
 * authorisation as `parent_reference` — named in the authorisation's `details.captureReference`.
 * Its refunds move to the capture, and with them what its details show as refunded, so that
 * refunds naming either share the one captured amount. No webhook: the capture was answered
 * when it was made.
 *
 * One transaction, as 007: PostgreSQL's migrator runs each migration in one; SQLite's runs
 * none, so this migration opens its own.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { newTransactionReference, pageTokenHash, pageTokenOf } from '../../lib/tokens.ts';
import { findCurrency, parseAmount } from '../../ground/amount.ts';

export const captures = (dialect: Dialect, secrets: SecretBox) => ({
  async up(db: Kysely<any>) {
    if (dialect === 'sqlite') await db.transaction().execute((trx) => giveCapturesTheirRows(trx, secrets));
    else await giveCapturesTheirRows(db, secrets);
  },
});

async function giveCapturesTheirRows(db: Kysely<any>, secrets: SecretBox) {
  const authorisations = await db
    .selectFrom('transactions')
    .selectAll()
    .where('type', '=', 'authorise')
    .where('details', 'like', '%"captureStatus":"captured"%')
    .execute();
  for (const authorisation of authorisations) {
    const { refundedAmount, ...details } = JSON.parse(authorisation.details) as { capturedAmount?: number; captureReference?: string; refundedAmount?: number };
    if (details.captureReference !== undefined) continue;
    const captured = await db
      .selectFrom('transaction_events')
      .select('at')
      .where('reference', '=', authorisation.reference)
      .where('cause', '=', 'capture')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    const at: number = captured?.at ?? authorisation.last_update;
    const amount = details.capturedAmount === undefined ? undefined : parseAmount(details.capturedAmount, findCurrency(authorisation.currency)!);
    const reference = newTransactionReference();
    await db
      .insertInto('transactions')
      .values({
        ...authorisation,
        reference,
        type: 'sale',
        status: 'success',
        failure_code: null,
        amount_minor: amount?.ok ? amount.minor : authorisation.amount_minor,
        return_url: null,
        description: null,
        metadata: null,
        page_token_hash: pageTokenHash(pageTokenOf(secrets, reference)),
        page_token_sealed: null,
        echo: '{}',
        request: '{}',
        details: JSON.stringify(refundedAmount === undefined ? {} : { refundedAmount }),
        authentication: null,
        parent_reference: authorisation.reference,
        created: at,
        last_update: at,
        expires_at: null,
        version: 1,
      })
      .execute();
    await db.insertInto('transaction_events').values({ reference, from_status: null, to_status: 'success', failure_code: null, cause: 'capture', at }).execute();
    await db
      .updateTable('transactions')
      .set({ parent_reference: reference })
      .where('parent_reference', '=', authorisation.reference)
      .where('type', '=', 'credit')
      .execute();
    await db
      .updateTable('transactions')
      .set({ details: JSON.stringify({ ...details, captureReference: reference }) })
      .where('reference', '=', authorisation.reference)
      .execute();
  }
}
