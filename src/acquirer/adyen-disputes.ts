/**
 * Adyen's Disputes API (`DisputeService-v30.json`, docs/acquirers.md "Disputes"): `/acceptDispute`,
 * `/retrieveApplicableDefenseReasons` and `/defendDispute`, each `{merchantAccountCode,
 * disputePspReference, …}` with the connection's API key in `x-api-key`, at the root the connection
 * names (`kassa acquirer set --disputes-endpoint`, e.g.
 * `https://ca-test.adyen.com/ca/services/DisputeService/v30`). Every answer carries
 * `disputeServiceResult: {success, errorMessage?}`; a 5xx, a timeout or a network error is no
 * answer that can be trusted.
 */
import type { DefenseReasons, DisputeAnswer, DisputeService } from './dispute-service.ts';
import { callAdyen, type AdyenAnswer } from './adyen-http.ts';

export interface AdyenDisputeSettings {
  /** The Disputes API's root, without a trailing slash. */
  endpoint: string;
  merchantAccount: string;
  apiKey: string;
  timeoutMs: number;
}

type Answer = AdyenAnswer;

export class AdyenDisputes implements DisputeService {
  constructor(private readonly settings: AdyenDisputeSettings) {}

  async accept(disputeReference: string): Promise<DisputeAnswer> {
    return resultOf(await this.post('/acceptDispute', { disputePspReference: disputeReference }));
  }

  async defenseReasons(disputeReference: string): Promise<DefenseReasons> {
    const answer = await this.post('/retrieveApplicableDefenseReasons', { disputePspReference: disputeReference });
    if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
    const result = resultOf(answer);
    if (result.outcome !== 'done') return result;
    const reasons = (answer.body.defenseReasons ?? []) as { defenseReasonCode?: unknown }[];
    return { outcome: 'done', reasons: reasons.map((reason) => reason.defenseReasonCode).filter((code): code is string => typeof code === 'string') };
  }

  async defend(disputeReference: string, defenseReasonCode: string): Promise<DisputeAnswer> {
    return resultOf(await this.post('/defendDispute', { disputePspReference: disputeReference, defenseReasonCode }));
  }

  private post(path: string, body: Record<string, unknown>): Promise<Answer> {
    const { endpoint, apiKey, timeoutMs, merchantAccount } = this.settings;
    return callAdyen(`${endpoint.replace(/\/+$/, '')}${path}`, { merchantAccountCode: merchantAccount, ...body }, { apiKey, timeoutMs });
  }
}

/** `disputeServiceResult.success` is Adyen's yes; anything else is its refusal, in its words. */
function resultOf(answer: Answer): DisputeAnswer {
  if (answer.status === 'unknown') return { outcome: 'unknown', reason: answer.reason };
  const result = answer.body.disputeServiceResult as { success?: unknown; errorMessage?: unknown } | undefined;
  if (answer.status === 200 && result?.success === true) return { outcome: 'done' };
  const said = typeof result?.errorMessage === 'string' ? result.errorMessage : typeof answer.body.message === 'string' ? answer.body.message : undefined;
  return { outcome: 'refused', reason: `Adyen answered ${answer.status}${said ? `: ${said}` : ''}` };
}
