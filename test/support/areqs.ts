/**
 * Test support: the AReqs Kassa's 3DS Server sends the simulated Directory Server, recorded for
 * each test of the suite this is called in (emptied before each one, the simulator restored after).
 */
import { afterEach, beforeEach, mock } from 'node:test';
import { SimulatedDirectoryServer } from '../../src/threeds/ds-simulator.ts';

export function recordedAReqs(): Record<string, unknown>[] {
  const areqs: Record<string, unknown>[] = [];
  beforeEach(() => {
    areqs.length = 0;
    const original = SimulatedDirectoryServer.prototype.authenticate;
    mock.method(SimulatedDirectoryServer.prototype, 'authenticate', function (this: SimulatedDirectoryServer, ...args: Parameters<typeof original>) {
      areqs.push(args[1]);
      return original.apply(this, args);
    });
  });
  afterEach(() => mock.restoreAll());
  return areqs;
}
