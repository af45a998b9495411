/**
 * Pay with a card from the vault (docs/api.md#create-a-payment, docs/decisions.md#vault): the card
 * comes from the vault instead of the card form, then goes the card payment's way
 * (payments/card/). On the merchant's `confirm` path the customer types the CVC, which
 * the vault never keeps; on `direct` there is no form and the card is authorised without it.
 */
import { cvcError, isExpired } from '../requests/card-input.ts';
import { payingByCard } from '../card/commit.ts';
import { type BrowserFacts, type CardCheck } from '../card/steps.ts';
import { storedRequestOf } from '../serialize.ts';
import { customerOperation } from '../runner/operation.ts';
import { ownerOf } from '../../store/transactions.ts';

export const payStoredCard = customerOperation({
  name: 'payStoredCard',
  parse: (body: { cvc?: string; browser: BrowserFacts }) => body,
  load: async ({ cvc }, { ports, caller }) => {
    const { row, merchant } = caller;
    const { vaultCardId } = storedRequestOf(row);
    const typed = merchant.settings.vaultPaymentPath === 'confirm' ? (cvc ?? '').trim() : undefined;
    const card = vaultCardId ? await ports.vault.open(ownerOf(row), vaultCardId, typed) : undefined;
    return { card, typed };
  },
  decide: ({ card, typed }, { browser }, { now }) => {
    if (!card) return { check: { ok: false, errors: {} } as CardCheck, browser, unavailable: true };
    const cvcProblem = typed === undefined ? undefined : cvcError(typed, card.brand);
    const errors = {
      ...(cvcProblem ? { cvc: cvcProblem } : {}),
      ...(isExpired({ month: card.expiryMonth, year: card.expiryYear }, new Date(now)) ? { expiry: 'expiry_past' as const } : {}),
    };
    const check: CardCheck = Object.keys(errors).length ? { ok: false, errors } : { ok: true, card };
    return { check, browser };
  },
  ...payingByCard,
});
