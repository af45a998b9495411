/**
 * Expiry (docs/decisions.md#states): a pending payment past its `expires_at` becomes
 * failed/expired, a batch at a time. Safe with many Kassa processes on one database: on
 * PostgreSQL the due payments are claimed with FOR UPDATE SKIP LOCKED, and each change is
 * the usual compare-and-set, so a payment completed meanwhile is left alone.
 */
import { claimDuePayments } from '../../store/transactions.ts';
import { transition } from '../transition.ts';
import { systemOperation } from '../runner/operation.ts';

export const EXPIRY_BATCH = 200;

export const expire = systemOperation({
  name: 'expire',
  parse: (body: { limit: number }) => body.limit,
  load: () => undefined,
  decide: (_nothing, limit) => limit,
  commit: async (tx, limit, { ports, now }) => {
    const expired: string[] = [];
    for (const { reference } of await claimDuePayments(tx, ports.store.dialect, now, limit)) {
      if (await transition(tx, { reference, from: 'pending', to: 'failed', failureCode: 'expired', cause: 'expired', at: now })) expired.push(reference);
    }
    return expired;
  },
  answer: (expired) => expired,
});
