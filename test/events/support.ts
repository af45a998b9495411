/**
 * Support for the webhook tests: a merchant's receiver on 127.0.0.1 that verifies
 * every signature with the `standardwebhooks` package (as a merchant backend would),
 * bounded waiting, and pending payments made directly in the store.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Store } from '../../src/store/store.ts';
import type { Mode, NewTransaction } from '../../src/store/schema.ts';
import { insertTransaction } from '../../src/store/transactions.ts';
import { newTransactionReference, pageTokenHash, pageTokenOf } from '../../src/lib/tokens.ts';
import type { SecretBox } from '../../src/lib/secret-box.ts';
import { transition } from '../../src/payments/transition.ts';
import { defaultRetrySchedule } from '../../src/events/schedule.ts';
import { loadWebhookSettings } from '../../src/events/settings.ts';
import type { WorkerOptions } from '../../src/events/worker.ts';

export interface Received {
  webhookId: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
  /** The body as `standardwebhooks` verified it, or the verification error. */
  verified: { ok: true; payload: unknown } | { ok: false; error: string };
  /** What the receiver answered; null = it never did (hung). */
  answered: number | null;
}

export type Behaviour = (request: Received, index: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests answered 2xx, by reference. */
  acknowledged(): Map<string, Received[]>;
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

/** A webhook receiver; `secret()` is read per request so a rotated secret can be followed. */
export async function startReceiver(secret: () => string, behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  let behave = behaviour;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      let verified: Received['verified'];
      try {
        verified = { ok: true, payload: new Webhook(secret()).verify(body, request.headers as Record<string, string>) };
      } catch (error) {
        verified = { ok: false, error: (error as Error).message };
      }
      const entry: Received = {
        webhookId: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        contentType: request.headers['content-type'],
        body,
        verified,
        answered: null,
      };
      received.push(entry);
      const answer = behave(entry, received.length - 1);
      if (answer === 'hang') return;
      entry.answered = answer;
      response.writeHead(answer, answer >= 300 && answer < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/kassa`,
    received,
    acknowledged() {
      const byReference = new Map<string, Received[]>();
      for (const r of received) {
        if (r.answered === null || r.answered < 200 || r.answered >= 300) continue;
        const reference = (JSON.parse(r.body) as { id: string }).id;
        byReference.set(reference, [...(byReference.get(reference) ?? []), r]);
      }
      return byReference;
    },
    behave(next) {
      behave = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `check` until it returns a value other than undefined/false, at most `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000, intervalMs = 20): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Worker options for tests: the production settings with a fast poll and a schedule in milliseconds. */
export function fastWorkerOptions(overrides: Partial<WorkerOptions> = {}): WorkerOptions {
  return {
    ...loadWebhookSettings({}),
    pollIntervalMs: 10,
    retryScheduleMs: defaultRetrySchedule.map(() => 15),
    ...overrides,
  };
}

/** A pending card payment inserted directly (the API path is tested elsewhere). */
/** A pending card payment's row, as a create stores it (no 3-D Secure data). */
export function pendingPaymentRow(secrets: SecretBox, merchantId: string, options: { mode?: Mode; webhookUrl?: string; reference?: string } = {}): NewTransaction {
  const now = Date.now();
  const reference = options.reference ?? newTransactionReference();
  return {
    reference,
    merchant_id: merchantId,
    mode: options.mode ?? 'test',
    method: 'card',
    type: 'sale',
    status: 'pending',
    failure_code: null,
    amount_minor: 1000,
    currency: 'eur',
    language: 'eng',
    return_url: null,
    merchant_order_reference: null,
    description: null,
    metadata: null,
    brand: null,
    webhook_url: options.webhookUrl ?? null,
    page_token_hash: pageTokenHash(pageTokenOf(secrets, reference)),
    flow: 'card',
    echo: '{}',
    request: JSON.stringify({ flow: 'card' }),
    details: '{}',
    authentication: null,
    parent_reference: null,
    created: now,
    last_update: now,
    expires_at: now + 15 * 60_000,
    page_token_sealed: null,
  };
}

export async function insertPendingPayment(store: Store, merchantId: string, options: { mode?: Mode; webhookUrl?: string } = {}): Promise<string> {
  const row = pendingPaymentRow(store.secrets, merchantId, options);
  await store.transact((db) => insertTransaction(db, row, 'created'));
  return row.reference;
}

export async function completePayment(store: Store, reference: string, to: 'success' | 'failed' = 'success'): Promise<void> {
  const changed = await store.transact((db) =>
    transition(db, { reference, from: 'pending', to, failureCode: to === 'failed' ? 'rejected' : null, cause: 'test_helper', at: Date.now() }),
  );
  if (!changed) throw new Error(`${reference} was not pending`);
}

export async function deliveriesFor(store: Store, reference: string) {
  return store.read.selectFrom('webhook_deliveries').selectAll().where('reference', '=', reference).execute();
}

export async function attemptsFor(store: Store, deliveryId: string) {
  return store.read.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
}
