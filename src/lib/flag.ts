/** A yes/no setting from the environment: `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off` (any case); unset or empty is `fallback`. */
export function flag(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}
