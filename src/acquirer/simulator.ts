/**
 * The test-mode acquirer: answers per the test scenarios of docs/decisions.md#test-scenarios (the amount's cents).
 * Only test-mode payments ever reach it (see select.ts). Idempotency keys are honoured
 * like a real acquirer's: the same key returns the first answer.
 */
import { randomBase62, sha256Hex } from '../lib/tokens.ts';
import { findCurrency } from '../ground/amount.ts';
import type { AcquirerConnector, AuthoriseRequest, AuthoriseResult, ModificationRequest, ModificationResult, Served } from './connector.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { refundRefusals, scenarioFor } from '../ground/test-scenarios.ts';

const REMEMBERED_KEYS = 10_000;

export class SimulatedAcquirer implements AcquirerConnector {
  readonly name = 'simulator';
  /** Every method, in every currency: test mode shows each of them (docs/decisions.md#test-scenarios). */
  readonly serves: Served = { methods: paymentMethods, currencies: 'all' };
  private readonly answers = new Map<string, unknown>();
  /** Authorisations by acquirer reference, to refuse a capture of something never authorised. */
  private readonly authorisations = new Map<string, { amountMinor: number; state: 'authorised' | 'captured' | 'reversed' }>();

  async authorise(request: AuthoriseRequest, idempotencyKey: string): Promise<AuthoriseResult> {
    if (request.mode !== 'test') throw new Error('the simulated acquirer serves test mode only');
    const { instrument } = request;
    // A method paid elsewhere: its simulated page under the payment's own, where the tester picks the outcome (docs/payment-methods.md "Test mode").
    // Its reference follows from the key, so every process sends the customer to the same place.
    if (instrument.kind === 'redirect')
      return { outcome: 'redirect', url: `${instrument.paymentPageUrl}/simulator`, acquirerReference: `sim_${sha256Hex(idempotencyKey).slice(0, 24)}` };
    return this.once(`authorise:${idempotencyKey}`, () => {
      const scenario = scenarioFor(request.amountMinor, request.exponent);
      const acquirerReference = `sim_${randomBase62(20)}`;
      switch (scenario.acquirer) {
        case 'authorised':
          this.remember(acquirerReference, { amountMinor: request.amountMinor, state: request.captureNow ? 'captured' : 'authorised' });
          return { outcome: 'authorised', acquirerReference, authorisationCode: String(100000 + Math.floor(Math.random() * 900000)) };
        case 'timeout':
          return { outcome: 'unknown', reason: 'the simulated acquirer did not answer in time' };
        default:
          return { outcome: 'declined', failureCode: scenario.acquirer, acquirerReference };
      }
    });
  }

  /**
   * An authorisation the test helper declares made (`POST /test/complete` on an authorise
   * payment): remembered as one answered here, so that it is captured or reversed alike.
   */
  hold(amountMinor: number): string {
    const acquirerReference = `sim_${randomBase62(20)}`;
    this.remember(acquirerReference, { amountMinor, state: 'authorised' });
    return acquirerReference;
  }

  async capture(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.once(`capture:${idempotencyKey}`, () => this.follow(request, 'authorised', 'captured'));
  }

  async reversal(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.once(`reversal:${idempotencyKey}`, () => this.follow(request, 'authorised', 'reversed'));
  }

  /** Whatever the authorisation did is undone at once: the test helper's late payment given back (docs/payment-methods.md "Test mode"). */
  async cancelOrRefund(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.once(`cancelOrRefund:${idempotencyKey}`, () => {
      const authorisation = this.authorisations.get(request.acquirerReference);
      if (authorisation) authorisation.state = 'reversed';
      return { outcome: 'done', acquirerReference: `sim_${randomBase62(20)}` };
    });
  }

  async refund(request: ModificationRequest, idempotencyKey: string): Promise<ModificationResult> {
    return this.once(`refund:${idempotencyKey}`, () => {
      const currency = findCurrency(request.currency);
      if (!currency) return { outcome: 'refused', reason: 'unknown currency' };
      // The refund's own cents pick its outcome, as a payment's do (ground/test-scenarios.ts).
      const refusal = refundRefusals[scenarioFor(request.amountMinor, currency.exponent).acquirer];
      if (refusal) return { outcome: 'refused', reason: refusal };
      return { outcome: 'done', acquirerReference: `sim_${randomBase62(20)}` };
    });
  }

  private follow(request: ModificationRequest, from: 'authorised', to: 'captured' | 'reversed'): ModificationResult {
    const authorisation = this.authorisations.get(request.acquirerReference);
    // A simulator restarted since the authorisation has forgotten it: accept, as the authorisation was real.
    if (authorisation) {
      if (authorisation.state !== from) return { outcome: 'refused', reason: `the authorisation is already ${authorisation.state}` };
      if (request.amountMinor > authorisation.amountMinor) return { outcome: 'refused', reason: 'more than the authorised amount' };
      authorisation.state = to;
    }
    return { outcome: 'done', acquirerReference: `sim_${randomBase62(20)}` };
  }

  private once<T>(key: string, act: () => T): T {
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const answer = act();
    if (this.answers.size >= REMEMBERED_KEYS) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
    return answer;
  }

  private remember(reference: string, authorisation: { amountMinor: number; state: 'authorised' | 'captured' | 'reversed' }) {
    if (this.authorisations.size >= REMEMBERED_KEYS) this.authorisations.delete(this.authorisations.keys().next().value!);
    this.authorisations.set(reference, authorisation);
  }
}
