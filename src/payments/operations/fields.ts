/** Request fields that several operations parse the same way. */
import type { Mode } from '../../store/schema.ts';
import type { Config } from '../../config.ts';
import { webhookReach } from '../../events/ssrf.ts';
import type { RequestRules } from '../common-fields.ts';

/** The request rules of a caller's mode (common-fields.ts): where its webhookUrl may point, which returnUrl schemes the operator allows. */
export const requestRules = (mode: Mode, config: Pick<Config, 'webhooks' | 'returnUrlSchemes'>): RequestRules => ({
  webhooks: webhookReach(mode, config.webhooks),
  returnUrlSchemes: config.returnUrlSchemes,
});
