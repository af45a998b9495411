/**
 * The runner of operations (docs/architecture.md "Operations") for an operation that reserves
 * before acting, under an Idempotency-Reference (docs/decisions.md#idempotency): the record is held from the
 * reservation on, so simultaneous duplicates reserve once; a kept Problem is replayed without
 * reserving again; an error that is not kept frees the reference for a retry. On SQLite and
 * PostgreSQL, through the real store.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, suiteApp } from '../support/app.ts';
import { defaultSettings, type Caller } from '../../src/merchants/merchants.ts';
import { Problem } from '../../src/ground/problem.ts';
import { merchantOperation } from '../../src/payments/runner/operation.ts';
import { runForMerchant } from '../../src/payments/runner/run.ts';

/** What the fake operation's act does with its plan. */
type Behaviour = 'succeed' | 'refuse' | 'crash';

function reservingOperation() {
  const counts = { reserved: 0, released: 0 };
  const op = merchantOperation({
    name: 'reserveForTest',
    parse: (body: Record<string, unknown>) => ({ behaviour: body.behaviour as Behaviour }),
    load: () => undefined,
    decide: (_nothing, input) => input,
    reserve: async (_tx, plan) => {
      counts.reserved++;
      return plan;
    },
    release: async () => {
      counts.released++;
    },
    act: async (plan) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (plan.behaviour === 'refuse') throw new Problem('validationFailed', { errors: [{ field: '/behaviour', code: 'refused', message: 'is refused' }] });
      if (plan.behaviour === 'crash') throw new Error('the acquirer connection broke');
      return plan;
    },
    commit: async (_tx, plan) => plan,
    answer: () => ({ reserved: counts.reserved }),
  });
  return { op, counts };
}

for (const backend of backends) {
  describe(`operations that reserve, with an Idempotency-Reference (${backend})`, () => {
    const t = suiteApp(backend);
    const context = () => {
      const caller: Caller = { merchantId: t.merchant.merchantId, merchantName: 'Test', mode: 'test', settings: defaultSettings() };
      return { ports: t.app.ports, caller, now: Date.now(), log: { error: () => {} } };
    };
    const outcomeOf = (run: Promise<{ status: number; replayed?: boolean }>) =>
      run.then(
        (outcome) => (outcome.replayed ? 'replayed' : String(outcome.status)),
        (error: Problem) => String(error.status),
      );

    test('ten simultaneous duplicates reserve once; the others are told it is in flight or get its answer', async () => {
      const { op, counts } = reservingOperation();
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => outcomeOf(runForMerchant(op, { behaviour: 'succeed' }, context(), 'same-ref'))));
      assert.equal(counts.reserved, 1);
      assert.equal(outcomes.filter((o) => o === '200').length, 1);
      assert.ok(
        outcomes.every((o) => ['200', '409', 'replayed'].includes(o)),
        outcomes.join(),
      );
      const replay = await runForMerchant(op, { behaviour: 'succeed' }, context(), 'same-ref');
      assert.equal(replay.replayed, true);
      assert.equal(replay.json, JSON.stringify({ reserved: 1 }));
      assert.equal(counts.reserved, 1);
    });

    test('a refusal while acting is kept: released once, replayed without a second reservation', async () => {
      const { op, counts } = reservingOperation();
      await assert.rejects(runForMerchant(op, { behaviour: 'refuse' }, context(), 'refused-ref'), (error: Problem) => error.status === 422);
      const replay = await runForMerchant(op, { behaviour: 'refuse' }, context(), 'refused-ref');
      assert.equal(replay.status, 422);
      assert.equal(replay.replayed, true);
      assert.deepEqual(counts, { reserved: 1, released: 1 });
    });

    test('an error that is not kept frees the reference: the retry reserves again', async () => {
      const { op, counts } = reservingOperation();
      await assert.rejects(runForMerchant(op, { behaviour: 'crash' }, context(), 'crash-ref'), /connection broke/);
      const retry = await runForMerchant(op, { behaviour: 'succeed' }, context(), 'crash-ref');
      assert.equal(retry.status, 200);
      assert.equal(retry.replayed, undefined);
      assert.deepEqual(counts, { reserved: 2, released: 1 });
    });

    test('the reference with another body is 422 and reserves nothing', async () => {
      const { op, counts } = reservingOperation();
      await runForMerchant(op, { behaviour: 'succeed' }, context(), 'body-ref');
      await assert.rejects(
        runForMerchant(op, { behaviour: 'refuse' }, context(), 'body-ref'),
        (error: Problem) => error.status === 422 && /different request body/.test(error.detail ?? ''),
      );
      assert.equal(counts.reserved, 1);
    });
  });
}
