/**
 * The card payment's act when the acquirer authenticates (docs/acquirers.md "3-D Secure through
 * Adyen"): one authorisation that carries the browser, answered at once or after the issuer's
 * 3DS method and challenge in the page's hidden frame and pop-up; each step's end is told to the
 * acquirer, which answers with the next step or the authorisation.
 */
import type { AcquirerAuthentication, AuthenticationContinuation, CardData } from '../../acquirer/connector.ts';
import { ownerOf } from '../../store/transactions.ts';
import type { ThreeDSSessionRow } from '../../store/payment-pages.ts';
import type { Authentication } from '../../threeds/server.ts';
import { challengeIndicatorCode, browserSeen } from '../../threeds/areq.ts';
import type { AcquirerOutcome } from '../../threeds/by-acquirer.ts';
import { pageTokenOfPayment, payUrlOf, storedRequestOf } from '../serialize.ts';
import { flowOf } from '../flows.ts';
import { sealBinding } from './card-seal.ts';
import { storedCardUseOf } from './stored-card-use.ts';
import { shopperOf } from './shopper.ts';
import { authorisationKey, outcomeOfAuthorisation, paymentAmount, sendingAuthorisation } from './authorise.ts';
import type { CardOutcome, CardPaymentContext, CardPlan } from './steps.ts';

/** One of the payment page's own addresses (under payUrl), for the issuer to post back to. */
export function pageAddress({ ports, caller }: CardPaymentContext, path: string): string {
  return `${payUrlOf(ports.links.publicUrl, pageTokenOfPayment(caller.row, ports.links.secrets))}${path}`;
}

/**
 * act when the acquirer authenticates (docs/acquirers.md "3-D Secure through Adyen"): one
 * authorisation that carries the browser, answered at once or after the issuer's 3DS method
 * and challenge in the page's hidden frame and pop-up. The idempotency key is the attempt's,
 * as for an authorisation after Kassa's own 3-D Secure.
 */
export async function authoriseAuthenticating(authentication: AcquirerAuthentication, plan: CardPlan, ctx: CardPaymentContext): Promise<CardOutcome> {
  const { ports, caller, now } = ctx;
  const { row, merchant } = caller;
  const card = (plan.check as { card: CardData }).card;
  const stored = storedRequestOf(row);
  const data = stored.threeDS ?? { scaReady: 'no' as const };
  const { usesVaultToken } = flowOf(row.flow).threeDS;
  const windowSize = data.browserInfo?.challengeWindowSize ?? plan.browser.collected.challengeWindowSize ?? 'FULL_SCREEN';
  const idempotencyKey = authorisationKey(row.reference, `attempt-${plan.attempt}`);
  if (!(await sendingAuthorisation(ctx, idempotencyKey))) return { show: { step: 'busy' } };
  const outcome = await ports.acquirerThreeDS.start(authentication, {
    request: {
      ...paymentAmount(row),
      card,
      captureNow: row.type !== 'authorise',
      merchantName: merchant.name,
      shopper: shopperOf(row),
      browser: browserSeen({ data, collectedBrowserInfo: plan.browser.collected }),
      javascriptEnabled: data.browserInfo ? true : plan.browser.javascriptEnabled,
      challengeIndicator: challengeIndicatorCode({ kind: 'payment', usesVaultToken, storeInVault: stored.storeInVault ?? false, data }),
      notificationUrl: pageAddress(ctx, '/3ds/notify'),
      storedCard: storedCardUseOf(row, card),
    },
    idempotencyKey,
    windowSize,
    now,
  });
  return outcomeOfAcquirerStep(outcome, card, undefined, undefined, ctx);
}

/**
 * act of a 3-D Secure step's end when the acquirer authenticates: the acquirer is told how the
 * browser's step went (the 3DS method ran or not; the CRes's transStatus) with the session's
 * token, under a key of its own per session and step, and answers with the next step or the
 * authorisation.
 */
export async function continueByAcquirer(
  step: { card: CardData; sealedCard: string; session: ThreeDSSessionRow; after: AuthenticationContinuation['after']; authentication?: Authentication },
  ctx: CardPaymentContext,
): Promise<CardOutcome> {
  const { ports, caller, now } = ctx;
  const { row } = caller;
  const acquirer = await ports.acquirers.for(ownerOf(row));
  // The connection changed meanwhile to one that does not authenticate: nothing was authorised under this session.
  if (!acquirer.authentication) return outcomeOfAuthorisation({ outcome: 'declined', failureCode: 'processing_error' }, step.card, step.authentication, ctx);
  const idempotencyKey = authorisationKey(row.reference, `${step.session.id}:${step.after.step}`);
  if (!(await sendingAuthorisation(ctx, idempotencyKey))) return { show: { step: 'busy' } };
  const outcome = await ports.acquirerThreeDS.continue(acquirer.authentication, step.session, {
    request: { ...paymentAmount(row), captureNow: row.type !== 'authorise', after: step.after },
    idempotencyKey,
    now,
  });
  return outcomeOfAcquirerStep(outcome, step.card, step.sealedCard, step.authentication, ctx);
}

/** What the acquirer's answer shows the customer next: the authorisation's state change, or the browser's step with the card sealed to its session. */
function outcomeOfAcquirerStep(
  outcome: AcquirerOutcome,
  card: CardData,
  sealedCard: string | undefined,
  authentication: Authentication | undefined,
  ctx: CardPaymentContext,
): CardOutcome {
  if (outcome.kind === 'done') return outcomeOfAuthorisation(outcome.result, card, authentication, ctx);
  const { session } = outcome;
  const sealed = sealedCard ?? ctx.ports.sealer.seal(card, sealBinding(ctx.caller.row.reference, session.id), session.expires_at);
  if (outcome.kind === 'method') return { show: { step: 'method', session, methodUrl: outcome.methodUrl, sealedCard: sealed } };
  // The issuer echoes the acquirer's MD; Kassa's session and card come back in the TermUrl.
  if (outcome.kind === 'redirect')
    return { show: { step: 'redirect3ds1', acsUrl: outcome.issuerUrl, paReq: outcome.paRequest, md: outcome.md, termMd: `${session.id}.${sealed}` } };
  return { show: { step: 'challenge', session, acsUrl: outcome.acsUrl, creq: outcome.creq, sealedCard: sealed } };
}
