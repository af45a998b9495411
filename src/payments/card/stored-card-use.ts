/**
 * How a payment uses a stored card, as the acquirer is told it (docs/vault.md "Paying
 * off-session"): a payment that stores its card and a customer's payment with a stored card are
 * customer-initiated, card on file; an off-session payment (flows.ts `initiator: 'merchant'`) is
 * merchant-initiated, under a subscription's fixed schedule or unscheduled, as its
 * `sequenceInfo.type` says (docs/api.md#sequence-information). Pure.
 */
import type { CardData, StoredCardUse } from '../../acquirer/connector.ts';
import type { SequenceInfo } from '../../threeds/fields.ts';
import type { TransactionRow } from '../../store/schema.ts';
import { shopperReferenceOf } from '../../vault/vault.ts';
import { flowOf } from '../flows.ts';
import { storedRequestOf } from '../serialize.ts';

/** Whether paying this payment stores its card (an enrollment always; a payment when asked with storeInVault, docs/api.md#the-details-object). */
export function storesCard(row: TransactionRow): boolean {
  const { storesCard } = flowOf(row.flow);
  return storesCard === 'always' || (storesCard === 'if-asked' && !!storedRequestOf(row).storeInVault);
}

/** The agreement of a merchant-initiated series: a recurring or instalment series has a fixed schedule, an unscheduled one none. */
const agreementOf = (type: SequenceInfo['type'] | undefined): StoredCardUse['agreement'] =>
  type === 'RECURRING' || type === 'INSTALMENT' ? 'subscription' : 'unscheduled';

/** The stored-card use of an authorisation of `row` with `card`; undefined for a card that is neither stored nor to be stored. */
export function storedCardUseOf(row: TransactionRow, card: CardData): StoredCardUse | undefined {
  if (flowOf(row.flow).initiator === 'merchant' && card.stored) {
    return { ...card.stored, initiator: 'merchant', agreement: agreementOf(storedRequestOf(row).threeDS?.sequenceInfo?.type) };
  }
  if (card.stored) return { ...card.stored, initiator: 'cardholder', agreement: 'card-on-file' };
  // The card is stored with this payment's reference as its enrollment reference (authorise.ts `prepareForVault`).
  if (storesCard(row)) return { shopperReference: shopperReferenceOf(row.merchant_id, row.reference), initiator: 'cardholder', agreement: 'card-on-file' };
  return undefined;
}

/**
 * What a stored card keeps of an authorisation (docs/vault.md "Paying off-session"): the scheme's
 * reference of a customer-present one, for the card's merchant-initiated payments. The card this
 * payment stores gets it with its row; a card paid with from the vault, if it has none yet. A
 * merchant-initiated payment's own reference is not the consent's, and is not kept.
 */
export function networkReferenceToKeep(
  row: TransactionRow,
  card: CardData,
  networkReference: string | undefined,
): { vaultCardId?: string; networkReference: string } | undefined {
  if (networkReference === undefined || flowOf(row.flow).initiator === 'merchant') return undefined;
  if (card.stored) {
    const { vaultCardId } = storedRequestOf(row);
    return card.stored.networkReference === undefined && vaultCardId ? { vaultCardId, networkReference } : undefined;
  }
  return { networkReference };
}
