/**
 * Paying with a card from the vault (spec §4.1 "Vault payment"; DESIGN §3): the card
 * comes from the vault instead of the card form, then goes the card payment's way
 * (pay-by-card.ts: attempt count and lease, 3-D Secure, authorisation, one state
 * change). On the merchant's `confirm` path the customer types the CVC, which the vault
 * never keeps; on `direct` there is no form and the card is authorised without it.
 */
import type { Ports } from '../payments/ports.ts';
import { processCard, storedRequestOf, type BrowserFacts, type CardCheck, type CardStep, type PaymentContext } from '../payments/pay-by-card.ts';
import { cvcError, isExpired } from '../payments/card-input.ts';

export async function payWithStoredCard(cp: Ports, ctx: PaymentContext, form: { cvc?: string }, browser: BrowserFacts, now = new Date()): Promise<CardStep> {
  const { row } = ctx;
  const { vaultCardId } = storedRequestOf(row);
  const askCvc = ctx.merchant.settings.vaultPaymentPath === 'confirm';
  const cvc = askCvc ? (form.cvc ?? '').trim() : undefined;
  const card = vaultCardId ? await cp.vault.open({ merchantId: row.merchant_id, mode: row.mode }, vaultCardId, cvc) : undefined;
  if (!card) return { step: 'unavailable' };
  const cvcProblem = cvc === undefined ? undefined : cvcError(cvc, card.brand);
  const errors = {
    ...(cvcProblem ? { cvc: cvcProblem } : {}),
    ...(isExpired({ month: card.expiryMonth, year: card.expiryYear }, now) ? { expiry: 'expiry_past' as const } : {}),
  };
  const check: CardCheck = Object.keys(errors).length ? { ok: false, errors } : { ok: true, card };
  return processCard(cp, ctx, check, browser, now);
}
