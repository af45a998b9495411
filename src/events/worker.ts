/**
 * The webhook delivery worker (docs/webhooks.md#retries). It claims due deliveries in batches with a
 * lease (claimDueDeliveries), sends each outside any unit of work, then records the
 * attempt and the delivery's next step in one unit. Several workers, in one process
 * or many sharing a database, take disjoint claims; a worker that dies holding a
 * claim lets its lease lapse and the deliveries are sent again (at-least-once, same
 * `webhook-id`).
 */
import type { Store } from '../store/store.ts';
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery } from '../store/webhooks.ts';
import { bindings } from '../store/secrets.ts';
import { randomBase62 } from '../lib/tokens.ts';
import { webhookAttempts, webhooksGivenUp } from '../lib/metrics.ts';
import { WebhookSender, type AttemptResult } from './sender.ts';
import { secretKey, signWebhook, webhookBody, type SignedHeaders } from './signing.ts';
import { nextRetryAt } from './schedule.ts';
import type { WebhookSettings } from './settings.ts';
import type { Resolver } from './ssrf.ts';

export interface WorkerOptions extends WebhookSettings {
  /** The clock deciding what is due and when to retry; tests may move it. */
  now?: () => number;
  /** DNS resolution for webhook URLs (SSRF-checked); tests may replace it. */
  resolve?: Resolver;
  onError?: (error: unknown) => void;
}

export class WebhookWorker {
  readonly id = `wkr_${randomBase62(12)}`;
  /** Counters since start, for benchmarks and logs. */
  readonly stats = { attempts: 0, delivered: 0, failedAttempts: 0, givenUp: 0 };
  private readonly sender: WebhookSender;
  private readonly now: () => number;
  private readonly inflight = new Set<Promise<void>>();
  private readonly keys = new Map<string, Buffer>();
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wakeIdle: (() => void) | undefined;
  private wakeSlot: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: WorkerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.sender = new WebhookSender({
      timeoutMs: options.timeoutMs,
      maxSockets: options.concurrency,
      resolve: options.resolve,
      testPrivateNetworks: options.testPrivateNetworks,
    });
  }

  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /** Looks for due deliveries now instead of at the next poll. */
  poke(): void {
    this.wakeIdle?.();
  }

  /** Stops claiming, lets the attempts in flight finish (each within the timeout), closes the sockets. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeIdle?.();
    this.wakeSlot?.();
    await this.loop;
    await Promise.all(this.inflight);
    this.sender.close();
  }

  private async run(): Promise<void> {
    const { concurrency, batchSize, pollIntervalMs } = this.options;
    // Claim in batches, not one by one as single slots free up: one round trip per batch is what makes thousands a second.
    const claimWhenFree = Math.max(1, Math.min(batchSize, Math.floor(concurrency / 4)));
    while (!this.stopped) {
      const free = concurrency - this.inflight.size;
      if (free < claimWhenFree && this.inflight.size > 0) {
        await this.wait('slot', pollIntervalMs);
        continue;
      }
      const wanted = Math.min(free, batchSize);
      let claimed: ClaimedDelivery[];
      const claim = `${this.id}.${randomBase62(8)}`;
      try {
        const now = this.now();
        claimed = await this.store.transact((db) =>
          claimDueDeliveries(db, { now, leaseUntil: now + this.options.leaseMs, claim, limit: wanted, skipLocked: this.store.dialect === 'postgres' }),
        );
      } catch (error) {
        this.options.onError?.(error);
        await this.wait('idle', pollIntervalMs);
        continue;
      }
      for (const delivery of claimed) this.track(this.deliver(delivery, claim));
      if (claimed.length < wanted) await this.wait('idle', pollIntervalMs);
    }
  }

  private track(attempt: Promise<void>) {
    this.inflight.add(attempt);
    void attempt.finally(() => {
      this.inflight.delete(attempt);
      this.wakeSlot?.();
    });
  }

  /** Sleeps until `ms` pass, the worker stops, or (`slot`) an attempt in flight finishes. */
  private wait(reason: 'idle' | 'slot', ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (reason === 'idle') this.wakeIdle = undefined;
        else this.wakeSlot = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (reason === 'idle') this.wakeIdle = done;
      else this.wakeSlot = done;
    });
  }

  private async deliver(delivery: ClaimedDelivery, claim: string): Promise<void> {
    const at = this.now();
    let result: AttemptResult;
    if (!delivery.url || !delivery.secret) {
      result = { ok: false, statusCode: null, error: 'no webhook URL configured', durationMs: 0 };
    } else {
      const body = webhookBody(delivery.reference);
      let headers: SignedHeaders | undefined;
      try {
        headers = signWebhook(this.keyOf(delivery.merchant_id, delivery.secret), delivery.id, at, body);
      } catch {
        // Only a row changed outside Kassa gets here: its attempts fail, visibly, and the worker goes on.
      }
      result = headers
        ? await this.sender.send(delivery.url, delivery.mode, headers, body)
        : { ok: false, statusCode: null, error: 'the signing secret does not open with the secrets key', durationMs: 0 };
    }
    const failures = result.ok ? delivery.failures : delivery.failures + 1;
    // A delivery whose URL was removed is given up at once: removing the URL means "stop sending".
    const retryAt = result.ok || !delivery.url ? undefined : nextRetryAt(this.options.retryScheduleMs, failures, this.now());
    const state = result.ok ? 'delivered' : retryAt === undefined ? 'failed' : 'pending';
    this.stats.attempts++;
    if (result.ok) this.stats.delivered++;
    else this.stats.failedAttempts++;
    if (state === 'failed') this.stats.givenUp++;
    webhookAttempts.inc({ outcome: result.ok ? 'delivered' : 'failed' });
    if (state === 'failed') webhooksGivenUp.inc();
    try {
      await this.store.transact((db) =>
        recordAttempt(db, {
          deliveryId: delivery.id,
          claim,
          at,
          durationMs: result.durationMs,
          url: delivery.url,
          statusCode: result.statusCode,
          error: result.error,
          state,
          nextRetryAt: retryAt ?? null,
          failures,
        }),
      );
    } catch (error) {
      // Not recorded: the lease lapses and the delivery is sent again, which at-least-once allows.
      this.options.onError?.(error);
    }
  }

  /** The HMAC key of a merchant's sealed secret, opened once per secret (a rotation seals a new one). */
  private keyOf(merchantId: string, sealedSecret: string): Buffer {
    let key = this.keys.get(sealedSecret);
    if (!key) {
      if (this.keys.size > 10_000) this.keys.clear();
      key = secretKey(this.store.secrets.open(sealedSecret, bindings.webhookSecret(merchantId)));
      this.keys.set(sealedSecret, key);
    }
    return key;
  }
}
