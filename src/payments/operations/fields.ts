/** Request fields that several operations parse the same way. */
import { Problem } from '../../ground/problem.ts';
import type { Mode } from '../../store/schema.ts';
import type { Config } from '../../config.ts';
import { webhookReach } from '../../events/ssrf.ts';
import type { RequestRules } from '../common-fields.ts';
import { identifierShaped } from '../../lib/tokens.ts';

/** `reference`: the Kassa reference of an existing transaction (spec §2.1: at most 64 characters). */
export function parseReference(body: Record<string, unknown>): string {
  const { reference } = body;
  if (typeof reference !== 'string' || reference === '') throw Problem.validation([{ field: '/reference', code: 'required', message: 'is required' }]);
  if (reference.length > 64) throw Problem.validation([{ field: '/reference', code: 'max_length', message: 'must be at most 64 characters' }]);
  if (!identifierShaped(reference)) throw Problem.validation([{ field: '/reference', code: 'format', message: 'must be a transaction reference' }]);
  return reference;
}

/** The request rules of a caller's mode (common-fields.ts): where its webhookUrl may point, which returnUrl schemes the operator allows. */
export const requestRules = (mode: Mode, config: Pick<Config, 'webhooks' | 'returnUrlSchemes'>): RequestRules => ({
  webhooks: webhookReach(mode, config.webhooks),
  returnUrlSchemes: config.returnUrlSchemes,
});
