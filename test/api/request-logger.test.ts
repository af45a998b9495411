/** The request logger (api/request-logger.ts): pino's child, made only for a line that is written. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { requestLogger } from '../../src/api/request-logger.ts';

function parentWithLines(level: string) {
  const lines: Record<string, unknown>[] = [];
  const parent = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let children = 0;
  const child = parent.child.bind(parent);
  parent.child = ((bindings, options) => {
    children++;
    return child(bindings, options);
  }) as typeof parent.child;
  return { parent, lines, children: () => children };
}

test('a line at a level the parent drops makes no child and writes nothing', () => {
  const { parent, lines, children } = parentWithLines('warn');
  const log = requestLogger(parent, { reqId: 'r-1' }, {});
  log.info('not written');
  log.debug({ detail: 1 }, 'not written either');
  assert.equal(children(), 0);
  assert.deepEqual(lines, []);
  assert.equal(log.level, 'warn');
});

test('a written line carries the bindings, and the child is made once', () => {
  const { parent, lines, children } = parentWithLines('info');
  const log = requestLogger(parent, { reqId: 'r-2' }, {});
  log.warn({ reference: 'tr_1' }, 'first');
  log.info('second');
  assert.equal(children(), 1);
  assert.deepEqual(
    lines.map(({ reqId, reference, msg, level }) => ({ reqId, reference, msg, level })),
    [
      { reqId: 'r-2', reference: 'tr_1', msg: 'first', level: 40 },
      { reqId: 'r-2', reference: undefined, msg: 'second', level: 30 },
    ],
  );
});

test('a route level of its own applies to the request', () => {
  const { parent, lines } = parentWithLines('warn');
  const log = requestLogger(parent, { reqId: 'r-3' }, { level: 'debug' });
  assert.equal(log.level, 'debug');
  log.debug('written at the route level');
  assert.deepEqual(
    lines.map(({ reqId, msg }) => ({ reqId, msg })),
    [{ reqId: 'r-3', msg: 'written at the route level' }],
  );
});
