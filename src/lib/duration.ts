/**
 * ISO 8601 durations (`PT15M`, `P1DT2H`) as used by `expirationDuration`. Only the
 * exact units are accepted: years and months have no fixed length, so they are refused.
 */
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Milliseconds of an ISO 8601 duration, or undefined when it is not one Kassa accepts. */
export function parseIsoDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, weeks, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0));
  return ((((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
}
