/**
 * An open-loop load generator: requests leave at fixed intervals whatever the answers do, as
 * independent customers arrive. autocannon's `overallRate` is not that: each of its connections
 * waits for its answer before sending the next request, so a server that stalls is offered less
 * load and its stall shows in few samples (coordinated omission). Here a late answer delays
 * nothing: the next request goes out on time on another keep-alive connection (opened if every
 * one is busy), and each latency is counted from the moment its request was due, so a generator
 * running late counts against the figure rather than hiding it.
 */
import http from 'node:http';

export interface OpenLoopLoad {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** A unique Idempotency-Reference per request starts with this. */
  idempotencyPrefix: string;
  ratePerSecond: number;
  seconds: number;
}

export interface OpenLoopResult {
  offeredPerSecond: number;
  sent: number;
  completed: number;
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export async function openLoop(load: OpenLoopLoad): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const total = Math.max(1, Math.round(load.ratePerSecond * load.seconds));
  const intervalMs = 1000 / load.ratePerSecond;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let settled = 0;
  const started = performance.now();

  await new Promise<void>((resolve) => {
    const done = () => {
      if (++settled === total) resolve();
    };
    const fire = (index: number) => {
      const due = started + index * intervalMs;
      const request = http.request(
        load.url,
        {
          method: 'POST',
          agent,
          headers: { ...load.headers, 'content-length': Buffer.byteLength(load.body), 'idempotency-reference': `${load.idempotencyPrefix}-${index}` },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            latencies.push(performance.now() - due);
            if (response.statusCode! < 200 || response.statusCode! >= 300) non2xx++;
            done();
          });
        },
      );
      request.on('error', () => {
        errors++;
        done();
      });
      request.end(load.body);
    };
    let sent = 0;
    // Timers fire at best every millisecond: each tick sends every request that has come due.
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * intervalMs <= now) fire(sent++);
      if (sent < total) setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
    };
    tick();
  });
  agent.destroy();

  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
  return {
    offeredPerSecond: load.ratePerSecond,
    sent: total,
    completed: latencies.length,
    non2xx,
    errors,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    maxMs: latencies.at(-1) ?? Number.NaN,
  };
}
