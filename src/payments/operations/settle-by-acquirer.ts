/**
 * The acquirer's later word on what it took (docs/acquirers.md "Notifications"): a capture or a
 * refund the acquirer answered `received` stays `pending` until its notification says whether it
 * was done (one left to an operator, `manualintervention`, is settled by it too: claims.ts), and a payment whose authorisation had no answer waits in `manualintervention` for
 * it (or `pending`, its authorisation in flight, when Kassa died before committing the answer);
 * this moves either to `success` or `failed` through the same state change (and so the
 * same events and webhooks) as everything else. A reversal is recorded at once; a word that
 * the acquirer could not do it makes the authorisation `authorised` again. The notification is
 * already verified, by its connector's reader (acquirer/notifications.ts). Each item is recorded, by the acquirer's name
 * of it, in the unit of work that applies it: one sent again changes nothing and sends no webhook,
 * whatever happened to the payment since (a reversal refused, then made again, is not re-opened
 * by the first refusal's retry).
 */
import type { TransactionRow } from '../../store/schema.ts';
import type { Db, Dialect } from '../../store/store.ts';
import { captureStatusOf, recordAcquirerOutcome, recordRefusedReversal } from '../authorisation.ts';
import { findOwnTransaction, findTransaction } from '../../store/transactions.ts';
import { settleFollowUp } from '../claims.ts';
import { findPaymentPage, settleAuthorisationInFlight } from '../../store/payment-pages.ts';
import { recordAcquirerNotification } from '../../store/acquirer-notifications.ts';
import { Problem } from '../../ground/problem.ts';
import { systemOperation } from './operation.ts';
import type { AcquirerWord } from '../../acquirer/notifications.ts';

/** What became of an item: applied (whether or not it changed anything), or recorded already. */
export type Applied = { item: 'first'; row: TransactionRow | undefined } | { item: 'sent again'; differs: boolean };

interface Settlement {
  /**
   * authorisation: a payment whose authorisation had no answer (manualintervention, docs/api.md#existing-clients), or
   * whose process died before committing the answer (pending, its authorisation in flight), learns its outcome.
   */
  kind: 'authorisation' | 'capture' | 'refund' | 'refused reversal';
  row: TransactionRow;
  to: 'success' | 'failed';
  word: AcquirerWord;
}

export const settleByAcquirer = systemOperation({
  name: 'settleByAcquirer',
  parse: (word: AcquirerWord) => word,
  load: async (word, { ports }) => {
    const row = word.event === 'other' ? undefined : await findOwnTransaction(ports.store.read, word.owner, word.reference);
    const page = row?.status === 'pending' && word.event === 'authorisation' ? await findPaymentPage(ports.store.read, row.reference) : undefined;
    return { row, inFlight: !!page?.authorisation_in_flight, leaseUntil: page?.processing_until ?? null };
  },
  decide: (found, word, { now }) => ({ word, settlement: settlementOf(found, word, now) }),
  commit: async (tx, { word, settlement }, { ports, now }): Promise<Applied> => {
    const recorded = await recordAcquirerNotification(tx, {
      ...word.item,
      acquirerReference: word.acquirerReference,
      owner: word.owner,
      reference: word.reference,
      success: word.success,
      received: now,
    });
    if (!recorded.first) return { item: 'sent again', differs: recorded.success !== word.success };
    return { item: 'first', row: settlement && (await settle(tx, settlement, { dialect: ports.store.dialect, now })) };
  },
  answer: (applied) => applied,
});

/** What the acquirer's word settles, if anything. Pure. */
function settlementOf(
  { row, inFlight, leaseUntil }: { row: TransactionRow | undefined; inFlight: boolean; leaseUntil: number | null },
  word: AcquirerWord,
  now: number,
): Settlement | undefined {
  const to = word.success ? ('success' as const) : ('failed' as const);
  // A request is still waiting for this authorisation's answer and commits it itself; after its lease, the word is wanted.
  if (inFlight && word.event === 'authorisation' && leaseUntil !== null && leaseUntil >= now) throw authorisationBeingAnswered();
  if ((row?.status === 'manualintervention' || inFlight) && word.event === 'authorisation') return { kind: 'authorisation', row: row!, to, word };
  // A done reversal is what Kassa recorded already; a replayed refusal finds it `authorised` and changes nothing.
  if (word.event === 'reversal') return row && !word.success && captureStatusOf(row) === 'reversed' ? { kind: 'refused reversal', row, to, word } : undefined;
  // A capture or refund the recovery job left to an operator (claims.ts) is settled by the word too.
  if (!row || (row.status !== 'pending' && row.status !== 'manualintervention') || row.parent_reference === null) return undefined;
  const kind = row.type === 'credit' ? 'refund' : 'capture';
  return kind === word.event ? { row, kind, to, word } : undefined;
}

async function settle(tx: Db, { row, kind, to, word }: Settlement, { dialect, now }: { dialect: Dialect; now: number }): Promise<TransactionRow | undefined> {
  const cause = 'acquirer_notification';
  if (kind === 'refused reversal') {
    await recordRefusedReversal(tx, row, now);
    return findTransaction(tx, row.reference);
  }
  if (kind === 'refund' || kind === 'capture') {
    const from = row.status as 'pending' | 'manualintervention';
    return settleFollowUp(tx, dialect, row, { from, to, failureCode: kind === 'refund' ? 'rejected' : 'processing_error', cause, at: now });
  }
  // The recovery job's technical cancel, once sent, decides instead (docs/acquirers.md "Unknown outcomes").
  if (!(await settleAuthorisationInFlight(tx, row.reference))) return findTransaction(tx, row.reference);
  const failureCode = to === 'success' ? null : word.failureCode;
  await recordAcquirerOutcome(
    tx,
    { reference: row.reference, from: row.status as 'pending' | 'manualintervention', to, failureCode, cause, at: now },
    word.acquirerReference,
  );
  return findTransaction(tx, row.reference);
}

/** The notification comes again later (Adyen resends what is not `[accepted]`), when the answer is committed or its request is gone. */
const authorisationBeingAnswered = () =>
  new Problem(
    503,
    'Authorisation being answered',
    'An AUTHORISATION notification for a payment whose authorisation a Kassa request is still waiting for; send it again later.',
    undefined,
    { 'Retry-After': '60' },
  );
