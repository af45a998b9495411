/** Request fields that several operations parse the same way, and the engine run over an operation's own small table. */
import { Problem } from '../../ground/problem.ts';
import type { Mode } from '../../store/schema.ts';
import type { Config } from '../../config.ts';
import { webhookReach } from '../../events/ssrf.ts';
import { checkTable, fail } from '../../ground/field-engine.ts';
import { compileTable, type CompiledRequestTable, type RequestFieldSpec, type RequestRules, type RequestRun } from '../requests/rows.ts';
import { identifierShaped } from '../../lib/tokens.ts';

const MAX_REFERENCE_LENGTH = 64;

/**
 * `reference`: the Kassa reference of an existing transaction (docs/api.md#the-payment-object: at most 64 characters). One
 * that no transaction can have is refused before anything is read (and the NUL check of plain text
 * rows does not apply: such a reference names nothing either way).
 */
export const referenceField = {
  required: true,
  format: (value, field, run) => {
    if (typeof value === 'string' && value.length > MAX_REFERENCE_LENGTH) return fail(run, field, 'max_length', `must be at most ${MAX_REFERENCE_LENGTH} characters`);
    return typeof value === 'string' && identifierShaped(value) ? value : fail(run, field, 'format', 'must be a transaction reference');
  },
  schema: { type: 'string', maxLength: MAX_REFERENCE_LENGTH, pattern: '^[0-9A-Za-z_-]+$', description: 'The Kassa reference of a transaction (`tr_…`).' },
} satisfies RequestFieldSpec;

/** The rules of a table without URL fields: the narrowest, as no row reads them. */
const NO_URL_RULES: RequestRules = { webhooks: { httpsOnly: true, internal: false }, returnUrlSchemes: [] };

/** A body checked against a table of no flow and no merchant setting: its valid fields, or the Problem naming every failing one. */
export function parseFields(table: CompiledRequestTable, body: Record<string, unknown>, rules: RequestRules = NO_URL_RULES): Record<string, unknown> {
  const run: RequestRun = { flow: undefined, settings: undefined, ...rules, errors: [], values: {} };
  checkTable(table, body, run, run.values);
  if (run.errors.length > 0) throw new Problem('validationFailed', { errors: run.errors });
  return run.values;
}

/** The body of an operation on one transaction that takes nothing else (a reversal). */
export const referenceTable = compileTable({ reference: referenceField });

export const parseReference = (body: Record<string, unknown>): string => parseFields(referenceTable, body).reference as string;

/** The request rules of a caller's mode (requests/rows.ts): where its webhookUrl may point, which returnUrl schemes the operator allows. */
export const requestRules = (mode: Mode, config: Pick<Config, 'webhooks' | 'returnUrlSchemes'>): RequestRules => ({
  webhooks: webhookReach(mode, config.webhooks),
  returnUrlSchemes: config.returnUrlSchemes,
});
