/**
 * Which acquirer a payment goes to: test mode always the simulator, live mode the
 * configured connector. Live keys never reach the simulator; a live payment with no
 * connector configured is refused with a clear error.
 */
import { Problem } from '../ground/problem.ts';
import type { Mode } from '../store/schema.ts';
import type { AcquirerConnector } from './connector.ts';
import { SimulatedAcquirer } from './simulator.ts';
import { observed } from './observed.ts';

/** Live connectors by the name given in ACQUIRER_CONNECTOR. None is built yet. */
export const liveConnectors: Record<string, () => AcquirerConnector> = {};

export class AcquirerUnavailable extends Problem {
  constructor() {
    super(
      503,
      'No acquirer configured',
      'Live payments need an acquirer connector, and this Kassa has none configured (ACQUIRER_CONNECTOR). Test keys use the built-in simulator.',
    );
  }
}

export class Acquirers {
  readonly simulator = new SimulatedAcquirer();
  /** What payments use: the connectors, timed and counted (observed.ts). */
  private readonly test = observed(this.simulator);
  private readonly live: AcquirerConnector | undefined;

  constructor(liveConnectorName: string | undefined) {
    if (liveConnectorName !== undefined) {
      const make = liveConnectors[liveConnectorName];
      if (!make) throw new Error(`ACQUIRER_CONNECTOR "${liveConnectorName}" is not a known connector`);
      this.live = observed(make());
    }
  }

  /** Whether payments of `mode` can be authorised at all. */
  available(mode: Mode): boolean {
    return mode === 'test' || this.live !== undefined;
  }

  forMode(mode: Mode): AcquirerConnector {
    if (mode === 'test') return this.test;
    if (!this.live) throw new AcquirerUnavailable();
    return this.live;
  }
}
