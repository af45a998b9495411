/**
 * The one shape of everything that can happen to a payment (docs/architecture.md#ports-and-adapters, docs/architecture.md
 * "Operations"). Each operation is one file in this folder exporting one `Operation`, run
 * by `run.ts`; routes, pages, workers and the command line call operations and never
 * repeat their checks.
 *
 *   parse   → input    pure: the request, or a Problem naming every failing field
 *   load    → state    reads through store/ only
 *   decide  → plan     pure: what should happen, or the Problem saying why not
 *   reserve → plan     optional unit of work taken before acting (a processing lease, an
 *                      attempt, a claim on the acquirer: claims.ts): what `act` must hold; may
 *                      `stop` with the answer
 *   act     → acted    the outside world (acquirer, 3-D Secure server, wallet), no unit of
 *                      work held across a call (an authorisation's write-ahead record commits in
 *                      its own unit just before it is sent, card/authorise.ts `authorise`)
 *   commit  → out      one unit of work: compare-and-set, events, outbox
 *   answer  → answer   what the caller receives
 *   after              optional work once committed and answered (a wallet token paid)
 *
 * Network calls never run inside a unit of work, and a unit does no more CPU work than
 * it must (a SQLite commit holds the writer meanwhile).
 */
import type { Db } from '../../store/store.ts';
import type { Ports } from '../ports.ts';
import type { Caller } from '../../merchants/merchants.ts';
import type { PaymentContext } from '../payment-context.ts';
import type { SerializableRow } from '../serialize.ts';

export interface Log {
  error(data: object, message: string): void;
  /** What an operator should look at that is no fault of Kassa's (an acquirer's word not about its payment); a worker's log may have none. */
  warn?(data: object, message: string): void;
}

/** What every stage may know besides its own input: one small object, never long argument lists. */
export interface Context<Caller = unknown> {
  ports: Ports;
  caller: Caller;
  /** Epoch ms at which the operation runs (one clock for all its stages). */
  now: number;
  log: Log;
}

export interface Operation<Caller, Body, Input, State, Plan, Acted, Out, Answer> {
  /** What happens, in the payment domain's words. */
  name: string;
  /** The idempotency scope of docs/decisions.md#decisions-where-the-api-contract-is-silent ("merchant + mode + route"): the route's own name, kept stable for stored records. */
  scope?: string;
  /**
   * A request of this operation's route that another operation of the same caller runs instead,
   * recognised from the body before anything else (createPayment: an off-session payment is
   * payOffSession's, which authorises while answering); undefined: this operation runs it.
   */
  handsOver?(body: Body): AnyOperation<Caller, Body> | undefined;
  parse(body: Body, ctx: Context<Caller>): Input;
  load(input: Input, ctx: Context<Caller>): State | Promise<State>;
  decide(state: State, input: Input, ctx: Context<Caller>): Plan;
  reserve?(tx: Db, plan: Plan, ctx: Context<Caller>): Promise<NoInfer<Plan> | Stop<NoInfer<Answer>>>;
  /**
   * The transaction `reserve` made or claimed for `act` (a refund, a capture; a reversal's
   * authorisation): a held Idempotency-Reference names it, so a retry of a request that never
   * finished is answered from its row (idempotency.ts).
   */
  claimed?(plan: NoInfer<Plan>): string;
  /** When `act` fails after `reserve`: give back what was reserved (in its own unit of work). */
  release?(tx: Db, plan: NoInfer<Plan>, ctx: Context<Caller>): Promise<void>;
  act?(plan: Plan, ctx: Context<Caller>): Promise<Acted>;
  commit(tx: Db, acted: Acted, ctx: Context<Caller>): Promise<Out>;
  answer(out: Out, ctx: Context<Caller>): Answer;
  /**
   * An operation that creates a transaction and answers with its payment object as created: the
   * new row. An Idempotency-Reference record then keeps the row's reference instead of a copy of
   * the answer, and a replay builds the answer again from the row (idempotency.ts).
   */
  created?(out: Out): SerializableRow;
  after?(out: Out, acted: Acted, ctx: Context<Caller>): void | Promise<void>;
}

/** Any operation, for the runner and the routes. */
// The runner takes every operation whatever its stages' own types; each stage is still checked where the operation is declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation<Caller = any, Body = any, Answer = any> = Operation<Caller, Body, any, any, any, any, any, Answer>;

/**
 * Declares an operation for one kind of caller; the identity, so that each stage's types
 * follow from the one before: `merchantOperation({ parse: (body: …) => …, load: (input, ctx) => … })`.
 */
export const operationFor =
  <Caller>() =>
  <Body, Input, State, Plan, Acted = Plan, Out = Acted, Answer = Out>(
    spec: Operation<Caller, Body, Input, State, Plan, Acted, Out, Answer>,
  ): Operation<Caller, Body, Input, State, Plan, Acted, Out, Answer> =>
    spec;

/** Called by a merchant through the API (or the console acting for one): the API key's merchant and mode. */
export const merchantOperation = operationFor<Caller>();
/** Called for the customer on a payment's own page or capability address: the payment and its merchant. */
export const customerOperation = operationFor<PaymentContext>();
/** Called by Kassa itself (a background worker) or an operator on the command line. */
export const systemOperation = operationFor<undefined>();

/** A reservation that ends the operation early with this answer (the payment is final already, or busy). */
export class Stop<Answer> {
  constructor(readonly answer: Answer) {}
}

export const stop = <Answer>(answer: Answer) => new Stop(answer);
