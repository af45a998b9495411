/**
 * Pay by card on the hosted page (docs/api.md#the-service, docs/api.md#states): the card form's submit. The card is
 * checked here; then it goes the card payment's way (payments/card/): attempt and lease,
 * 3-D Secure, authorisation (or, for a vault enrollment, the card stored), one state change.
 */
import { validateCard, type CardForm } from '../requests/card-input.ts';
import { payingByCard } from '../card/commit.ts';
import { type BrowserFacts } from '../card/steps.ts';
import { storedRequestOf } from '../serialize.ts';
import { customerOperation } from '../runner/operation.ts';

export const payCard = customerOperation({
  name: 'payCard',
  parse: (body: { form: CardForm; browser: BrowserFacts }) => body,
  load: () => undefined,
  decide: (_nothing, { form, browser }, { caller, now }) => ({
    check: validateCard(form, { accepted: caller.merchant.settings.cardBrands, preselected: storedRequestOf(caller.row).preselectedBrand, now: new Date(now) }),
    browser,
  }),
  ...payingByCard,
});
