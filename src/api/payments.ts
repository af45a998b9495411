/** Merchant API routes for payments: create, read, methods, cancel. Parse → service → serialize. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { Problem } from '../ground/problem.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { KeyResolver } from '../merchants/merchants.ts';
import { findOwnTransactions } from '../store/transactions.ts';
import { PaymentReader } from '../payments/read.ts';
import { planPayment, validatePaymentBody } from '../payments/create.ts';
import { storePendingTransaction } from '../payments/pending-transaction.ts';
import { cancelByPageToken } from '../payments/cancel.ts';
import { paymentPorts } from '../payments/ports.ts';
import { serializePayment } from '../payments/serialize.ts';
import { authenticate } from './auth.ts';
import { planned, runIdempotent, type Outcome } from './idempotency.ts';
import type { TransactionRow, VaultCardRow } from '../store/schema.ts';
import type { PaymentRequest } from '../payments/request.ts';
import { prepareWalletPayment, TOKEN_FIELD, type WalletStep } from '../payments/create-wallet.ts';
import { payByWalletLater, recordWalletTokenUse } from '../payments/pay-by-wallet.ts';
import { AcquirerUnavailable } from '../acquirer/select.ts';

export interface Deps {
  config: Config;
  store: Store;
  keys: KeyResolver;
}

const TransactionQuery = Type.Object({
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  references: Type.Optional(Type.String({ minLength: 1, maxLength: 64 * 50 + 49 })),
});

const MAX_REFERENCES = 50;

export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Problem(400, 'Malformed request', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

export function sendOutcome(reply: FastifyReply, outcome: Outcome) {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  if (outcome.status >= 400) reply.type('application/problem+json');
  else if (outcome.json !== undefined) reply.type('application/json; charset=utf-8');
  return reply.code(outcome.status).send(outcome.json ?? outcome.body);
}

export const idempotencyReferenceOf = (request: FastifyRequest) => {
  const value = request.headers['idempotency-reference'];
  return Array.isArray(value) ? value[0] : value;
};

/** Payment routes of the merchant API; registered inside the authenticated scope (server.ts). */
export async function paymentsApi(app: FastifyInstance, { config, store }: Deps) {
  const payments = new PaymentReader(store, config.publicUrl);
  const cards = paymentPorts(config, store);
  app.post('/payment', async (request, reply) => {
    const body = objectBody(request.body);
    const { caller } = request;
    const plan = (paymentRequest: PaymentRequest, found: { vaultCard?: VaultCardRow; wallet?: WalletStep } = {}) => {
      const ctx = { caller, defaultExpiry: config.paymentExpiry, defaultExpiryMs: config.paymentExpiryMs, now: Date.now(), vaultCard: found.vaultCard, walletDetails: found.wallet?.details };
      const row = planPayment(paymentRequest, ctx) as TransactionRow;
      return { row, body: serializePayment(row, config.publicUrl), accepted: found.wallet?.accepted };
    };
    const payment = await planned(() => {
      const paymentRequest = validatePaymentBody(body, caller);
      if (paymentRequest.storeInVault) cards.vault.keys();
      if (paymentRequest.flow === 'vault') {
        // A read before the unit of work: vault cards are never changed or deleted, so the card found here is the card paid with.
        return cards.vault.find(store.read, caller, paymentRequest.details.vaultAccessToken!).then((vaultCard) => plan(paymentRequest, { vaultCard }));
      }
      if (paymentRequest.flow !== 'walletpay-direct' && paymentRequest.flow !== 'walletpay-hybrid') return plan(paymentRequest);
      // A token paid or a session handed out must be payable: not with a live key and no acquirer.
      if (!cards.acquirers.available(caller.mode)) throw new AcquirerUnavailable();
      return prepareWalletPayment(paymentRequest, caller, config.wallet).then((wallet) => plan(paymentRequest, { wallet }));
    });
    const outcome = await runIdempotent(
      store,
      { merchantId: caller.merchantId, mode: caller.mode, route: 'payment' },
      idempotencyReferenceOf(request),
      body,
      async (db) => {
        const { row, body: answer, accepted } = payment();
        await storePendingTransaction(db, row);
        if (accepted) await recordWalletTokenUse(db, accepted, row.reference, TOKEN_FIELD);
        return { status: 200, body: answer };
      },
    );
    const { row, accepted } = payment.peek() ?? {};
    if (accepted && row && outcome.status === 200 && !outcome.replayed) {
      // The direct wallet flow pays after answering: the creation response is the pending payment (spec §4.1).
      const context = { row, merchant: { id: caller.merchantId, name: caller.merchantName, settings: caller.settings } };
      payByWalletLater(cards, context, accepted, request.log);
    }
    return sendOutcome(reply, outcome);
  });

  app.get<{ Querystring: Static<typeof TransactionQuery> }>(
    '/transaction',
    { schema: { querystring: TransactionQuery } },
    async (request, reply) => {
      const { reference, references } = request.query;
      if ((reference === undefined) === (references === undefined)) {
        throw Problem.validation([{ field: '/reference', code: 'required', message: 'give either reference or references (comma-separated)' }]);
      }
      if (reference !== undefined) {
        const json = await payments.json(request.caller, reference);
        if (json === undefined) throw Problem.notFound(`No transaction with reference ${reference}.`);
        return reply.type('application/json; charset=utf-8').send(json);
      }
      const wanted = [...new Set(references!.split(',').map((r) => r.trim()).filter(Boolean))];
      if (wanted.length === 0 || wanted.length > MAX_REFERENCES) {
        throw Problem.validation([{ field: '/references', code: 'max_items', message: `must list 1 to ${MAX_REFERENCES} references` }]);
      }
      const rows = new Map((await findOwnTransactions(store.read, request.caller, wanted)).map((row) => [row.reference, row]));
      // Unknown references are left out, in the order asked, as for a single unknown one nothing is revealed.
      return wanted.flatMap((r) => (rows.has(r) ? [serializePayment(rows.get(r)!, config.publicUrl)] : []));
    },
  );

  app.get('/method', async (request) => {
    const { settings } = request.caller;
    return settings.methods.map((method) =>
      method === 'card' ? { method, options: settings.cardBrands.map((brand) => ({ brand })) } : { method },
    );
  });
}

/** `POST <cancelUrl>`: the capability token authorises; a Basic key, when sent, must be the payment's merchant. */
export async function cancelApi(app: FastifyInstance, { config, store, keys }: Deps) {
  app.post<{ Params: { token: string } }>('/cancel/:token', async (request) => {
    const caller = await authenticate(request, keys, false);
    const row = await cancelByPageToken(store, request.params.token, caller, caller ? 'merchant_cancel' : 'customer_cancel');
    return serializePayment(row, config.publicUrl);
  });
}
