/**
 * Effects that must happen only once a unit of work has committed (a metric counting a payment
 * created or a status changed): a unit can roll back after its writes, as a duplicate
 * Idempotency-Reference's does on purpose (payments/runner/idempotency.ts). `afterCommit` keeps the
 * effect with the unit running on `db`; `store.transact` (store.ts) runs them once it commits and
 * drops them when it fails. Units on one connection run one after another (SQLite's group commit
 * runs its batch in turn, each PostgreSQL unit has its own), so the connection names the unit.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** store.ts's `Db`, named here without importing store.ts (which imports this file). */
type Db = Kysely<Database>;

const effectsOf = new WeakMap<Db, (() => void)[]>();

/** Runs `effect` when the unit of work writing through `db` commits; at once outside a unit. */
export function afterCommit(db: Db, effect: () => void): void {
  const effects = effectsOf.get(db);
  if (effects) effects.push(effect);
  else effect();
}

export function withAfterCommit(transact: <T>(unit: (db: Db) => Promise<T>) => Promise<T>) {
  return async <T>(unit: (db: Db) => Promise<T>): Promise<T> => {
    const effects: (() => void)[] = [];
    const result = await transact(async (db) => {
      effectsOf.set(db, effects);
      try {
        return await unit(db);
      } finally {
        effectsOf.delete(db);
      }
    });
    for (const effect of effects) effect();
    return result;
  };
}
