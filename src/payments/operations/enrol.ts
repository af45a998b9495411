/**
 * Vault enrollment (docs/api.md#vault-enrollment): `POST {base_url}/token` with `dataType: "card"` creates a
 * pending transaction (`method: "vault"`, `type: "token"`) whose `payUrl` takes the card
 * to store; paying it on the page (pay-card.ts) stores the card instead of charging it.
 */
import type { TransactionRow } from '../../store/schema.ts';
import { planEnrollment } from '../enrollment.ts';
import { storePendingTransaction } from '../pending-transaction.ts';
import { serializePayment } from '../serialize.ts';
import { merchantOperation } from '../runner/operation.ts';
import { requestRules } from '../requests/fields.ts';

export const enrol = merchantOperation({
  name: 'enrol',
  scope: 'token',
  parse: (body: Record<string, unknown>) => body,
  // No enrollment that could never store its card (no vault key): 503 up front.
  load: (_body, { ports }) => void ports.vault.keys(),
  decide: (_nothing, body, { caller, now, ports }) =>
    planEnrollment(body, { caller, now, expiryMs: ports.settings.paymentExpiryMs, rules: requestRules(caller.mode, ports.settings), secrets: ports.links.secrets }),
  commit: async (tx, { row, pageToken }) => {
    await storePendingTransaction(tx, row);
    return { row: row as TransactionRow, pageToken };
  },
  answer: ({ row, pageToken }, { ports }) => serializePayment(row, ports.links, pageToken),
  created: ({ row }) => row,
});
