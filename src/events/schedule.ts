/**
 * The retry schedule (docs/webhooks.md#retries) as data: the wait after each failed
 * attempt. The first attempt is immediate; after the last wait's attempt also fails
 * the delivery is given up (9 attempts over about 2 days 21 hours).
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const defaultRetrySchedule: readonly number[] = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR];

/** When to try again after the `failures`-th failed attempt (1-based), or undefined when the delivery is given up. */
export function nextRetryAt(schedule: readonly number[], failures: number, now: number): number | undefined {
  const wait = schedule[failures - 1];
  return wait === undefined ? undefined : now + wait;
}
