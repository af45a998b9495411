/**
 * The one runner of operations (operation.ts): it owns the order of the stages, the unit
 * of work around `commit`, the release of a reservation when acting fails, and for the
 * merchant API the Idempotency-Reference (docs/decisions.md#decisions-where-the-api-contract-is-silent, idempotency.ts).
 */
import { IdempotencyRecord, runIdempotent, type MerchantAnswer } from './idempotency.ts';
import { Stop, type AnyOperation, type Context, type Operation } from './operation.ts';

export type { MerchantAnswer } from './idempotency.ts';

/** Runs an operation where no Idempotency-Reference applies: pages, workers, the command line. */
export async function run<Caller, Body, Answer>(op: AnyOperation<Caller, Body, Answer>, body: Body, ctx: Context<Caller>): Promise<Answer> {
  const acted = await prepare(op, body, ctx);
  if (acted instanceof Stop) return acted.answer;
  const out = await ctx.ports.store.transact((tx) => op.commit(tx, acted, ctx));
  const answer = op.answer(out, ctx);
  await op.after?.(out, acted, ctx);
  return answer;
}

/** Operations running after their caller was answered; a stopping server waits for them (`settleLaterRuns`). */
const later = new Set<Promise<unknown>>();

/**
 * Runs an operation after the caller's answer (the wallet token paid after the `pending`
 * payment was answered, docs/api.md#create-a-payment, docs/api.md#post-a-wallet-token). Its failure is logged: nobody waits for it.
 */
export function runLater<Caller, Body>(op: AnyOperation<Caller, Body>, body: Body, ctx: Context<Caller>, reference: string): void {
  const running = run(op, body, ctx).catch((error) => ctx.log.error({ err: error, reference }, `${op.name} failed`));
  later.add(running);
  void running.finally(() => later.delete(running));
}

export async function settleLaterRuns(): Promise<void> {
  await Promise.all(later);
}

/** The merchant's own callers, as the idempotency scope needs them. */
interface Merchant {
  merchantId: string;
  mode: 'test' | 'live';
}

/**
 * Runs an operation for a merchant API request. A Problem raised before the unit of work
 * (validation, a refusal) is raised inside it instead, so that with an Idempotency-Reference
 * it is recorded and replayed like a success; the answer is recorded in the same unit as
 * the operation's own writes, so both commit or neither does.
 */
export async function runForMerchant<Caller extends Merchant, Body>(
  op: AnyOperation<Caller, Body>,
  body: Body,
  ctx: Context<Caller>,
  idempotencyReference: string | undefined,
): Promise<MerchantAnswer> {
  const other = op.handsOver?.(body);
  if (other) return runForMerchant(other, body, ctx, idempotencyReference);
  const scope = { merchantId: ctx.caller.merchantId, mode: ctx.caller.mode, route: op.scope ?? op.name };
  const held = op.reserve && IdempotencyRecord.of(scope, idempotencyReference, body, ctx.ports.links);
  if (held) return runHeld(op, body, ctx, held);
  let acted: unknown;
  let failure: { error: unknown } | undefined;
  try {
    acted = await prepare(op, body, ctx);
  } catch (error) {
    if (idempotencyReference === undefined) throw error;
    failure = { error };
  }
  if (acted instanceof Stop) return { status: 200, body: acted.answer };
  let out: unknown;
  const outcome = await runIdempotent(ctx.ports.store, ctx.ports.links, { scope, idempotencyReference, body }, async (tx) => {
    if (failure) throw failure.error;
    out = await op.commit(tx, acted, ctx);
    return { status: 200, body: op.answer(out, ctx), created: op.created?.(out) };
  });
  if (!outcome.replayed && outcome.status < 400) await op.after?.(out, acted, ctx);
  return outcome;
}

/**
 * An operation that reserves before acting (a refund's amount, a capture's claim), under an
 * Idempotency-Reference: the record is held in flight from the reservation's unit on, naming the
 * transaction reserved, so a second request with the reference gets 409 (then the answer, or
 * once the claim's lease ran out the transaction as it is) and never reserves a second time.
 */
async function runHeld<Caller, Body>(op: AnyOperation<Caller, Body>, body: Body, ctx: Context<Caller>, record: IdempotencyRecord): Promise<MerchantAnswer> {
  const { store } = ctx.ports;
  try {
    const input = op.parse(body, ctx);
    const plan = op.decide(await op.load(input, ctx), input, ctx);
    const reserved = await record.hold(
      store,
      (tx) => op.reserve!(tx, plan, ctx),
      (done) => (done instanceof Stop ? undefined : op.claimed?.(done)),
    );
    if (reserved instanceof Stop) return await store.transact((tx) => record.record(tx, { status: 200, body: reserved.answer }));
    const acted = await actOrRelease(op, reserved, ctx);
    let out: unknown;
    const outcome = await store.transact(async (tx) => {
      out = await op.commit(tx, acted, ctx);
      return record.record(tx, { status: 200, body: op.answer(out, ctx) });
    });
    await op.after?.(out, acted, ctx);
    return outcome;
  } catch (error) {
    return record.recover(store, error);
  }
}

/** parse → load → decide → reserve → act: everything before the committing unit of work. */
/**
 * An operation's parse, load and decide, and nothing more: what it would do (its plan, and the
 * state it decided on), or the Problem it would answer. Nothing is reserved, asked or written;
 * the console's previews read an action's money from it (operations/preview.ts), so they never
 * repeat a rule, and every run starts with it.
 */
export async function planOperation<Caller, Body, Input, State, Plan, Acted, Out, Answer>(
  op: Operation<Caller, Body, Input, State, Plan, Acted, Out, Answer>,
  body: Body,
  ctx: Context<Caller>,
): Promise<Planned<State, Plan>> {
  const input = op.parse(body, ctx);
  const state = await op.load(input, ctx);
  return { state, plan: op.decide(state, input, ctx) };
}

export interface Planned<State, Plan> {
  state: State;
  plan: Plan;
}

async function prepare<Caller, Body, Answer>(op: AnyOperation<Caller, Body, Answer>, body: Body, ctx: Context<Caller>): Promise<unknown> {
  let { plan } = await planOperation(op, body, ctx);
  const { reserve } = op;
  if (reserve) {
    const reserved = await ctx.ports.store.transact((tx) => reserve(tx, plan, ctx));
    if (reserved instanceof Stop) return reserved;
    plan = reserved;
  }
  return actOrRelease(op, plan, ctx);
}

/** act; when it fails, the reservation (if any) is given back in its own unit of work. */
async function actOrRelease<Caller>(op: AnyOperation<Caller>, plan: unknown, ctx: Context<Caller>): Promise<unknown> {
  const { reserve, release, act } = op;
  if (!act) return plan;
  try {
    return await act(plan, ctx);
  } catch (error) {
    if (reserve && release) await ctx.ports.store.transact((tx) => release(tx, plan, ctx));
    throw error;
  }
}
