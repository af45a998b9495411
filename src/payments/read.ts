/**
 * Reading payment objects (docs/api.md#read-a-transaction). Merchants poll a payment until it is final, so
 * the serialized object is kept per process for the row's `version` (bumped by every
 * update of the row, by any process): a repeated read costs one small indexed lookup
 * instead of reading and serializing the whole row, and can never be stale. On SQLite not even
 * that while nothing at all was committed since the object was last found current (the store's
 * commit mark; docs/decisions.md "A polled payment without a statement").
 */
import type { Store } from '../store/store.ts';
import type { Mode } from '../store/schema.ts';
import { findOwnPayment, findOwnTransactions, ownPaymentVersion } from '../store/transactions.ts';
import { serializePayment, type PaymentLinks } from './serialize.ts';

const CACHED_PAYMENTS = 10_000;

interface CachedPayment {
  version: number;
  json: string;
  /** Whose it is: a payment taken from the cache without a lookup is given to its owner only. */
  merchantId: string;
  mode: Mode;
  /** The store's commit mark when the object was last found current; undefined when there was none. */
  mark: number | undefined;
}

export class PaymentReader {
  private readonly cache = new Map<string, CachedPayment>();

  constructor(
    private readonly store: Store,
    private readonly links: PaymentLinks,
  ) {}

  /** The payment object as JSON text, or undefined when the owner has no such transaction. */
  async json(owner: { merchantId: string; mode: Mode }, reference: string): Promise<string | undefined> {
    // Taken before anything is read: a commit after it changes the mark, so the object found below is never taken as current for longer than it was.
    const mark = this.store.commitMark?.();
    const cached = this.cache.get(reference);
    if (mark !== undefined && cached?.mark === mark && cached.merchantId === owner.merchantId && cached.mode === owner.mode) return cached.json;
    const version = await ownPaymentVersion(this.store.read, owner, reference);
    if (version === undefined) return undefined;
    if (cached?.version === version) {
      cached.mark = mark;
      return cached.json;
    }
    const row = await findOwnPayment(this.store.read, owner, reference);
    if (!row) return undefined;
    const json = JSON.stringify(serializePayment(row, this.links));
    if (this.cache.size >= CACHED_PAYMENTS) this.cache.delete(this.cache.keys().next().value!);
    // A row read after the version check may be newer; it is then cached under its own, later version.
    this.cache.set(reference, { version: row.version, json, merchantId: owner.merchantId, mode: owner.mode, mark });
    return json;
  }

  /** The owner's payments among `references`, in the order asked; unknown ones are left out. */
  async list(owner: { merchantId: string; mode: Mode }, references: string[]): Promise<Record<string, unknown>[]> {
    const rows = new Map((await findOwnTransactions(this.store.read, owner, references)).map((row) => [row.reference, row]));
    return references.flatMap((reference) => {
      const row = rows.get(reference);
      return row ? [serializePayment(row, this.links)] : [];
    });
  }
}
