/**
 * The card payment's act (docs/decisions.md#3-d-secure): 3-D Secure by Kassa's own 3DS Server —
 * frictionless, the challenge pop-up or the 3DS1 redirect, the card sealed to the step's session
 * meanwhile — or by the acquirer (acquirer-authentication.ts); then the authorisation, or for a
 * vault enrollment the card made ready to store (no money moves).
 */
import type { CardData } from '../../acquirer/connector.ts';
import { ownerOf } from '../../store/transactions.ts';
import { isAuthenticated, merchantSubjectToThreeDS, type Authentication } from '../../threeds/server.ts';
import { storedRequestOf } from '../serialize.ts';
import { flowOf } from '../flows.ts';
import { sealBinding } from './card-seal.ts';
import { authorise, cardFacts, paymentAmount, prepareForVault } from './authorise.ts';
import { authoriseAuthenticating, pageAddress } from './acquirer-authentication.ts';
import type { CardOutcome, CardPaymentContext, CardPlan } from './steps.ts';

/** act of a card payment: 3-D Secure, then authorisation (or, for an enrollment, the card made ready to store). */
export async function authenticateAndAuthorise(plan: CardPlan, ctx: CardPaymentContext): Promise<CardOutcome> {
  const { ports, caller, now } = ctx;
  const { row, merchant } = caller;
  const card = (plan.check as { card: CardData }).card;
  const stored = storedRequestOf(row);
  // Merchants that accept only bcmc are not subject to 3-D Secure (docs/api.md#the-service).
  if (!merchantSubjectToThreeDS(merchant.settings.cardBrands)) return settle(card, undefined, `attempt-${plan.attempt}`, ctx);
  const acquirer = await ports.acquirers.for(ownerOf(row));
  if (acquirer.authentication && flowOf(row.flow).threeDS.operation === 'payment') return authoriseAuthenticating(acquirer.authentication, plan, ctx);
  const started = await ports.threeDS.start({
    ...paymentAmount(row),
    card,
    kind: flowOf(row.flow).threeDS.operation,
    usesVaultToken: flowOf(row.flow).threeDS.usesVaultToken,
    merchantName: merchant.name,
    merchantId: merchant.id,
    data: stored.threeDS ?? { scaReady: 'no' },
    storeInVault: stored.storeInVault ?? false,
    collectedBrowser: plan.browser.collected,
    javascriptEnabled: plan.browser.javascriptEnabled,
    notificationUrl: pageAddress(ctx, '/3ds/notify'),
    now: new Date(now),
  });
  switch (started.kind) {
    case 'result':
      return concludeAuthentication(card, started.authentication, started.authentication.threeDSServerTransID, ctx);
    case 'challenge': {
      const sealedCard = ports.sealer.seal(card, sealBinding(row.reference, started.session.id), started.session.expires_at);
      return { show: { step: 'challenge', session: started.session, acsUrl: started.acsUrl, creq: started.creq, sealedCard } };
    }
    case 'redirect3ds1': {
      const md = `${started.session.id}.${ports.sealer.seal(card, sealBinding(row.reference, started.session.id), started.session.expires_at)}`;
      return { show: { step: 'redirect3ds1', acsUrl: started.acsUrl, paReq: started.paReq, md } };
    }
  }
}
/** After 3-D Secure: authenticated → authorise (or store the card); not → failed/rejected. */
export function concludeAuthentication(card: CardData, authentication: Authentication, key: string, ctx: CardPaymentContext): Promise<CardOutcome> | CardOutcome {
  if (isAuthenticated(authentication)) return settle(card, authentication, key, ctx);
  return { finish: { status: 'failed', failureCode: 'rejected', cause: 'authentication_failed', ...cardFacts(card), authentication } };
}
/** After authentication: an enrollment stores the card (no money moves, docs/api.md#vault-enrollment); a payment is authorised. */
function settle(card: CardData, authentication: Authentication | undefined, key: string, ctx: CardPaymentContext): Promise<CardOutcome> | CardOutcome {
  if (flowOf(ctx.caller.row.flow).threeDS.operation !== 'enrollment') return authorise(card, authentication, key, ctx);
  // scaToken (docs/api.md#the-details-object): true only when the cardholder was authenticated; an attempt (A) or no 3-D Secure at all is a fallback without it.
  const vault = prepareForVault(card, ctx);
  return { finish: { status: 'success', cause: 'card_enrolled', ...cardFacts(card), authentication, vault, scaToken: authentication?.transStatus === 'Y' } };
}
