/**
 * Benchmark of the 3-D Secure 2 validation (target: ≤ 50 µs median for a fully
 * populated request): validates the complete example request many times after a
 * warm-up, bounded in time, and reports per-call timings.
 */
import { pathToFileURL } from 'node:url';
import { exampleThreeDSRequest } from '../src/threeds/example.ts';
import { validateThreeDS, type ThreeDSContext } from '../src/threeds/validate.ts';

const WARMUP_CALLS = 5_000;
const MAX_CALLS = 200_000;
const TIME_BUDGET_NS = 2_000_000_000n;

export async function measureThreeDSValidation(): Promise<{ medianMicros: number; p99Micros: number; iterations: number }> {
  const body = exampleThreeDSRequest();
  const ctx: ThreeDSContext = { operation: 'payment', usesVaultToken: false, merchantCapturesCardData: true };
  for (let i = 0; i < WARMUP_CALLS; i++) {
    if (validateThreeDS(body, ctx).errors.length > 0) throw new Error('the example request must be valid');
  }

  const samples: number[] = [];
  const start = process.hrtime.bigint();
  let iterations = 0;
  while (iterations < MAX_CALLS && process.hrtime.bigint() - start < TIME_BUDGET_NS) {
    const t0 = process.hrtime.bigint();
    validateThreeDS(body, ctx);
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
    iterations++;
  }
  samples.sort((a, b) => a - b);
  const at = (q: number): number => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  const round = (micros: number): number => Math.round(micros * 100) / 100;
  return { medianMicros: round(at(0.5)), p99Micros: round(at(0.99)), iterations };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureThreeDSValidation();
  console.log(`3-D Secure 2 validation (fully populated request): median ${result.medianMicros} µs, p99 ${result.p99Micros} µs over ${result.iterations} calls`);
}
