/**
 * An acquirer connector as the metrics see it: every call timed by acquirer, call and outcome,
 * and a call that throws counted as an error (lib/metrics.ts). The connector underneath is looked
 * up at each call, so what it does stays its own.
 */
import { acquirerCallDuration, acquirerCallErrors } from '../lib/metrics.ts';
import type { AcquirerConnector, AuthenticationStep } from './connector.ts';

export function observed(connector: AcquirerConnector): AcquirerConnector {
  const timed = async <Result extends { outcome: string }>(call: string, send: () => Promise<Result>): Promise<Result> => {
    const stop = acquirerCallDuration.startTimer({ acquirer: connector.name, call });
    try {
      const result = await send();
      stop({ outcome: result.outcome });
      return result;
    } catch (error) {
      stop({ outcome: 'error' });
      acquirerCallErrors.inc({ acquirer: connector.name, call });
      throw error;
    }
  };
  // An authentication step is timed by what it came to: authorised, declined, unknown, or the customer's next step.
  const stepped = (call: string, send: () => Promise<AuthenticationStep>) =>
    timed(call, async () => {
      const step = await send();
      return { step, outcome: step.step === 'done' ? step.result.outcome : step.step };
    }).then(({ step }) => step);
  const { authentication } = connector;
  return {
    name: connector.name,
    serves: connector.serves,
    ...(authentication && {
      authentication: {
        authorise: (request, key) => stepped('authorise-authenticating', () => authentication.authorise(request, key)),
        continue: (request, key) => stepped(`authorise-after-${request.after.step}`, () => authentication.continue(request, key)),
      },
    }),
    authorise: (request, key) => timed('authorise', () => connector.authorise(request, key)),
    capture: (request, key) => timed('capture', () => connector.capture(request, key)),
    refund: (request, key) => timed('refund', () => connector.refund(request, key)),
    reversal: (request, key) => timed('reversal', () => connector.reversal(request, key)),
    cancelOrRefund: (request, key) => timed('cancelOrRefund', () => connector.cancelOrRefund(request, key)),
    ...(connector.completeRedirect
      ? {
          completeRedirect: (request, key) =>
            timed('completeRedirect', async () => {
              const returned = await connector.completeRedirect!(request, key);
              return { returned, outcome: returned.result.outcome };
            }).then(({ returned }) => returned),
        }
      : {}),
    ...(connector.technicalCancel ? { technicalCancel: (request, key) => timed('technicalCancel', () => connector.technicalCancel!(request, key)) } : {}),
  };
}
